/// Chooses what to write. An animation stays an animated GIF. Otherwise the input's own format is
/// kept when the profile allows it and the pipeline writes it (JPEG, PNG, GIF, and HEIC for HEIC
/// input under a profile that keeps HEIC); anything else (WebP, AVIF, TIFF, BMP, JPEG XL, HEIC
/// under `apple`...) becomes PNG when it has meaningful transparency, or when it is a greyscale
/// picture from a lossless format (a TIFF or BMP scan, a fax: JPEG rings around text and line
/// art, PNG keeps it exact and small), else JPEG. A PNG input that is a photograph without
/// transparency (``PhotoEstimate``; judged from its top rows before decoding by
/// ``ImagePhotoStep``, else from the whole picture in memory) whose PNG would be over the
/// recommended size (or, without one, the budget) becomes JPEG when the profile allows it: it is
/// being re-encoded anyway, and as JPEG it costs one encode (no palette detour) and a tenth of
/// the bytes.
struct ImageFormatStep: ImageStep {
    let name = "choose format"

    /// Formats whose greyscale pictures are kept lossless (PNG) rather than made JPEG.
    static let losslessSources: Set<Container> = [.tiff, .bmp]

    func run(_ work: inout ImageWork) throws(PrepareError) {
        let profile = work.job.profile
        let info = work.job.info
        var chosen: ImageFormat
        if work.plan.outputsGIF {
            chosen = .gif
        } else if let own = ImageFormat(container: info.container), own != .gif, own.isAllowed(by: profile) {
            chosen = own
            if own == .png, !work.meaningfulAlpha, ImageFormat.jpeg.isAllowed(by: profile),
               let width = work.image?.width, let height = work.image?.height {
                let target = work.plan.recommended ?? work.plan.budget
                let estimate = PhotoEstimate.pngBytes(info: info, width: width, height: height)
                if Double(target) < estimate, let verdict = work.photo ?? Self.judgeInMemory(&work), verdict.photographic {
                    chosen = .jpeg
                    work.notes.append("a photograph (\(verdict.evidence)) whose PNG would take about \(estimate.clampedInteger(in: 0...Int64.max / 2)) bytes, over \(target): JPEG rather than PNG")
                }
            }
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

    /// ``PhotoEstimate/judge(_:)`` on the pixels in memory; `nil` for a lazy picture.
    private static func judgeInMemory(_ work: inout ImageWork) -> PhotoEstimate.Verdict? {
        guard work.inMemory, let image = work.image.take() else { return nil }
        let verdict = PhotoEstimate.judge(image)
        work.image = consume image
        return verdict
    }
}
