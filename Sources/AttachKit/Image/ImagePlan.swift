/// What the image pipeline decides from the header alone, before any pixel is decoded: who reads
/// the pixels, whether the output stays animated, the size the caps allow, the byte budget and how
/// colour is converted.
struct ImagePlan: Sendable {
    /// Who decodes the pixels.
    enum Reader: Sendable, Equatable {
        /// libvips, with shrink-on-load.
        case vips
        /// libavformat/libavcodec with this demuxer, for what libvips cannot read.
        case ffmpeg(demuxer: String)
        /// libvips, with shrink-on-load, on a camera raw's embedded JPEG preview
        /// (``CameraRawPreview/jpeg(path:raw:)``): its bytes, upright as the raw says.
        case embeddedPreview

        /// Whether libvips decodes (the file, or a camera raw's preview).
        var isLibvips: Bool { self == .vips || self == .embeddedPreview }
    }

    let reader: Reader
    /// Upright size of the input (EXIF orientation applied).
    let width: Int
    let height: Int
    /// Frames the input holds (1 for a still).
    let frames: Int
    /// Whether the output keeps the animation (an animated GIF; a profile without GIF gets the
    /// first frame as a still).
    let animated: Bool
    /// Whether the output is a GIF: an animation, or a still GIF kept a GIF (when the profile allows GIF).
    let outputsGIF: Bool
    /// The profile's pixel caps on one frame, tightened so the decode fits
    /// ``SafetyLimits/maxDecodeBytes`` (``memoryPixelCap(info:safety:)``).
    let caps: PixelBudget
    /// Whether the decode budget, not the profile, sets the load size.
    let memoryLimited: Bool
    /// Bytes the output may take: the profile's image limit (already tightened by `--max-bytes`).
    let budget: Int64
    /// Bytes a re-encode aims under when it can at or above the quality floor: the profile's
    /// `recommendedBytes` (`ios`: 1 MB), when below ``budget``; `nil` when there is none.
    let recommended: Int64?
    /// `"srgb"` when the input carries an ICC profile or is CMYK (so libvips converts its colours
    /// into sRGB while loading); `nil` when the pixels are already sRGB or greyscale.
    let exportProfile: String?

    /// - Throws: ``PrepareError/unsupported(reason:)`` when neither libvips nor FFmpeg can read the input.
    init(job: PrepareJob) throws(PrepareError) {
        let info = job.info
        width = max(1, info.displayWidth ?? info.width ?? 1)
        height = max(1, info.displayHeight ?? info.height ?? 1)
        frames = max(1, info.frames ?? 1)
        var caps = PixelBudget(job.profile.image)
        let profileBox = caps.fit(width: width, height: height)
        if let memoryCap = Self.memoryPixelCap(info: info, safety: job.safety) {
            caps.maxPixels = min(caps.maxPixels ?? memoryCap, memoryCap)
        }
        self.caps = caps
        memoryLimited = caps.fit(width: width, height: height) != profileBox
        let budget = job.profile.image.maxBytes
        self.budget = budget
        recommended = job.profile.image.recommendedBytes.flatMap { $0 < budget ? $0 : nil }
        reader = try Self.reader(for: info, path: job.inputPath)
        let sequence = info.container == .heifSequence || (info.container == .avif && frames > 1 && reader != .vips)
        let gifAllowed = ImageFormat.gif.isAllowed(by: job.profile)
        animated = frames > 1 && (info.isAnimated || sequence) && gifAllowed
        outputsGIF = gifAllowed && (animated || info.container == .gif)
        let cmyk = info.pixelFormat == "cmyk"
        exportProfile = (info.hasICCProfile == true || cmyk) && reader.isLibvips ? "srgb" : nil
    }

    /// The size within the caps, upright.
    var box: (width: Int, height: Int) { caps.fit(width: width, height: height) }

    /// Bytes per loaded pixel the pipeline itself holds beside the decoder's: the decoded picture
    /// kept in memory for byte fitting (``ImageMemoryStep``, 8-bit RGBA at most: 4 B/px) and the
    /// encoder's working copy (libjpeg's coefficients with optimized Huffman tables are ~3 B/px,
    /// a PNG palette search a few): 8 B/px.
    static let pipelineBytesPerPixel = 8.0

    /// The most pixels a frame may be loaded at so that the decoder (``MediaInfo/decodeMemory``)
    /// and the pipeline's own copies stay within ``SafetyLimits/maxDecodeBytes``: shrink-on-load
    /// to fit, rather than refuse, a picture only a profile without pixel caps would load whole.
    static func memoryPixelCap(info: MediaInfo, safety: SafetyLimits) -> Int64? {
        var whole = info.decodeMemory ?? DecodeMemory(fixedBytes: 0, basis: "")
        whole.bytesPerLoadedPixel += pipelineBytesPerPixel
        return whole.largestLoad(within: safety.maxDecodeBytes).map { max(1, $0) }
    }

    /// libvips when it can open the header (even leniently: decode damage is judged later, with
    /// warnings as errors); FFmpeg for what libvips cannot read at all, and for APNG animations
    /// (libvips reads only their default image); a camera raw's embedded JPEG preview for a raw.
    static func reader(for info: MediaInfo, path: String) throws(PrepareError) -> Reader {
        if info.container.isCameraRaw { return .embeddedPreview }
        if info.codec == .apng, (info.frames ?? 1) > 1 { return .ffmpeg(demuxer: "apng") }
        if !info.container.isReadOnlyByFFmpeg,
           (try? VipsImage.load(path: path, sequential: true, failOnWarnings: false)) != nil {
            return .vips
        }
        guard let demuxer = Demuxers.name(for: info.container) else {
            throw .unsupported(reason: info.container.facts?.refusal ?? "no decoder reads \(info.container) pictures")
        }
        return .ffmpeg(demuxer: demuxer)
    }
}
