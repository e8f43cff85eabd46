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

    /// The MIME type an HTTP answer carrying such a file names (`image/jpeg`); `nil` for the types
    /// AttachKit never hands back.
    public let mediaType: String?

    public init(_ identifier: String, _ extensions: [String], mediaType: String? = nil) {
        self.identifier = identifier
        self.preferredExtension = extensions[0]
        self.extensions = extensions
        self.mediaType = mediaType
    }

    public static let jpeg = UniformType("public.jpeg", ["jpg", "jpeg", "jpe"], mediaType: "image/jpeg")
    public static let png = UniformType("public.png", ["png"], mediaType: "image/png")
    public static let gif = UniformType("com.compuserve.gif", ["gif"], mediaType: "image/gif")
    public static let heic = UniformType("public.heic", ["heic"], mediaType: "image/heic")
    public static let heif = UniformType("public.heif", ["heif", "heic"], mediaType: "image/heif")
    public static let heicSequence = UniformType("public.heics", ["heics", "heic"])
    public static let avif = UniformType("public.avif", ["avif"])
    public static let webp = UniformType("org.webmproject.webp", ["webp"])
    public static let tiff = UniformType("public.tiff", ["tiff", "tif"])
    public static let bmp = UniformType("com.microsoft.bmp", ["bmp"])
    public static let jxl = UniformType("public.jpeg-xl", ["jxl"])
    public static let jpeg2000 = UniformType("public.jpeg-2000", ["jp2", "j2k", "jpf", "jpx", "j2c"])
    public static let pnm = UniformType("public.pbm", ["pnm", "ppm", "pgm", "pbm", "pam"])
    public static let qoi = UniformType("org.qoiformat.qoi", ["qoi"])
    public static let psd = UniformType("com.adobe.photoshop-image", ["psd"])
    public static let ico = UniformType("com.microsoft.ico", ["ico"])
    public static let cur = UniformType("com.microsoft.cur", ["cur"])
    public static let tga = UniformType("com.truevision.tga-image", ["tga"])
    public static let dds = UniformType("com.microsoft.dds", ["dds"])
    public static let exr = UniformType("com.ilm.openexr-image", ["exr"])
    public static let pcx = UniformType("com.zsoft.pcx", ["pcx"])
    public static let sgi = UniformType("com.sgi.sgi-image", ["sgi", "rgb"])
    public static let sunRaster = UniformType("com.sun.raster-image", ["ras", "sun"])
    public static let xwd = UniformType("org.x.xwd-image", ["xwd"])
    public static let dpx = UniformType("org.smpte.dpx", ["dpx"])
    // Camera raws, under the identifiers Apple declares for them.
    public static let nef = UniformType("com.nikon.raw-image", ["nef", "nrw"])
    public static let arw = UniformType("com.sony.arw-raw-image", ["arw", "sr2", "srf"])
    public static let cr2 = UniformType("com.canon.cr2-raw-image", ["cr2"])
    public static let cr3 = UniformType("com.canon.cr3-raw-image", ["cr3"])
    public static let dng = UniformType("com.adobe.raw-image", ["dng"])
    public static let orf = UniformType("com.olympus.raw-image", ["orf"])
    public static let rw2 = UniformType("com.panasonic.rw2-raw-image", ["rw2"])
    public static let pef = UniformType("com.pentax.raw-image", ["pef"])
    public static let raf = UniformType("com.fuji.raw-image", ["raf"])

    public static let mpeg4Movie = UniformType("public.mpeg-4", ["mp4", "mpeg4"], mediaType: "video/mp4")
    public static let m4v = UniformType("com.apple.m4v-video", ["m4v"], mediaType: "video/x-m4v")
    public static let quickTime = UniformType("com.apple.quicktime-movie", ["mov", "qt"], mediaType: "video/quicktime")
    public static let threeGPP = UniformType("public.3gpp", ["3gp", "3gpp"])
    public static let avi = UniformType("public.avi", ["avi"], mediaType: "video/x-msvideo")
    public static let mpeg = UniformType("public.mpeg", ["mpg", "mpeg", "m1v", "vob"], mediaType: "video/mpeg")
    public static let mpeg2Video = UniformType("public.mpeg-2-video", ["m2v"])
    public static let mpeg2TransportStream = UniformType("public.mpeg-2-transport-stream", ["ts", "m2ts", "mts"])
    public static let webm = UniformType("org.webmproject.webm", ["webm"])
    public static let matroska = UniformType("org.matroska.mkv", ["mkv", "mka", "mk3d"])
    public static let flv = UniformType("com.adobe.flash.video", ["flv"])
    public static let wmv = UniformType("com.microsoft.windows-media-wmv", ["wmv", "asf"])
    public static let realMedia = UniformType("com.real.realmedia", ["rm", "rmvb"])
    public static let mxf = UniformType("org.smpte.mxf", ["mxf"])
    public static let ivf = UniformType("org.webmproject.ivf", ["ivf"])
    public static let h264 = UniformType("org.itu.h264-video", ["h264", "264", "avc"])
    public static let hevc = UniformType("org.itu.hevc-video", ["hevc", "h265", "265"])

    public static let mpeg4Audio = UniformType("public.mpeg-4-audio", ["m4a", "m4b", "mp4"], mediaType: "audio/mp4")
    public static let mp3 = UniformType("public.mp3", ["mp3"], mediaType: "audio/mpeg")
    public static let wav = UniformType("com.microsoft.waveform-audio", ["wav", "wave"], mediaType: "audio/wav")
    public static let aiff = UniformType("public.aiff-audio", ["aiff", "aif"], mediaType: "audio/aiff")
    public static let aifc = UniformType("public.aifc-audio", ["aifc", "aif", "aiff"])
    public static let aac = UniformType("public.aac-audio", ["aac", "adts"], mediaType: "audio/aac")
    public static let flac = UniformType("org.xiph.flac", ["flac"])
    public static let ogg = UniformType("org.xiph.ogg", ["ogg", "oga", "opus", "ogv"])
    public static let ape = UniformType("com.monkeysaudio.ape", ["ape"])
    public static let amr = UniformType("org.3gpp.adaptive-multi-rate-audio", ["amr"])
    public static let mp2 = UniformType("public.mp2", ["mp2", "mpa"])
    public static let caf = UniformType("com.apple.coreaudio-format", ["caf"])
    public static let ac3 = UniformType("public.ac3-audio", ["ac3"])
    public static let eac3 = UniformType("public.enhanced-ac3-audio", ["eac3", "ec3"])
    public static let dts = UniformType("com.dts.audio", ["dts"])
    public static let wma = UniformType("com.microsoft.windows-media-wma", ["wma"])
    public static let realAudio = UniformType("com.real.realaudio", ["ra"])
    public static let musepack = UniformType("net.musepack.mpc", ["mpc"])
    public static let mod = UniformType("com.protracker.mod", ["mod"])
    public static let s3m = UniformType("com.screamtracker.s3m", ["s3m"])
    public static let xm = UniformType("com.fasttracker.xm", ["xm"])
    public static let impulseTracker = UniformType("com.impulsetracker.it", ["it"])
    public static let wavPack = UniformType("com.wavpack.wv", ["wv"])
    public static let tta = UniformType("org.tta.true-audio", ["tta"])
    public static let dsf = UniformType("com.sony.dsf", ["dsf"])
    public static let dff = UniformType("com.philips.dsdiff", ["dff"])
    public static let au = UniformType("public.ulaw-audio", ["au", "snd"])
    public static let wave64 = UniformType("com.sony.wave64", ["w64"])
    public static let voc = UniformType("com.creative.voc-audio", ["voc"])
    public static let qcp = UniformType("com.qualcomm.qcp", ["qcp"])

    /// The types AttachKit hands back, in the order an extension is looked up (`.mp4` is a movie
    /// before it is MPEG-4 audio).
    static let handedBack: [UniformType] = [.jpeg, .png, .gif, .heic, .heif, .mpeg4Movie, .m4v, .quickTime, .avi, .mpeg,
                                             .mpeg4Audio, .mp3, .wav, .aiff, .aac]

    /// The MIME type of a file AttachKit handed back with this extension (lower case, no dot),
    /// `nil` for another extension.
    public static func mediaType(ofExtension ext: String) -> String? {
        handedBack.first { $0.extensions.contains(ext) }?.mediaType
    }

    /// The type of a file with this content, or `nil` for content that has no media type
    /// (``FormatTable``). An audio-only MPEG-4 file is `public.mpeg-4-audio` (`.m4a`), an audio-only
    /// ASF file is WMA; a Matroska file with sound only keeps the Matroska type.
    public static func of(container: Container, kind: MediaKind) -> UniformType? {
        guard let facts = container.facts else { return nil }
        return kind == .audio ? facts.audioType ?? facts.type : facts.type
    }
}
