/// A file format identified from the file's bytes: the container for audio/video, the file
/// format for images. Open set: a custom policy may name formats this list does not.
///
/// Values follow the names `ffprobe`/`vipsheader` users know (`mp4`, `mov`, `matroska`, `jpeg`).
public struct Container: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (a: Container, b: Container) -> Bool { a.rawValue < b.rawValue }

    // Images
    public static let jpeg: Container = "jpeg"
    public static let png: Container = "png"
    public static let gif: Container = "gif"
    public static let webp: Container = "webp"
    /// HEIF with an HEVC-coded primary image (`heic`/`heix` brands).
    public static let heic: Container = "heic"
    /// HEIF declared only by the generic `mif1` brand.
    public static let heif: Container = "heif"
    /// HEIF image sequence (`msf1`/`hevs` brands): a moving picture, not a still.
    public static let heifSequence: Container = "heif-sequence"
    public static let avif: Container = "avif"
    public static let tiff: Container = "tiff"
    public static let bmp: Container = "bmp"
    public static let jxl: Container = "jxl"

    // Audio and video
    public static let mp4: Container = "mp4"
    public static let mov: Container = "mov"
    public static let m4a: Container = "m4a"
    public static let m4v: Container = "m4v"
    public static let threeGP: Container = "3gp"
    public static let avi: Container = "avi"
    /// MPEG-1/2 program stream (`.mpg`), Apple's `public.mpeg`.
    public static let mpegPS: Container = "mpeg-ps"
    public static let mpegTS: Container = "mpeg-ts"
    /// A raw MPEG-1/2 video elementary stream (`.m2v`), Apple's `public.mpeg-2-video`.
    public static let mpegVideo: Container = "mpeg-video"
    public static let webm: Container = "webm"
    public static let matroska: Container = "matroska"
    /// An EBML file whose DocType could not be read.
    public static let ebml: Container = "ebml"
    public static let wav: Container = "wav"
    public static let rf64: Container = "rf64"
    public static let aiff: Container = "aiff"
    public static let aifc: Container = "aifc"
    public static let flac: Container = "flac"
    public static let ogg: Container = "ogg"
    public static let mp3: Container = "mp3"
    /// Raw AAC in ADTS frames (`.aac`).
    public static let aacADTS: Container = "aac-adts"
    public static let ape: Container = "ape"
    public static let amr: Container = "amr"

    // Not media
    public static let empty: Container = "empty"
    public static let json: Container = "json"
    public static let text: Container = "text"
    public static let unknown: Container = "unknown"

    /// The ISO base media family (MP4, MOV, M4A, M4V, 3GP, HEIF, AVIF): one box structure, one
    /// demuxer (libavformat's `mov`).
    public var isISOBaseMedia: Bool { Self.isoBaseMedia.contains(self) }

    /// The pictures of the ISO base media family (HEIC, HEIF, HEIF sequences, AVIF): items in a
    /// `meta` box (or a `moov` track for sequences) rather than a movie.
    var isHEIF: Bool { Self.heifPictures.contains(self) }

    /// Pictures libvips has no (trusted) loader for, read and decoded through FFmpeg instead: BMP
    /// (ImageMagick only, blocked), JPEG XL (untrusted in libvips 8.14, blocked), HEIF image
    /// sequences (libheif reads stills only).
    var isReadOnlyByFFmpeg: Bool { Self.ffmpegOnlyPictures.contains(self) }

    private static let heifPictures: Set<Container> = [.heic, .heif, .heifSequence, .avif]
    private static let isoBaseMedia: Set<Container> = heifPictures.union([.mp4, .mov, .m4a, .m4v, .threeGP])
    private static let ffmpegOnlyPictures: Set<Container> = [.bmp, .jxl, .heifSequence]
}
