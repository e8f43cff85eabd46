/// Makes the pixels 8-bit sRGB, or 8-bit greyscale when the input was grey (a grey picture stays
/// one band: smaller, and no colour cast). Loading already converted ICC-tagged and CMYK pictures
/// to sRGB and 16-bit pictures to 8 bits; this catches what is left (a grey ICC profile turned
/// into sRGB, FFmpeg-decoded pixels). Returns at once when the pixels are ready.
struct ImageColourStep: ImageStep {
    let name = "convert colour"

    func run(_ work: inout ImageWork) throws(PrepareError) {
        let greySource = (work.job.info.bands ?? 3) - ((work.job.info.hasAlpha ?? false) ? 1 : 0) == 1
        let wantsGrey = greySource && work.job.info.pixelFormat != "cmyk"
        guard let ready = work.image?.isDisplayReady, let isGrey = work.image?.isGreyscale,
              !ready || isGrey != wantsGrey, var image = work.image.take() else { return }
        do {
            image = try image.converted(to: wantsGrey ? .greyscale : .sRGB)
            if !image.isEightBit { image = try image.castToEightBit() }
        } catch {
            throw ImageFailure.from(error, step: name)
        }
        work.image = consume image
    }
}
