/// Identifies a file's format from its first bytes, never from its name.
///
/// This is the only place in AttachKit that knows magic numbers. It answers the family (image,
/// audio/video, not media) and the container; the probes then read the real header. Everything
/// else about a format (demuxer, type, reader, structure check) is in ``FormatTable``.
struct FormatSniffer {
    /// What the first bytes say.
    struct Result: Equatable, Sendable {
        var container: Container
        /// `.image` for still-image formats, `.video` for audio/video containers (the probe decides
        /// between audio and video from the streams), `.unknown` for anything else.
        var family: MediaKind
        /// For elementary audio (MP3, MP2, ADTS, FLAC) behind ID3v2 tags or junk: where the first
        /// frame starts.
        var audioOffset: Int64 = 0

        init(container: Container, family: MediaKind, audioOffset: Int64 = 0) {
            self.container = container
            self.family = family
            self.audioOffset = audioOffset
        }

        /// The family ``FormatTable`` gives `container`.
        init(_ container: Container, audioOffset: Int64 = 0) {
            let kind = container.facts?.kind ?? .unknown
            self.init(container: container, family: kind == .image || kind == .unknown ? kind : .video, audioOffset: audioOffset)
        }
    }

    /// Sniffs `reader`'s bytes. Reads a few kilobytes, plus the ID3v2 tags of elementary audio and
    /// at most ``AudioSync/window`` bytes after them when looking for the first audio frame.
    static func sniff(_ reader: borrowing FileReader) -> Result {
        guard reader.size > 0 else { return Result(.empty) }
        let head = reader.read(at: 0, count: 4096)
        if let raw = cameraRaw(head, reader) { return Result(raw) }
        if let image = imageFormat(head) { return Result(image) }
        if let av = audioVideoFormat(head, fileSize: reader.size) { return Result(av) }
        if let image = footerImageFormat(reader) { return Result(image) }
        if let binary = NonMedia.binaryFormat(head) { return Result(binary) }
        if let audio = AudioSync.find(reader) { return Result(audio.container, audioOffset: audio.offset) }
        if head.matches("ID3", at: 0), case let tagsEnd = AudioSync.tagsEnd(reader), tagsEnd > 0 {
            // Tags with nothing recognisable after them: let libavformat look further.
            return Result(container: .unknown, family: .unknown, audioOffset: tagsEnd)
        }
        return Result(NonMedia.textFormat(head) ?? .unknown)
    }

    // MARK: Images

    /// Camera raws, by their bytes: Fujifilm RAF (`FUJIFILMCCD-RAW `), Canon CR3 (ISO base media,
    /// brand `crx `), Olympus ORF and Panasonic RW2 (TIFF under their own magic numbers), Canon
    /// CR2 (TIFF with `CR` at byte 8), DNG (IFD0 has a DNGVersion), and Nikon NEF, Sony ARW and
    /// Pentax PEF (IFD0's Make, in a TIFF that holds sensor data: a Nikon scanner's TIFF stays
    /// a TIFF; or whose IFDs could not all be read, too many SubIFDs or cut short,
    /// ``CameraRawLayout/unread``: then the raw is refused saying so, never taken for the TIFF of
    /// its IFD0 thumbnail). IFD0 and the
    /// IFDs under it are read through ``CameraRawLayout``.
    static func cameraRaw(_ h: [UInt8], _ reader: borrowing FileReader) -> Container? {
        if h.matches("FUJIFILMCCD-RAW ", at: 0) { return .raf }
        if h.matches("ftyp", at: 4), isoBrands(h).first == "crx " { return .cr3 }
        guard let tiff = TIFFHeader(h) else { return nil }
        switch tiff.magic {
        case 0x4F52, 0x5352: return .orf
        case 0x55: return .rw2
        case 42: break
        default: return nil
        }
        if h.matches("CR", at: 8) { return .cr2 }
        guard let layout = CameraRawLayout.readTIFF(reader) else { return nil }
        if layout.dngVersion?.isEmpty == false { return .dng }
        guard layout.holdsSensorData || layout.unread != nil, let make = layout.make?.uppercased() else { return nil }
        if make.hasPrefix("NIKON") { return .nef }
        if make.hasPrefix("SONY") { return .arw }
        if make.hasPrefix("PENTAX") || make.hasPrefix("RICOH IMAGING") { return .pef }
        return nil
    }

