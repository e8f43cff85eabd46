/// Which library decodes a format's pictures or samples in AttachKit.
enum FormatReader: Sendable, Equatable {
    /// libvips' own loader (FFmpeg as a fallback for what it refuses: 12-bit JPEG...).
    case libvips
    /// libavformat + libavcodec (audio, video, and pictures libvips has no trusted loader for).
    case ffmpeg
    /// A camera raw's embedded JPEG preview, found by ``CameraRawLayout`` and decoded by libvips:
    /// nothing here decodes sensor data (libvips 8.14 is built without libraw).
    case embeddedPreview
    /// Nothing here decodes it: identified, then refused as `unsupported`.
    case none
}

/// The cheap structural check that applies to a format (see ``StructureChecker``).
enum StructureCheck: Sendable, Equatable {
    case jpeg, png, gif, riff, aiff, isoBaseMedia, matroska, mpegAudio, adts, flac, ogg, transportStream, tiff, bmp, qoi, sunRaster, proTracker,
         screamTracker, fastTracker, impulseTracker
    /// A camera raw: its TIFF layout (when it has one) and its embedded JPEG preview (``CameraRawStructure``).
    case cameraRaw
    /// No checker: the probe and the decoders are the only judges.
    case none
}

/// Everything AttachKit knows about one format, in one row: adding a format touches only
/// ``FormatTable/rows`` (and the sniffer, which knows its magic numbers).
struct FormatFacts: Sendable {
    /// The family of boxes a format belongs to.
    enum Family: Sendable, Equatable {
        /// ISO base media (MP4, MOV, M4A, 3GP): one box structure, libavformat's `mov` demuxer.
        case isoBaseMedia
        /// HEIF pictures (HEIC, HEIF, HEIF sequences, AVIF): ISO base media whose pictures are
        /// items in a `meta` box (or a `moov` track for sequences).
        case heif
    }

    let container: Container
    /// What people call it, for messages ("JPEG 2000", "Core Audio Format").
    let name: String
    /// `.image` for pictures, `.audio` for sound-only formats, `.video` for containers whose
    /// streams decide between audio and video, `.unknown` for bytes that are not media.
    let kind: MediaKind
    /// libavformat demuxers: the first is the one AttachKit opens the format with (`nil` when
    /// libavformat does not read it); every name maps back to this row when libavformat's own
    /// detection (`av_probe_input_format3`) reports it.
    let demuxers: [String]
    /// The type iOS would give it (`nil` for bytes that are not media).
    let type: UniformType?
    /// The type when the file holds sound only, when that differs (MP4 → M4A, ASF → WMA).
    let audioType: UniformType?
    let reader: FormatReader
    let structure: StructureCheck
    let family: Family?
    /// Why AttachKit identifies the format but cannot prepare it (`nil` when it can): the
    /// `unsupported` reason.
    let refusal: String?

    init(_ container: Container, _ name: String, _ kind: MediaKind, demuxers: [String] = [], type: UniformType? = nil,
         audioType: UniformType? = nil, reader: FormatReader? = nil, structure: StructureCheck = .none, family: Family? = nil,
         refusal: String? = nil) {
        self.container = container
        self.name = name
        self.kind = kind
        self.demuxers = demuxers
        self.type = type
        self.audioType = audioType
        self.reader = reader ?? (kind == .unknown || demuxers.isEmpty ? .none : .ffmpeg)
        self.structure = structure
        self.family = family
        self.refusal = refusal ?? (kind == .image && self.reader == .none ? "\(name) is not read here" : nil)
    }

    /// The demuxer AttachKit opens the format with.
    var demuxer: String? { demuxers.first }
}

/// The per-format facts: demuxer, type and extension, kind, reader, structure check, ISO family.
/// ``Container``, ``UniformType``, ``Demuxers`` and ``StructureChecker`` read their answers here.
enum FormatTable {
    /// Every format, pictures first. Formats the sniffer has no signature for (DDS, OpenEXR's
    /// variants, PCX, SGI, Sun raster, XWD, DPX, Sun audio, Wave64, Creative Voice) are named by
    /// libavformat's detection through their demuxer here. The order of the types is the order ``UniformType/known``
    /// lists them in (the first type listing an extension owns it).
    static let rows: [FormatFacts] = pictures + movies + sounds + notMedia

    /// The row for `container`, `nil` for a container no row describes (a custom policy's name).
    static func facts(_ container: Container) -> FormatFacts? { byContainer[container] }

