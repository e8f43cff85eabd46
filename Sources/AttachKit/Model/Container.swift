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
    /// JPEG 2000, as a JP2 file or a bare codestream (`.j2k`).
    public static let jpeg2000: Container = "jpeg2000"
    /// Netpbm pictures: PBM, PGM, PPM and PAM (`P1`...`P7`).
    public static let pnm: Container = "pnm"
    public static let qoi: Container = "qoi"
    /// Photoshop document (its composite image).
    public static let psd: Container = "psd"
    /// Windows icon.
    public static let ico: Container = "ico"
    /// Windows cursor (an icon with hotspots).
    public static let cur: Container = "cur"
    /// Truevision TGA (with the TGA 2.0 footer).
    public static let tga: Container = "tga"
    public static let dds: Container = "dds"
    public static let exr: Container = "exr"
    public static let pcx: Container = "pcx"
    public static let sgi: Container = "sgi"
    public static let sunRaster: Container = "sun-raster"
    /// X Window System dump.
    public static let xwd: Container = "xwd"
    /// SMPTE Digital Picture Exchange.
    public static let dpx: Container = "dpx"

    // Camera raws: shown and converted through the JPEG preview they embed (``CameraRawInfo``).
    /// Nikon NEF (and NRW): TIFF whose IFD0 Make says NIKON, with sensor data.
    public static let nef: Container = "nef"
    /// Sony ARW (and SR2, SRF): TIFF whose IFD0 Make says SONY, with sensor data.
    public static let arw: Container = "arw"
    /// Canon CR2: TIFF with `CR` at byte 8.
    public static let cr2: Container = "cr2"
    /// Canon CR3: ISO base media with the `crx ` brand.
    public static let cr3: Container = "cr3"
    /// Adobe Digital Negative: TIFF with a DNGVersion tag.
    public static let dng: Container = "dng"
    /// Olympus ORF: TIFF under its own magic number (`IIRO`, `MMOR`, `IIRS`).
    public static let orf: Container = "orf"
    /// Panasonic RW2: TIFF under its own magic number (`IIU\0`).
    public static let rw2: Container = "rw2"
    /// Pentax PEF: TIFF whose IFD0 Make says PENTAX (or RICOH IMAGING), with sensor data.
    public static let pef: Container = "pef"
    /// Fujifilm RAF (`FUJIFILMCCD-RAW `).
    public static let raf: Container = "raf"

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
    /// MPEG audio layer I or II in elementary frames (`.mp2`); layer III is ``mp3``.
    public static let mp2: Container = "mp2"
    /// Apple's Core Audio Format.
    public static let caf: Container = "caf"
    /// Raw AC-3 (Dolby Digital) frames.
    public static let ac3: Container = "ac3"
    /// Raw E-AC-3 (Dolby Digital Plus) frames.
    public static let eac3: Container = "eac3"
    /// Raw DTS frames.
    public static let dts: Container = "dts"
    /// Musepack SV7 and earlier (`MP+`).
    public static let musepack: Container = "musepack"
    /// Musepack SV8 (`MPCK`), read by libavformat's own `mpc8` demuxer.
    public static let musepack8: Container = "musepack-sv8"
    /// Tracker modules, rendered to sound by libopenmpt (libavformat's `libopenmpt` demuxer):
    /// ProTracker and its kin (`M.K.` at byte 1080), Scream Tracker 3, FastTracker 2, Impulse Tracker.
    public static let mod: Container = "mod"
    public static let s3m: Container = "s3m"
    public static let xm: Container = "xm"
    public static let impulseTracker: Container = "it"
    public static let wavPack: Container = "wavpack"
    /// True Audio.
    public static let tta: Container = "tta"
    /// DSD Stream File (Sony).
    public static let dsf: Container = "dsf"
    /// DSDIFF (Philips), a `FRM8` form of DSD audio.
    public static let dff: Container = "dff"
    /// Sun/NeXT audio (`.au`, `.snd`).
    public static let au: Container = "au"
    /// Sony Wave64.
    public static let wave64: Container = "wave64"
    /// Creative Voice (`.voc`).
    public static let voc: Container = "voc"
    /// Qualcomm PureVoice (RFC 3625): a RIFF `QLCM` form holding QCELP-13K, EVRC or SMV speech.
    public static let qcp: Container = "qcp"
    public static let flv: Container = "flv"
    /// Advanced Systems Format: Windows Media video (`.wmv`) and audio (`.wma`).
    public static let asf: Container = "asf"
    public static let realMedia: Container = "realmedia"
    public static let mxf: Container = "mxf"
    /// On2/WebM IVF: VP8, VP9 or AV1 frames with a 32-byte header.
    public static let ivf: Container = "ivf"
    /// A raw H.264 Annex B elementary stream.
    public static let h264: Container = "h264"
    /// A raw HEVC Annex B elementary stream.
    public static let hevc: Container = "hevc"

    // Not media
    public static let empty: Container = "empty"
    public static let json: Container = "json"
    public static let text: Container = "text"
    public static let html: Container = "html"
    public static let xml: Container = "xml"
    public static let svg: Container = "svg"
    public static let pdf: Container = "pdf"
    public static let zip: Container = "zip"
    public static let gzip: Container = "gzip"
    /// An ELF executable or library.
    public static let elf: Container = "elf"
    /// A Windows (PE) executable.
    public static let pe: Container = "pe"
    /// A Mach-O executable.
    public static let machO: Container = "mach-o"
    public static let unknown: Container = "unknown"

    /// This format's row in ``FormatTable``, `nil` for a name no row describes.
    var facts: FormatFacts? { FormatTable.facts(self) }

    /// The ISO base media family (MP4, MOV, M4A, M4V, 3GP, HEIF, AVIF): one box structure, one
    /// demuxer (libavformat's `mov`).
    public var isISOBaseMedia: Bool { facts?.family != nil }

    /// The pictures of the ISO base media family (HEIC, HEIF, HEIF sequences, AVIF): items in a
    /// `meta` box (or a `moov` track for sequences) rather than a movie.
    var isHEIF: Bool { facts?.family == .heif }

    /// Pictures libvips has no (trusted) loader for, read and decoded through FFmpeg instead (BMP,
    /// JPEG XL, HEIF image sequences, JPEG 2000, PNM, QOI, PSD, ICO...), and pictures nothing here
    /// reads (TGA): never handed to libvips.
    var isReadOnlyByFFmpeg: Bool { facts.map { $0.kind == .image && ($0.reader == .ffmpeg || $0.reader == .none) } ?? false }

    /// Camera raws: what is shown and converted is the JPEG preview they embed
    /// (``FormatReader/embeddedPreview``), never the file itself.
    var isCameraRaw: Bool { facts?.reader == .embeddedPreview }
}