    static func imageFormat(_ h: [UInt8]) -> Container? {
        if h.matches([0xFF, 0xD8, 0xFF], at: 0) { return .jpeg }
        if h.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) { return .png }
        if h.matches("GIF87a", at: 0) || h.matches("GIF89a", at: 0) { return .gif }
        if h.matches("RIFF", at: 0), h.matches("WEBP", at: 8) { return .webp }
        // Classic TIFF (42) and BigTIFF (43), either byte order: libvips (libtiff) reads both.
        if h.matches([0x49, 0x49], at: 0) || h.matches([0x4D, 0x4D], at: 0) {
            let magic = h.matches("II", at: 0) ? h.le16(2) : h.be16(2)
            if magic == 42 || magic == 43 { return .tiff }
        }
        if h.matches("BM", at: 0), h.count >= 18, h.le32(6) == 0, BMPHeader.dibSizes.contains(Int64(h.le32(14))) { return .bmp }
        if h.matches([0xFF, 0x0A], at: 0) { return .jxl }
        if h.matches([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], at: 0) { return .jxl }
        if h.matches("ftyp", at: 4), let brand = isoImageBrand(h) { return brand }
        return otherImageFormat(h)
    }

    /// Pictures libavformat reads that iOS does not show: JPEG 2000, Netpbm, QOI, Photoshop,
    /// icons and cursors, DirectDraw surfaces, OpenEXR.
    static func otherImageFormat(_ h: [UInt8]) -> Container? {
        // JP2 signature box, or a bare codestream (SOC then SIZ marker).
        if h.matches([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A], at: 0) { return .jpeg2000 }
        if h.matches([0xFF, 0x4F, 0xFF, 0x51], at: 0) { return .jpeg2000 }
        if isNetpbm(h) { return .pnm }
        if h.matches("qoif", at: 0), h.count >= 14, h.be32(4) > 0, h.be32(8) > 0, [3, 4].contains(h[12]) { return .qoi }
        if h.matches([0x59, 0xA6, 0x6A, 0x95], at: 0), h.count >= 32 { return .sunRaster }
        if h.matches("8BPS", at: 0), h.count >= 26, [1, 2].contains(h.be16(4)) { return .psd }
        if h.matches("DDS ", at: 0), h.count >= 8, h.le32(4) == 124 { return .dds }
        if h.matches([0x76, 0x2F, 0x31, 0x01], at: 0) { return .exr }
        return iconFormat(h)
    }

    /// An icon (`00 00 01 00`) or cursor (`00 00 02 00`) directory whose first entry points past
    /// the directory at a PNG or a 40-byte DIB header.
    static func iconFormat(_ h: [UInt8]) -> Container? {
        guard h.count >= 22, h.matches([0x00, 0x00], at: 0), h[3] == 0, [1, 2].contains(h[2]) else { return nil }
        let count = Int(h.le16(4))
        let size = h.le32(14), offset = Int(h.le32(18))
        guard (1...256).contains(count), h[9] == 0, size > 0, offset >= 6 + 16 * count else { return nil }
        if offset + 8 <= h.count {
            let png = h.matches([0x89, 0x50, 0x4E, 0x47], at: offset)
            guard png || h.le32(offset) == 40 else { return nil }
        }
        return h[2] == 1 ? .ico : .cur
    }

    /// Netpbm: `P1`...`P6`, whitespace (or comments), a positive width and height; or `P7` with
    /// its `WIDTH`/`ENDHDR` header lines.
    static func isNetpbm(_ h: [UInt8]) -> Bool {
        guard h.count >= 3, h[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(h[1]),
              [0x20, 0x09, 0x0A, 0x0D].contains(h[2]) else { return false }
        if h[1] == UInt8(ascii: "7") {
            let header = String(decoding: h.prefix(512), as: UTF8.self)
            return header.contains("WIDTH") && header.contains("ENDHDR")
        }
        var i = 2
        var numbers: [Int] = []
        while numbers.count < 2, i < h.count {
            if [0x20, 0x09, 0x0A, 0x0D].contains(h[i]) {
                i += 1
            } else if h[i] == UInt8(ascii: "#") {
                while i < h.count, h[i] != 0x0A { i += 1 }
            } else {
                var value = 0, digits = 0
                while i < h.count, (0x30...0x39).contains(h[i]), digits < 8 {
                    value = value * 10 + Int(h[i] - 0x30)
                    digits += 1
                    i += 1
                }
                guard digits > 0, value > 0 else { return false }
                numbers.append(value)
            }
        }
        return numbers.count == 2
    }

    /// TGA has no leading signature: only a TGA 2.0 file, whose last 18 bytes are
    /// `TRUEVISION-XFILE.\0`, with a plausible header is identified.
    static func footerImageFormat(_ reader: borrowing FileReader) -> Container? {
        guard reader.size >= 44 else { return nil }
        let footer = reader.read(at: reader.size - 18, count: 18)
        guard footer.matches("TRUEVISION-XFILE.", at: 0), footer.last == 0 else { return nil }
        let header = reader.read(at: 0, count: 18)
        guard header.count == 18, header[1] <= 1, [1, 2, 3, 9, 10, 11].contains(header[2]),
              header.le16(12) > 0, header.le16(14) > 0 else { return nil }
        return .tga
    }

    /// HEIF and AVIF brands (major first, then compatible brands). Image sequences are reported
    /// as ``Container/heifSequence`` or ``Container/avif`` too: they are pictures, not movies.
    static func isoImageBrand(_ h: [UInt8]) -> Container? {
        let brands = isoBrands(h)
        guard let major = brands.first else { return nil }
        switch major {
        case "heic", "heix", "heim", "heis": return .heic
        case "avif", "avis": return .avif
        case "msf1", "hevc", "hevx", "hevs": return brands.contains("avis") ? .avif : .heifSequence
        case "mif1":
            // The generic brand: HEIF whatever the codec, unless AVIF is declared.
            if brands.contains("avif") || brands.contains("avis") { return .avif }
            return .heif
        default: return nil
        }
    }

    /// The major brand followed by the compatible brands of an `ftyp` box at offset 0.
    static func isoBrands(_ h: [UInt8]) -> [String] {
        guard h.matches("ftyp", at: 4) else { return [] }
        let boxSize = Int(h.be32(0))
        var brands = [h.ascii(8, 4)]
        var i = 16
        while i + 4 <= min(boxSize, h.count) {
            brands.append(h.ascii(i, 4))
            i += 4
        }
        return brands
    }

    // MARK: Audio and video containers

    static func audioVideoFormat(_ h: [UInt8], fileSize: Int64) -> Container? {
        if h.matches("RIFF", at: 0) {
            if h.matches("WAVE", at: 8) { return .wav }
            if h.matches("AVI ", at: 8) { return .avi }
            if h.matches("QLCM", at: 8) { return .qcp }
            return nil
        }
        if (h.matches("RF64", at: 0) || h.matches("BW64", at: 0)), h.matches("WAVE", at: 8) { return .rf64 }
        if h.matches("FORM", at: 0) {
            if h.matches("AIFF", at: 8) { return .aiff }
            if h.matches("AIFC", at: 8) { return .aifc }
            return nil
        }
        if h.matches("ftyp", at: 4) { return isoMovieBrand(h) }
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(h.ascii(4, 4)), h.be32(0) >= 8 || h.be32(0) <= 1 {
            return .mov
        }
        // A DASH/HLS media segment: its fragments with no `ftyp` before them.
        if ["styp", "moof", "sidx"].contains(h.ascii(4, 4)), h.be32(0) >= 8 { return .mp4 }
        if h.matches([0x1A, 0x45, 0xDF, 0xA3], at: 0) { return ebmlDocType(h) }
        if h.matches("OggS", at: 0) { return .ogg }
        if h.matches("fLaC", at: 0) { return .flac }
        if h.matches("MAC ", at: 0) { return .ape }
        if h.matches("#!AMR", at: 0) { return .amr }
        if h.matches([0x00, 0x00, 0x01, 0xBA], at: 0) { return .mpegPS }
        if h.matches([0x00, 0x00, 0x01, 0xB3], at: 0) { return .mpegVideo }
        if isTransportStream(h, packet: 188, offset: 0, fileSize: fileSize) { return .mpegTS }
        if isTransportStream(h, packet: 192, offset: 4, fileSize: fileSize) { return .mpegTS }
        return otherAudioVideoFormat(h) ?? AnnexB.format(h)
    }

    /// Containers libavformat reads that iOS does not play.
    static func otherAudioVideoFormat(_ h: [UInt8]) -> Container? {
        if h.matches("caff", at: 0), h.count >= 6, h.be16(4) == 1 { return .caf }
        if h.matches("FLV", at: 0), h.count >= 9, h[3] == 1, h.be32(5) >= 9 { return .flv }
        if h.matches([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C], at: 0) { return .asf }
        if h.matches(".RMF", at: 0) || h.matches([0x2E, 0x72, 0x61, 0xFD], at: 0) { return .realMedia }
        // The key of an MXF header partition pack.
        if h.matches([0x06, 0x0E, 0x2B, 0x34, 0x02, 0x05, 0x01, 0x01, 0x0D, 0x01, 0x02, 0x01, 0x01, 0x02], at: 0) { return .mxf }
        if h.matches("DKIF", at: 0), h.count >= 8, h.le16(4) == 0, h.le16(6) == 32 { return .ivf }
        // SV8: a packet key of two capital letters follows (the stream header, `SH`, first).
        if h.matches("MPCK", at: 0), h.count > 5, (0x41...0x5A).contains(h[4]), (0x41...0x5A).contains(h[5]) { return .musepack8 }
        if h.matches("MP+", at: 0) && h.count > 3 && h[3] & 0x0F == 7 { return .musepack }
        if let module = trackerModule(h) { return module }
        if h.matches("wvpk", at: 0) { return .wavPack }
        if h.matches("TTA1", at: 0) { return .tta }
        if h.matches("DSD ", at: 0), h.count >= 12, h.le64(4) == 28 { return .dsf }
        if h.matches("FRM8", at: 0), h.matches("DSD ", at: 12) { return .dff }
        return nil
    }

    /// Tracker modules: FastTracker 2 (`Extended Module: `, then a 20-byte name and 0x1A), Impulse Tracker (`IMPM`), Scream
    /// Tracker 3 (`SCRM` at byte 44, type 16), ProTracker and its kin (a 4-byte tag at byte 1080
    /// naming the channels: `M.K.`, `M!K!`, `FLT4`, `6CHN`, `16CH`...).
    static func trackerModule(_ h: [UInt8]) -> Container? {
        if h.matches("Extended Module: ", at: 0), h.count > 37, h[37] == 0x1A { return .xm }
        if h.matches("IMPM", at: 0) { return .impulseTracker }
        if h.matches("SCRM", at: 44), h.count > 29, h[29] == 16 { return .s3m }
        guard h.count >= 1084 else { return nil }
        return ProTrackerStructure.channels(h.ascii(1080, 4)) != nil && isProTrackerHeader(h) ? .mod : nil
    }

    /// The 4-byte tag at byte 1080 is weak evidence on its own (an MP3's ID3 comment may hold
    /// "M.K." there): the header before it must be a ProTracker one too — 31 sample headers with
    /// a finetune of 0–15 and a volume of at most 64, a song length of 1–128 patterns, an order
    /// table of pattern numbers below 128.
    private static func isProTrackerHeader(_ h: [UInt8]) -> Bool {
        guard !h.matches("ID3", at: 0) else { return false }
        for sample in 0..<31 {
            let at = 20 + 30 * sample
            guard h[at + 24] <= 15, h[at + 25] <= 64 else { return false }
        }
        return (1...128).contains(h[950]) && h[952..<1080].allSatisfy { $0 < 128 }
    }

    /// Brands of movies and sound in the ISO base media format.
    static func isoMovieBrand(_ h: [UInt8]) -> Container? {
        let brands = isoBrands(h)
        guard let major = brands.first else { return nil }
        switch major {
        case "qt  ": return .mov
        case "M4A ", "M4P ": return .m4a
        case "M4V ", "M4VH", "M4VP": return .m4v
        case "crx ", "jp2 ", "jpm ", "jpx ": return nil
        default:
            if major.hasPrefix("3gp") || major.hasPrefix("3g2") { return .threeGP }
            return .mp4
        }
    }

    /// The DocType of an EBML header (`webm` or `matroska`), or ``Container/ebml`` when unreadable.
    static func ebmlDocType(_ h: [UInt8]) -> Container {
        guard let (headerSize, sizeLength) = ebmlVarInt(h, at: 4) else { return .ebml }
        var i = 4 + sizeLength
        let end = min(h.count, i + Int(min(headerSize, 4096)))
        while i < end {
            guard let (id, idLength) = ebmlElementID(h, at: i),
                  let (size, sizeLength) = ebmlVarInt(h, at: i + idLength) else { return .ebml }
            let dataStart = i + idLength + sizeLength
            if id == 0x4282 {
                guard size < 64 else { return .ebml }
                let docType = String(h.ascii(dataStart, Int(size)).filter { $0 != "\0" })
                switch docType {
                case "webm": return .webm
                case "matroska": return .matroska
                default: return .ebml
                }
            }
            i = dataStart + Int(min(size, UInt64(Int32.max)))
        }
        return .ebml
    }

    /// An EBML element ID (1-4 bytes, marker bits kept) and its length.
    static func ebmlElementID(_ h: [UInt8], at i: Int) -> (UInt32, Int)? {
        guard i < h.count else { return nil }
        let first = h[i]
        let length = first >= 0x80 ? 1 : first >= 0x40 ? 2 : first >= 0x20 ? 3 : first >= 0x10 ? 4 : 0
        guard length > 0, i + length <= h.count else { return nil }
        var id: UInt32 = 0
        for k in 0..<length { id = id << 8 | UInt32(h[i + k]) }
        return (id, length)
    }

    /// An EBML variable-size integer (marker bit removed) and its length; all-ones means "unknown size"
    /// and is returned as `UInt64.max`.
    static func ebmlVarInt(_ h: [UInt8], at i: Int) -> (UInt64, Int)? {
        guard i < h.count, h[i] != 0 else { return nil }
        let length = h[i].leadingZeroBitCount + 1
        guard i + length <= h.count else { return nil }
        var value = UInt64(h[i] & (0xFF >> length))
        var allOnes = value == UInt64(0xFF >> length)
        for k in 1..<length {
            value = value << 8 | UInt64(h[i + k])
            allOnes = allOnes && h[i + k] == 0xFF
        }
        return (allOnes ? UInt64.max : value, length)
    }

    static func isTransportStream(_ h: [UInt8], packet: Int, offset: Int, fileSize: Int64) -> Bool {
        guard h.count > offset, h[offset] == 0x47 else { return false }
        let needed = min(3, Int((fileSize - Int64(offset)) / Int64(packet)))
        guard needed >= 1 else { return false }
        for k in 0..<needed {
            let i = offset + k * packet
            guard i < h.count, h[i] == 0x47 else { return false }
        }
        return needed >= 2 || fileSize == Int64(packet + offset)
    }
}