    /// The row whose demuxer libavformat's detection named (`mov,mp4,m4a,3gp,3g2,mj2`, `qoi_pipe`).
    static func facts(forDemuxer demuxer: String) -> FormatFacts? { byDemuxer[demuxer] }

    private static let byContainer: [Container: FormatFacts] =
        Dictionary(rows.map { ($0.container, $0) }, uniquingKeysWith: { first, _ in first })
    private static let byDemuxer: [String: FormatFacts] =
        Dictionary(rows.flatMap { row in row.demuxers.map { ($0, row) } }, uniquingKeysWith: { first, _ in first })

    private static let pictures: [FormatFacts] = [
        .init(.jpeg, "JPEG", .image, demuxers: ["jpeg_pipe"], type: .jpeg, reader: .libvips, structure: .jpeg),
        .init(.png, "PNG", .image, demuxers: ["png_pipe", "apng"], type: .png, reader: .libvips, structure: .png),
        .init(.gif, "GIF", .image, demuxers: ["gif", "gif_pipe"], type: .gif, reader: .libvips, structure: .gif),
        .init(.heic, "HEIC", .image, demuxers: ["mov"], type: .heic, reader: .libvips, structure: .isoBaseMedia, family: .heif),
        .init(.heif, "HEIF", .image, demuxers: ["mov"], type: .heif, reader: .libvips, structure: .isoBaseMedia, family: .heif),
        // libheif reads stills only: sequences (and what libvips refuses) are read through FFmpeg's mov demuxer.
        .init(.heifSequence, "HEIF image sequence", .image, demuxers: ["mov"], type: .heicSequence, structure: .isoBaseMedia, family: .heif),
        .init(.avif, "AVIF", .image, demuxers: ["mov"], type: .avif, reader: .libvips, structure: .isoBaseMedia, family: .heif),
        .init(.webp, "WebP", .image, demuxers: ["webp_pipe"], type: .webp, reader: .libvips, structure: .riff),
        .init(.tiff, "TIFF", .image, demuxers: ["tiff_pipe"], type: .tiff, reader: .libvips, structure: .tiff),
        // libvips' only BMP loader is ImageMagick's (blocked).
        .init(.bmp, "BMP", .image, demuxers: ["bmp_pipe"], type: .bmp, structure: .bmp),
        // libvips 8.14's JPEG XL loader is untrusted (blocked).
        .init(.jxl, "JPEG XL", .image, demuxers: ["jpegxl_pipe"], type: .jxl),
        // libvips' OpenJPEG loader is untrusted (blocked); FFmpeg's decoder reads codestreams and JP2 files.
        .init(.jpeg2000, "JPEG 2000", .image, demuxers: ["j2k_pipe"], type: .jpeg2000),
        // libvips' PPM loader is untrusted (blocked); FFmpeg's PNM decoders read every P1-P7 variant.
        .init(.pnm, "PNM", .image, demuxers: ["ppm_pipe", "pgm_pipe", "pbm_pipe", "pam_pipe"], type: .pnm),
        .init(.qoi, "QOI", .image, demuxers: ["qoi_pipe"], type: .qoi, structure: .qoi),
        .init(.psd, "Photoshop", .image, demuxers: ["psd_pipe"], type: .psd),
        .init(.ico, "ICO", .image, demuxers: ["ico"], type: .ico),
        // libavformat's ico demuxer reads cursors when told to (its detection only takes icons).
        .init(.cur, "CUR", .image, demuxers: ["ico"], type: .cur),
        // FFmpeg decodes TGA only through the image2 demuxer, chosen by file name: not read here.
        .init(.tga, "TGA", .image, type: .tga,
              refusal: "TGA is not read here (FFmpeg decodes TGA only when the file name says .tga; libvips has no TGA loader)"),
        .init(.dds, "DDS", .image, demuxers: ["dds_pipe"], type: .dds),
        .init(.exr, "OpenEXR", .image, demuxers: ["exr_pipe"], type: .exr),
        .init(.pcx, "PCX", .image, demuxers: ["pcx_pipe"], type: .pcx),
        .init(.sgi, "SGI", .image, demuxers: ["sgi_pipe"], type: .sgi),
        .init(.sunRaster, "Sun raster", .image, demuxers: ["sunrast_pipe"], type: .sunRaster, structure: .sunRaster),
        .init(.xwd, "X Window dump", .image, demuxers: ["xwd_pipe"], type: .xwd),
        .init(.dpx, "DPX", .image, demuxers: ["dpx_pipe"], type: .dpx),
        // Camera raws: their embedded JPEG preview is what is shown (issue 29).
        .init(.nef, "Nikon NEF", .image, type: .nef, reader: .embeddedPreview, structure: .cameraRaw),
        .init(.arw, "Sony ARW", .image, type: .arw, reader: .embeddedPreview, structure: .cameraRaw),
        .init(.cr2, "Canon CR2", .image, type: .cr2, reader: .embeddedPreview, structure: .cameraRaw),
        .init(.cr3, "Canon CR3", .image, type: .cr3, reader: .embeddedPreview, structure: .cameraRaw),
        .init(.dng, "DNG", .image, type: .dng, reader: .embeddedPreview, structure: .cameraRaw),
        .init(.orf, "Olympus ORF", .image, type: .orf, reader: .embeddedPreview, structure: .cameraRaw),
        .init(.rw2, "Panasonic RW2", .image, type: .rw2, reader: .embeddedPreview, structure: .cameraRaw),
        .init(.pef, "Pentax PEF", .image, type: .pef, reader: .embeddedPreview, structure: .cameraRaw),
        .init(.raf, "Fujifilm RAF", .image, type: .raf, reader: .embeddedPreview, structure: .cameraRaw),
    ]

