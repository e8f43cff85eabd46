/// Decides whether transparency matters: an alpha band whose every value is fully opaque (a PNG
/// or WebP saved as RGBA by habit, an FFmpeg-decoded BMP) carries nothing, and is dropped so the
/// picture can become a JPEG. Returns at once without alpha. A picture too large to hold in
/// memory (a huge animation, which stays a GIF) keeps its alpha unchecked: reading it would use up
/// its one streaming pass.
struct ImageAlphaStep: ImageStep {
    let name = "check transparency"

    func run(_ work: inout ImageWork) throws(PrepareError) {
        guard work.image?.hasAlpha == true else { return }
        guard work.inMemory else {
            work.meaningfulAlpha = true
            return
        }
        guard let image = work.image.take() else { return }
        do {
            if try image.hasMeaningfulAlpha() {
                work.meaningfulAlpha = true
                work.image = consume image
            } else {
                work.image = try image.withoutAlpha()
            }
        } catch {
            throw ImageFailure.from(error, step: name)
        }
    }
}
