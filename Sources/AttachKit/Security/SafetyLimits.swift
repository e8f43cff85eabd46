/// Caps that protect the machine from hostile input, checked from the header before any pixel or
/// sample is decoded. They hold whatever the profile says (the `apple` profile has no pixel cap,
/// yet a 65536×65536 PNG must still never be decoded). Defaults follow sharp and imgproxy.
public struct SafetyLimits: Sendable, Equatable {
    /// Input file size. Default 2 GB.
    public var maxInputBytes: Int64 = 2_000_000_000
    /// Width × height of one frame. Default 268,402,689 (16383², sharp's `limitInputPixels`).
    public var maxPixels: Int64 = 16383 * 16383
    /// Width × height × frames of an animation. Default 1,000,000,000.
    public var maxTotalPixels: Int64 = 1_000_000_000
    /// Frames of an animated image. Default 10,000.
    public var maxFrames: Int = 10_000
    /// Seconds of audio or video one job reads and decodes (``WorkSpan``: a trim of a longer file
    /// to its first 30 s is within it; a deep check or a re-encode of all of it is not). Default
    /// ``longestInput`` (4 hours).
    public var maxDuration: Double = SafetyLimits.longestInput
    /// 4 hours, in seconds: the default ``maxDuration``, and the top of every option that counts
    /// seconds into an input (``OptionLimits``).
    public static let longestInput: Double = 4 * 3600
    /// Streams in an audio/video container. Default 32.
    public var maxStreams: Int = 32
    /// Samples an MP4/MOV's sample tables declare, all tracks and fragments together, checked
    /// before libavformat reads them (``ISOBMFFSampleTables``): libavformat allocates for every
    /// sample declared, whether or not its bytes exist (24 B of index, 8 B of composition offset,
    /// up to 8 B more for open-GOP sync groups; probing 4 M samples measured 176 MB of RSS), so a
    /// 77 KB file declaring 89 M samples took 2.1 GB. Sound read in whole chunks (PCM) counts its
    /// index entries, not its sample frames. Default 5,000,000: 4 hours of 240 fps video with
    /// 48 kHz AAC declare 4.1 M.
    public var maxSamples: Int64 = 5_000_000
    /// Width × height of a picture that has to be decoded whole into memory rather than streamed
    /// (video frames, and images only FFmpeg reads: BMP, 12-bit JPEG, JPEG XL, HEIF sequences).
    /// Default 64 Mpx (256 MB as RGBA), more than 8K video's 33 Mpx.
    public var maxWholeFramePixels: Int64 = 64_000_000
    /// Memory one job's decoder may need, estimated from the header (``DecodeMemory``: the whole
    /// canvas of a HEIF/AVIF image, an interlaced PNG or a GIF, a progressive JPEG's coefficients,
    /// FFmpeg's whole frames and reference frames, a streaming decoder's row window). Checked before
    /// anything is decoded: an image whose decoder needs more whatever size it is loaded at is
    /// refused (`over-cap`); one whose buffers shrink with shrink-on-load is loaded small enough to
    /// fit. Default 512 MiB (536,870,912 bytes), which a 4K → 1080p transcode needs (~455 MiB
    /// estimated, ~570 MB measured). It bounds the decoder, not the process: the process itself
    /// (~55 MB of libraries) and the estimate's error come on top, so a job admitted just under
    /// the cap peaks near 560 MB (a progressive JPEG estimated just under 512 MiB peaked at
    /// 561 MB); the worker processes' memory limit (1 GiB) is the backstop.
    public var maxDecodeBytes: Int64 = 512 << 20

    public init() {}