    private static let movies: [FormatFacts] = [
        .init(.mp4, "MPEG-4", .video, demuxers: ["mov", "mov,mp4,m4a,3gp,3g2,mj2"], type: .mpeg4Movie, audioType: .mpeg4Audio,
              structure: .isoBaseMedia, family: .isoBaseMedia),
        .init(.m4v, "M4V", .video, demuxers: ["mov"], type: .m4v, structure: .isoBaseMedia, family: .isoBaseMedia),
        .init(.mov, "QuickTime", .video, demuxers: ["mov"], type: .quickTime, audioType: .mpeg4Audio,
              structure: .isoBaseMedia, family: .isoBaseMedia),
        .init(.threeGP, "3GPP", .video, demuxers: ["mov"], type: .threeGPP, structure: .isoBaseMedia, family: .isoBaseMedia),
        .init(.avi, "AVI", .video, demuxers: ["avi"], type: .avi, structure: .riff),
        .init(.mpegPS, "MPEG program stream", .video, demuxers: ["mpeg"], type: .mpeg),
        .init(.mpegVideo, "MPEG video", .video, demuxers: ["mpegvideo"], type: .mpeg2Video),
        .init(.mpegTS, "MPEG transport stream", .video, demuxers: ["mpegts"], type: .mpeg2TransportStream, structure: .transportStream),
        .init(.webm, "WebM", .video, demuxers: ["matroska"], type: .webm, structure: .matroska),
        .init(.matroska, "Matroska", .video, demuxers: ["matroska", "matroska,webm"], type: .matroska, structure: .matroska),
        .init(.ebml, "EBML", .video, demuxers: ["matroska"], structure: .matroska),
        .init(.flv, "Flash Video", .video, demuxers: ["flv", "live_flv"], type: .flv),
        .init(.asf, "ASF (Windows Media)", .video, demuxers: ["asf", "asf_o"], type: .wmv, audioType: .wma),
        .init(.realMedia, "RealMedia", .video, demuxers: ["rm"], type: .realMedia, audioType: .realAudio),
        .init(.mxf, "MXF", .video, demuxers: ["mxf"], type: .mxf),
        .init(.ivf, "IVF", .video, demuxers: ["ivf"], type: .ivf),
        // Raw streams carry no timestamps, which trimming and re-encoding need.
        .init(.h264, "H.264 elementary stream", .video, demuxers: ["h264"], type: .h264,
              refusal: "a raw H.264 stream has no timestamps: it is not converted here (wrap it in MP4 first)"),
        .init(.hevc, "HEVC elementary stream", .video, demuxers: ["hevc"], type: .hevc,
              refusal: "a raw HEVC stream has no timestamps: it is not converted here (wrap it in MP4 first)"),
    ]

