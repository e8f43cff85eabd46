/// A coding format: FFmpeg's codec name for audio and video (`h264`, `hevc`, `aac`, `pcm_s16le`),
/// the image format for stills (`jpeg`, `png`, `apng`, `gif`, `webp`), and the bitstream codec
/// for HEIF and AVIF (`hevc`, `av1`). Open set, like ``Container``.
public struct Codec: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (a: Codec, b: Codec) -> Bool { a.rawValue < b.rawValue }

    // Image formats
    public static let jpeg: Codec = "jpeg"
    public static let png: Codec = "png"
    /// Animated PNG (an `acTL` chunk before the first `IDAT`).
    public static let apng: Codec = "apng"
    public static let gif: Codec = "gif"
    public static let webp: Codec = "webp"
    public static let tiff: Codec = "tiff"
    public static let bmp: Codec = "bmp"
    public static let jxl: Codec = "jxl"

    // Video
    public static let h264: Codec = "h264"
    public static let hevc: Codec = "hevc"
    public static let vp8: Codec = "vp8"
    public static let vp9: Codec = "vp9"
    public static let av1: Codec = "av1"
    public static let mpeg4: Codec = "mpeg4"
    public static let mpeg1video: Codec = "mpeg1video"
    public static let mpeg2video: Codec = "mpeg2video"
    public static let mjpeg: Codec = "mjpeg"
    public static let h263: Codec = "h263"

    // Audio
    public static let aac: Codec = "aac"
    public static let mp3: Codec = "mp3"
    /// MPEG-1/2 audio layer II and layer I.
    public static let mp2: Codec = "mp2"
    public static let mp1: Codec = "mp1"
    public static let alac: Codec = "alac"
    public static let flac: Codec = "flac"
    public static let opus: Codec = "opus"
    public static let vorbis: Codec = "vorbis"
    public static let ac3: Codec = "ac3"
    public static let eac3: Codec = "eac3"

    /// What FFmpeg names a stream whose codec it does not know (an unknown sample entry type, VVC
    /// in FFmpeg 5.1): the decode check reports it as undecodable, once.
    public static let unidentified: Codec = "none"
}
