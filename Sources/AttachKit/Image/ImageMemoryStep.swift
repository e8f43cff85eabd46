/// Decodes the (already downscaled) pixels once and keeps them in memory, so every encode attempt
/// of byte fitting reads memory instead of decoding the file again. This is where a lazily loaded
/// picture is decoded, so a damaged file fails here, as corrupt.
///
/// Two kinds of picture are left lazy:
/// - a still headed for JPEG or HEIC without alpha (``streams(_:)``): like `vipsthumbnail`, its
///   first encode pulls pixels straight from the decoder, with no full copy (for a 24 MP photo at
///   2048 px that copy is 8 MB); only when byte fitting needs a second encode are the pixels
///   loaded again, into memory (``ImageStillFitStep``);
/// - an animation larger than ``maximumBytes`` decoded, which streams into its one encode (a
///   later attempt at a smaller size loads the file again).
struct ImageMemoryStep: ImageStep {
    let name = "decode"

    /// Largest decoded animation kept in memory. Default 256 MiB.
    static let maximumBytes: Int64 = 256 << 20

    func run(_ work: inout ImageWork) throws(PrepareError) {
        guard !work.inMemory, let width = work.image?.width, let height = work.image?.height,
              let bands = work.image?.bands else { return }
        if !work.holdPixels, Self.streams(work) { return }
        if work.plan.animated, Int64(width) * Int64(height) * Int64(bands) > Self.maximumBytes { return }
        guard let image = work.image.take() else { return }
        work.image = try ImageFailure.vips(name) { () throws(VipsError) in try image.copyToMemory() }
        work.inMemory = true
    }

    /// Whether the picture can stream from the decoder into its first encode: a still read by
    /// libvips (a file, or a camera raw's preview), without alpha in its header (so no transparency check is needed), whose output
    /// will be JPEG or HEIC (a PNG may need a palette encode and a comparison, a GIF its frames):
    /// a picture of another format, a JPEG or HEIC kept, or a PNG judged a photograph
    /// (``ImageWork/photo``).
    static func streams(_ work: borrowing ImageWork) -> Bool {
        guard !work.plan.animated, !work.plan.outputsGIF, work.plan.reader.isLibvips,
              work.job.info.hasAlpha == false else { return false }
        if work.photo != nil { return true }
        let own = ImageFormat(container: work.job.info.container)
        let lineArt = (work.job.info.bands ?? 3) == 1 && ImageFormatStep.losslessSources.contains(work.job.info.container)
        return (own == nil || own == .jpeg || own == .heic) && !lineArt
    }
}