    private static let sounds: [FormatFacts] = [
        .init(.m4a, "MPEG-4 audio", .audio, demuxers: ["mov"], type: .mpeg4Movie, audioType: .mpeg4Audio,
              structure: .isoBaseMedia, family: .isoBaseMedia),
        .init(.mp3, "MP3", .audio, demuxers: ["mp3"], type: .mp3, structure: .mpegAudio),
        .init(.mp2, "MPEG audio layer I/II", .audio, demuxers: ["mp3"], type: .mp2, structure: .mpegAudio),
        .init(.wav, "WAVE", .audio, demuxers: ["wav"], type: .wav, structure: .riff),
        .init(.rf64, "RF64", .audio, demuxers: ["wav"], type: .wav, structure: .riff),
        .init(.aiff, "AIFF", .audio, demuxers: ["aiff"], type: .aiff, structure: .aiff),
        .init(.aifc, "AIFF-C", .audio, demuxers: ["aiff"], type: .aifc, structure: .aiff),
        .init(.aacADTS, "AAC (ADTS)", .audio, demuxers: ["aac"], type: .aac, structure: .adts),
        .init(.flac, "FLAC", .audio, demuxers: ["flac"], type: .flac, structure: .flac),
        .init(.ogg, "Ogg", .video, demuxers: ["ogg"], type: .ogg, structure: .ogg),
        .init(.ape, "Monkey's Audio", .audio, demuxers: ["ape"], type: .ape),
        .init(.amr, "AMR", .audio, demuxers: ["amr"], type: .amr),
        .init(.caf, "Core Audio Format", .audio, demuxers: ["caf"], type: .caf),
        .init(.ac3, "AC-3", .audio, demuxers: ["ac3"], type: .ac3),
        .init(.eac3, "E-AC-3", .audio, demuxers: ["eac3"], type: .eac3),
        .init(.dts, "DTS", .audio, demuxers: ["dts", "dtshd"], type: .dts),
        .init(.musepack, "Musepack", .audio, demuxers: ["mpc"], type: .musepack),
        .init(.musepack8, "Musepack SV8", .audio, demuxers: ["mpc8"], type: .musepack),
        // libopenmpt renders each module to sound (32-bit float PCM); its detection maps back to
        // the first of them only (the sniffer tells them apart).
        .init(.mod, "ProTracker module", .audio, demuxers: ["libopenmpt"], type: .mod, structure: .proTracker),
        .init(.s3m, "Scream Tracker 3 module", .audio, demuxers: ["libopenmpt"], type: .s3m, structure: .screamTracker),
        .init(.xm, "FastTracker 2 module", .audio, demuxers: ["libopenmpt"], type: .xm, structure: .fastTracker),
        .init(.impulseTracker, "Impulse Tracker module", .audio, demuxers: ["libopenmpt"], type: .impulseTracker, structure: .impulseTracker),
        .init(.wavPack, "WavPack", .audio, demuxers: ["wv"], type: .wavPack),
        .init(.tta, "True Audio", .audio, demuxers: ["tta"], type: .tta),
        .init(.dsf, "DSD Stream File", .audio, demuxers: ["dsf"], type: .dsf),
        // libavformat's iff demuxer also reads IFF pictures, so its detection does not map back here.
        .init(.dff, "DSDIFF", .audio, demuxers: ["iff"], type: .dff),
        .init(.au, "Sun/NeXT audio", .audio, demuxers: ["au"], type: .au),
        .init(.wave64, "Wave64", .audio, demuxers: ["w64"], type: .wave64),
        .init(.voc, "Creative Voice", .audio, demuxers: ["voc"], type: .voc),
        .init(.qcp, "QCP (Qualcomm PureVoice)", .audio, demuxers: ["qcp"], type: .qcp, structure: .riff),
    ]

    private static let notMedia: [FormatFacts] = [
        .init(.empty, "an empty file", .unknown),
        .init(.json, "JSON text", .unknown),
        .init(.text, "text", .unknown),
        .init(.html, "an HTML page", .unknown),
        .init(.xml, "an XML document", .unknown),
        .init(.svg, "an SVG image: a vector image is not media here", .unknown),
        .init(.pdf, "a PDF document: a document is not media here", .unknown),
        .init(.zip, "a ZIP archive", .unknown),
        .init(.gzip, "a gzip archive", .unknown),
        .init(.elf, "an executable (ELF)", .unknown),
        .init(.pe, "an executable (Windows PE)", .unknown),
        .init(.machO, "an executable (Mach-O)", .unknown),
        .init(.unknown, "unknown bytes", .unknown),
    ]
}
