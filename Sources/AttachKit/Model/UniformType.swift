/// The Uniform Type Identifier iOS derives from a file extension, and the extensions that map to it.
///
/// iOS reads an attachment's type from its extension unless the app passes
/// `UNNotificationAttachmentOptionsTypeHintKey`; a prepared output carries ``preferredExtension``
/// and reports ``identifier`` as the type hint.
public struct UniformType: Hashable, Sendable {
    /// The UTI string, e.g. `public.jpeg`.
    public let identifier: String
    /// The extension AttachKit gives outputs of this type (lower case, no dot).
    public let preferredExtension: String
    /// Every extension iOS maps to this type (lower case, no dot), preferred first.
    public let extensions: [String]

    public init(_ identifier: String, _ extensions: [String]) {
        self.identifier = identifier
        self.preferredExtension = extensions[0]
        self.extensions = extensions
    }

    public static let jpeg = UniformType("public.jpeg", ["jpg", "jpeg", "jpe"])
    public static let png = UniformType("public.png", ["png"])
    public static let gif = UniformType("com.compuserve.gif", ["gif"])
    public static let heic = UniformType("public.heic", ["heic"])
    public static let heif = UniformType("public.heif", ["heif", "heic"])
    public static let heicSequence = UniformType("public.heics", ["heics", "heic"])
    public static let avif = UniformType("public.avif", ["avif"])
    public static let webp = UniformType("org.webmproject.webp", ["webp"])
    public static let tiff = UniformType("public.tiff", ["tiff", "tif"])
    public static let bmp = UniformType("com.microsoft.bmp", ["bmp"])
    public static let jxl = UniformType("public.jpeg-xl", ["jxl"])

    public static let mpeg4Movie = UniformType("public.mpeg-4", ["mp4", "mpeg4"])
    public static let m4v = UniformType("com.apple.m4v-video", ["m4v"])
    public static let quickTime = UniformType("com.apple.quicktime-movie", ["mov", "qt"])
    public static let threeGPP = UniformType("public.3gpp", ["3gp", "3gpp"])
    public static let avi = UniformType("public.avi", ["avi"])
    public static let mpeg = UniformType("public.mpeg", ["mpg", "mpeg", "m1v", "vob"])
    public static let mpeg2Video = UniformType("public.mpeg-2-video", ["m2v"])
    public static let mpeg2TransportStream = UniformType("public.mpeg-2-transport-stream", ["ts", "m2ts", "mts"])
    public static let webm = UniformType("org.webmproject.webm", ["webm"])
    public static let matroska = UniformType("org.matroska.mkv", ["mkv", "mka", "mk3d"])

    public static let mpeg4Audio = UniformType("public.mpeg-4-audio", ["m4a", "m4b", "mp4"])
    public static let mp3 = UniformType("public.mp3", ["mp3"])
    public static let wav = UniformType("com.microsoft.waveform-audio", ["wav", "wave"])
    public static let aiff = UniformType("public.aiff-audio", ["aiff", "aif"])
    public static let aifc = UniformType("public.aifc-audio", ["aifc", "aif", "aiff"])
    public static let aac = UniformType("public.aac-audio", ["aac", "adts"])
    public static let flac = UniformType("org.xiph.flac", ["flac"])
    public static let ogg = UniformType("org.xiph.ogg", ["ogg", "oga", "opus", "ogv"])
    public static let ape = UniformType("com.monkeysaudio.ape", ["ape"])
    public static let amr = UniformType("org.3gpp.adaptive-multi-rate-audio", ["amr"])

    /// The type of a file with this content, or `nil` for content that has no media type.
    /// An audio-only MPEG-4 file is `public.mpeg-4-audio` (`.m4a`), a Matroska file with sound only
    /// keeps the Matroska type.
    public static func of(container: Container, kind: MediaKind) -> UniformType? {
        switch container {
        case .jpeg: return .jpeg
        case .png: return .png
        case .gif: return .gif
        case .heic: return .heic
        case .heif: return .heif
        case .heifSequence: return .heicSequence
        case .avif: return .avif
        case .webp: return .webp
        case .tiff: return .tiff
        case .bmp: return .bmp
        case .jxl: return .jxl
        case .mp4, .m4a: return kind == .audio ? .mpeg4Audio : .mpeg4Movie
        case .m4v: return .m4v
        case .mov: return kind == .audio ? .mpeg4Audio : .quickTime
        case .threeGP: return .threeGPP
        case .avi: return .avi
        case .mpegPS: return .mpeg
        case .mpegVideo: return .mpeg2Video
        case .mpegTS: return .mpeg2TransportStream
        case .webm: return .webm
        case .matroska: return .matroska
        case .mp3: return .mp3
        case .wav, .rf64: return .wav
        case .aiff: return .aiff
        case .aifc: return .aifc
        case .aacADTS: return .aac
        case .flac: return .flac
        case .ogg: return .ogg
        case .ape: return .ape
        case .amr: return .amr
        default: return nil
        }
    }
}
