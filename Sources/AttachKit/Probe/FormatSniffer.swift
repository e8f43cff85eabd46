/// Identifies a file's format from its first bytes, never from its name.
///
/// This is the only place in AttachKit that knows magic numbers. It answers the family (image,
/// audio/video, not media) and the container; the probes then read the real header.
struct FormatSniffer {
    /// What the first bytes say.
    struct Result: Equatable, Sendable {
        var container: Container
        /// `.image` for still-image formats, `.video` for audio/video containers (the probe decides
        /// between audio and video from the streams), `.unknown` for anything else.
        var family: MediaKind
        /// For MP3/ADTS/FLAC behind an ID3v2 tag: where the audio starts.
        var audioOffset: Int64 = 0
    }

    /// Sniffs `reader`'s bytes. Reads at most a few kilobytes (plus a skip over an ID3v2 tag).
    static func sniff(_ reader: borrowing FileReader) -> Result {
        guard reader.size > 0 else { return Result(container: .empty, family: .unknown) }
        let head = reader.read(at: 0, count: 4096)
        if let image = imageFormat(head) { return Result(container: image, family: .image) }
        if let av = audioVideoFormat(head, fileSize: reader.size) { return Result(container: av, family: .video) }
        if head.matches("ID3", at: 0), head.count >= 10 {
            // ID3v2: a 10-byte header, a syncsafe size, an optional 10-byte footer; audio follows.
            let tagSize = Int64(head.u8(6) & 0x7F) << 21 | Int64(head.u8(7) & 0x7F) << 14
                | Int64(head.u8(8) & 0x7F) << 7 | Int64(head.u8(9) & 0x7F)
            let offset = 10 + tagSize + ((head.u8(5) & 0x10) != 0 ? 10 : 0)
            let after = reader.read(at: offset, count: 16)
            if after.matches("fLaC", at: 0) { return Result(container: .flac, family: .video, audioOffset: offset) }
            if let frame = elementaryAudio(after) { return Result(container: frame, family: .video, audioOffset: offset) }
            // A tag with nothing recognisable after it: let libavformat look further.
            return Result(container: .unknown, family: .unknown, audioOffset: offset)
        }
        if let frame = elementaryAudio(head), secondFrameConfirms(head, reader: reader) {
            return Result(container: frame, family: .video)
        }
        if let text = textFormat(head) { return Result(container: text, family: .unknown) }
        return Result(container: .unknown, family: .unknown)
    }

    // MARK: Images

    static func imageFormat(_ h: [UInt8]) -> Container? {
        if h.matches([0xFF, 0xD8, 0xFF], at: 0) { return .jpeg }
        if h.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) { return .png }
        if h.matches("GIF87a", at: 0) || h.matches("GIF89a", at: 0) { return .gif }
        if h.matches("RIFF", at: 0), h.matches("WEBP", at: 8) { return .webp }
        if h.matches([0x49, 0x49, 0x2A, 0x00], at: 0) || h.matches([0x4D, 0x4D, 0x00, 0x2A], at: 0) { return .tiff }
        if h.matches("BM", at: 0), h.count >= 18, h.le32(6) == 0,
           [12, 16, 40, 52, 56, 64, 108, 124].contains(h.le32(14)) { return .bmp }
        if h.matches([0xFF, 0x0A], at: 0) { return .jxl }
        if h.matches([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], at: 0) { return .jxl }
        if h.matches("ftyp", at: 4), let brand = isoImageBrand(h) { return brand }
        return nil
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
        if h.matches([0x1A, 0x45, 0xDF, 0xA3], at: 0) { return ebmlDocType(h) }
        if h.matches("OggS", at: 0) { return .ogg }
        if h.matches("fLaC", at: 0) { return .flac }
        if h.matches("MAC ", at: 0) { return .ape }
        if h.matches("#!AMR", at: 0) { return .amr }
        if h.matches([0x00, 0x00, 0x01, 0xBA], at: 0) { return .mpegPS }
        if h.matches([0x00, 0x00, 0x01, 0xB3], at: 0) { return .mpegVideo }
        if isTransportStream(h, packet: 188, offset: 0, fileSize: fileSize) { return .mpegTS }
        if isTransportStream(h, packet: 192, offset: 4, fileSize: fileSize) { return .mpegTS }
        return nil
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

