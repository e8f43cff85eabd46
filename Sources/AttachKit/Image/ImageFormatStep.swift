/// Chooses what to write. An animation stays an animated GIF. Otherwise the input's own format is
/// kept when the profile allows it and the pipeline writes it (JPEG, PNG, GIF, and HEIC for HEIC
/// input under a profile that keeps HEIC); anything else (WebP, AVIF, TIFF, BMP, JPEG XL, HEIC
/// under `apple`...) becomes PNG when it has meaningful transparency, or when it is a greyscale
/// picture from a lossless format (a TIFF or BMP scan, a fax: JPEG rings around text and line
/// art, PNG keeps it exact and small), else JPEG.
struct ImageFormatStep: ImageStep {
    let name = "choose format"

    /// Formats whose greyscale pictures are kept lossless (PNG) rather than made JPEG.
    static let losslessSources: Set<Container> = [.tiff, .bmp]

    func run(_ work: inout ImageWork) throws(PrepareError) {
        let profile = work.job.profile
        let info = work.job.info
        let chosen: ImageFormat
        if work.plan.outputsGIF {
            chosen = .gif
        } else if let own = ImageFormat(container: info.container), own != .gif, own.isAllowed(by: profile) {
            chosen = own
        } else {
            let lineArt = work.image?.isGreyscale == true && Self.losslessSources.contains(info.container)
            let preference: [ImageFormat] = work.meaningfulAlpha || lineArt ? [.png, .jpeg, .gif] : [.jpeg, .png, .gif]
            guard let allowed = preference.first(where: { $0.isAllowed(by: profile) }) else {
                throw .unsupported(reason: "profile \(profile.name) allows none of the image types AttachKit writes (JPEG, PNG, GIF, HEIC)")
            }
            chosen = allowed
        }
        work.format = chosen
        if chosen.container != info.container {
            work.did(.converted)
            work.notes.append("\(info.container.rawValue) → \(chosen.rawValue)")
        }
    }
}