    /// The first cap `info` is over; `nil` when within all.
    /// - Parameter span: how much of an audio/video file the work reads and decodes, held against
    ///   ``maxDuration``. Default ``WorkSpan/whole``.
    public func violation(for info: MediaInfo, span: WorkSpan = .whole) -> SafetyViolation? {
        if info.bytes > maxInputBytes {
            return SafetyViolation(cap: "maxInputBytes", detail: "\(info.bytes) bytes > \(maxInputBytes)")
        }
        if let pixels = info.pixels, pixels > maxPixels {
            return SafetyViolation(cap: "maxPixels", detail: "\(info.width ?? 0)×\(info.height ?? 0) = \(pixels) px > \(maxPixels)")
        }
        // Pictures only FFmpeg reads are always decoded whole (video frames are checked where a
        // decode is planned: a stream copy decodes nothing).
        if info.kind == .image, info.container.isReadOnlyByFFmpeg, let violation = wholeFrameViolation(of: info) {
            return violation
        }
        if let frames = info.frames, info.kind == .image {
            if frames > maxFrames {
                return SafetyViolation(cap: "maxFrames", detail: "\(frames) frames > \(maxFrames)")
            }
            if info.container == .gif, frames > DecoderLimits.gifFrames {
                return SafetyViolation(cap: DecoderLimits.gifFramesCap,
                                       detail: "\(frames) frames > \(DecoderLimits.gifFrames), the most libvips' GIF decoder reads")
            }
            if let pixels = info.pixels, pixels.saturatingMultiply(Int64(frames)) > maxTotalPixels {
                return SafetyViolation(cap: "maxTotalPixels", detail: "\(pixels) px × \(frames) frames > \(maxTotalPixels)")
            }
        }
        if let read = span.seconds(of: info), read > maxDuration, let duration = info.duration {
            let detail = read < duration ? "\(read) s of its \(duration) s to read > \(maxDuration) s" : "\(duration) s > \(maxDuration) s"
            return SafetyViolation(cap: "maxDuration", detail: detail)
        }
        if let streams = info.streams, streams > maxStreams {
            return SafetyViolation(cap: "maxStreams", detail: "\(streams) streams > \(maxStreams)")
        }
        // An image's decoder needs its fixed part whatever size it is loaded at. (Audio and video
        // are checked where a decode is planned: a stream copy decodes nothing.)
        if info.kind == .image, let memory = info.decodeMemory {
            return decodeViolation(memory, loadedPixels: 0)
        }
        return nil
    }

    /// The cap a decode is over when the picture is loaded at `loadedPixels` (see ``maxDecodeBytes``).
    public func decodeViolation(_ memory: DecodeMemory, loadedPixels: Int64) -> SafetyViolation? {
        let bytes = memory.bytes(loadedPixels: loadedPixels)
        guard bytes > maxDecodeBytes else { return nil }
        return SafetyViolation(cap: "maxDecodeBytes",
                               detail: "decoding needs about \(DecodeMemory.megabytes(bytes)) (\(memory.basis)), over \(DecodeMemory.megabytes(maxDecodeBytes))")
    }

    /// The cap a decode of `info`'s video frames is over: whole frames (``wholeFrameViolation(of:)``),
    /// then the decoder's memory at `threads` frame threads (``DecodeMemoryEstimator``). What a poster
    /// frame and `validate --deep` decide before decoding a video; `nil` within the caps.
    public func videoDecodeViolation(of info: MediaInfo, threads: Int) -> SafetyViolation? {
        if let violation = wholeFrameViolation(of: info) { return violation }
        guard let memory = DecodeMemoryEstimator.videoDecoder(info, threads: threads) else { return nil }
        return decodeViolation(memory, loadedPixels: 0)
    }

    /// The cap `info`'s picture is over when it is decoded whole into memory (see
    /// ``maxWholeFramePixels``): checked wherever a whole-frame decode is decided (pictures only
    /// FFmpeg reads, here; pictures libvips turns out not to open, video frames to re-encode, poster
    /// frames, in their pipelines). `nil` within the cap or without dimensions.
    public func wholeFrameViolation(of info: MediaInfo) -> SafetyViolation? {
        guard let width = info.width, let height = info.height else { return nil }
        let pixels = Int64(width) * Int64(height)
        guard pixels > maxWholeFramePixels else { return nil }
        return SafetyViolation(cap: "maxWholeFramePixels",
                               detail: "\(width)×\(height) = \(pixels) px must be decoded whole, over \(maxWholeFramePixels)")
    }
}

/// A header declares more than a ``SafetyLimits`` cap allows: the file is refused before decoding.
public struct SafetyViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// The cap's name, as in ``SafetyLimits`` (`maxPixels`, `maxFrames`...), or a decoder's own
    /// limit (``DecoderLimits``: `gifDecoderFrames`).
    public let cap: String
    /// What the header declares against the cap.
    public let detail: String

    public var description: String { "\(detail) (cap: \(cap))" }
}