    // MARK: Elementary audio (MP3, ADTS AAC)

    /// MPEG audio (MP3 and layers I/II, reported as ``Container/mp3``) or ADTS AAC at offset 0.
    static func elementaryAudio(_ h: [UInt8]) -> Container? {
        if MPEGAudioFrame(h, at: 0) != nil { return .mp3 }
        if ADTSFrame(h, at: 0) != nil { return .aacADTS }
        return nil
    }

    /// Two bytes of frame sync are weak evidence; when the file is long enough, a second frame
    /// must follow the first.
    static func secondFrameConfirms(_ h: [UInt8], reader: borrowing FileReader) -> Bool {
        let length: Int
        if let frame = MPEGAudioFrame(h, at: 0) { length = frame.length } else if let frame = ADTSFrame(h, at: 0) { length = frame.length } else { return false }
        if Int64(length) >= reader.size { return true }
        let next = reader.read(at: Int64(length), count: 8)
        return MPEGAudioFrame(next, at: 0) != nil || ADTSFrame(next, at: 0) != nil
            || next.matches("TAG", at: 0) || next.matches("APETAGEX", at: 0)
    }

    // MARK: Text

    static func textFormat(_ h: [UInt8]) -> Container? {
        let sample = h.prefix(512)
        guard !sample.isEmpty else { return nil }
        let printable = sample.filter { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || ($0 >= 0x20 && $0 < 0x7F) || $0 >= 0x80 }
        guard printable.count == sample.count else { return nil }
        let first = sample.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[") ? .json : .text
    }
}

/// An MPEG-1/2/2.5 audio frame header (layers I–III).
struct MPEGAudioFrame {
    let length: Int
    let sampleRate: Int
    let samplesPerFrame: Int
    let layer: Int

    init?(_ h: [UInt8], at i: Int) {
        guard i + 4 <= h.count, h[i] == 0xFF, h[i + 1] & 0xE0 == 0xE0 else { return nil }
        let versionBits = (h[i + 1] >> 3) & 0x03   // 0: 2.5, 2: 2, 3: 1
        let layerBits = (h[i + 1] >> 1) & 0x03     // 1: III, 2: II, 3: I
        let bitrateIndex = Int(h[i + 2] >> 4)
        let rateIndex = Int((h[i + 2] >> 2) & 0x03)
        let padding = Int((h[i + 2] >> 1) & 0x01)
        guard versionBits != 1, layerBits != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let layer = 4 - Int(layerBits)
        let mpeg1 = versionBits == 3
        let v1: [[Int]] = [
            [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
            [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
            [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
        ]
        let v2: [[Int]] = [
            [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
            [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
            [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
        ]
        let kbps = (mpeg1 ? v1 : v2)[layer - 1][bitrateIndex - 1]
        let baseRates = [44100, 48000, 32000]
        let sampleRate = baseRates[rateIndex] / (versionBits == 3 ? 1 : versionBits == 2 ? 2 : 4)
        let samples: Int
        switch layer {
        case 1: samples = 384
        case 2: samples = 1152
        default: samples = mpeg1 ? 1152 : 576
        }
        if layer == 1 {
            length = (12 * kbps * 1000 / sampleRate + padding) * 4
        } else {
            length = samples / 8 * kbps * 1000 / sampleRate + padding
        }
        self.sampleRate = sampleRate
        self.samplesPerFrame = samples
        self.layer = layer
        guard length >= 4 else { return nil }
    }
}

/// An ADTS (AAC) frame header.
struct ADTSFrame {
    let length: Int

    init?(_ h: [UInt8], at i: Int) {
        guard i + 7 <= h.count, h[i] == 0xFF, h[i + 1] & 0xF6 == 0xF0 else { return nil }
        let rateIndex = (h[i + 2] >> 2) & 0x0F
        guard rateIndex < 13 else { return nil }
        let length = Int(h[i + 3] & 0x03) << 11 | Int(h[i + 4]) << 3 | Int(h[i + 5] >> 5)
        guard length >= 7 else { return nil }
        self.length = length
    }
}
