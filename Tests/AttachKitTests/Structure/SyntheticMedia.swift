import Foundation
@testable import AttachKit

/// Tiny hand-made files, structurally well-formed (their payloads are placeholders: these are for
/// layout checks, not decoders), and the helper that runs a structural check on bytes.
enum SyntheticMedia {
    // MARK: Running a check

    /// Writes `bytes` to a temporary file and checks it as `container`.
    static func check(_ bytes: [UInt8], as container: Container, audioOffset: Int64 = 0) -> StructureVerdict {
        let folder = TestEnvironment.temporaryFolder("synthetic")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("sample")
        try? Data(bytes).write(to: url)
        let family: MediaKind = [.jpeg, .png, .gif, .webp, .tiff, .bmp, .heic, .heif, .avif].contains(container) ? .image : .video
        return StructureChecker.check(path: url.path, sniff: FormatSniffer.Result(container: container, family: family, audioOffset: audioOffset))
    }

    /// Every well-formed sample with the container it is checked as.
    static let all: [(name: String, container: Container, bytes: [UInt8])] = [
        ("jpeg", .jpeg, jpeg()), ("png", .png, png()), ("gif", .gif, gif()), ("webp", .webp, webp()),
        ("tiff", .tiff, tiff()), ("bmp", .bmp, bmp()), ("wav", .wav, wav()), ("rf64", .rf64, rf64()),
        ("avi", .avi, avi()), ("aiff", .aiff, aiff()), ("mp4", .mp4, mp4()), ("heic", .heic, heif()),
        ("webm", .webm, matroska()), ("mp3", .mp3, mp3()), ("aac", .aacADTS, adts()), ("flac", .flac, flac()),
        ("ogg", .ogg, ogg()), ("ts", .mpegTS, transportStream()),
    ]

    // MARK: Byte helpers

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { be16(v >> 16 & 0xFFFF) + be16(v & 0xFFFF) }
    static func be64(_ v: Int) -> [UInt8] { be32(v >> 32 & 0xFFFF_FFFF) + be32(v & 0xFFFF_FFFF) }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
    static func le64(_ v: Int) -> [UInt8] { le32(v & 0xFFFF_FFFF) + le32(v >> 32 & 0xFFFF_FFFF) }
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

    // MARK: Images

    /// Baseline JPEG layout: SOI, APP0, DQT, SOF0 (8x8 grey), DHT, SOS, entropy data with stuffing
    /// and a restart marker, EOI; `trailer` is appended after EOI.
    static func jpeg(trailer: [UInt8] = [], sofFirst: Bool = true) -> [UInt8] {
        let app0: [UInt8] = [0xFF, 0xE0] + be16(16) + ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        let dqt: [UInt8] = [0xFF, 0xDB] + be16(67) + [0] + [UInt8](repeating: 1, count: 64)
        let sof: [UInt8] = [0xFF, 0xC0] + be16(11) + [8] + be16(8) + be16(8) + [1, 1, 0x11, 0]
        let dht: [UInt8] = [0xFF, 0xC4] + be16(31) + [0, 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0] + Array(0...11)
        let sos: [UInt8] = [0xFF, 0xDA] + be16(8) + [1, 1, 0, 0, 0x3F, 0]
        let entropy: [UInt8] = [0x12, 0x34, 0xFF, 0x00, 0x56, 0xFF, 0xD0, 0x78, 0x9A]
        let tables = sofFirst ? dqt + sof + dht : dqt + dht
        let scan = sos + entropy + (sofFirst ? [] : sof)
        return [0xFF, 0xD8] + app0 + tables + scan + [0xFF, 0xD9] + trailer
    }

    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let crc = CRC32.update(CRC32.update(0, ascii(type)), data)
        return be32(data.count) + ascii(type) + data + be32(Int(crc))
    }

    /// A 1x1 8-bit grey PNG.
    static func png() -> [UInt8] {
        let ihdr = be32(1) + be32(1) + [8, 0, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr) + pngChunk("IDAT", idat) + pngChunk("IEND", [])
    }

    /// A GIF89a with a 2-colour global table, a graphic control extension and one image.
    static func gif(screenWidth: Int = 4, screenHeight: Int = 4, left: Int = 0, top: Int = 0) -> [UInt8] {
        let screen = ascii("GIF89a") + le16(screenWidth) + le16(screenHeight) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        let control: [UInt8] = [0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00]
        // LZW code size 2, one 10-byte sub-block: a clear code, 16 codes of colour 0, the end code
        // (the 16 pixels ffmpeg and ImageMagick decode).
        let data: [UInt8] = [0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xA0, 0x00]
        let image = [0x2C] + le16(left) + le16(top) + le16(4) + le16(4) + [0x00] + [0x02, UInt8(data.count)] + data + [0x00]
        return screen + control + image + [0x3B]
    }

    static func riff(_ form: String, _ chunks: [UInt8]) -> [UInt8] {
        ascii("RIFF") + le32(4 + chunks.count) + ascii(form) + chunks
    }

    static func riffChunk(_ id: String, _ data: [UInt8], claimedSize: Int? = nil) -> [UInt8] {
        ascii(id) + le32(claimedSize ?? data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    /// A lossless WebP (one odd-sized VP8L chunk, padded).
    static func webp() -> [UInt8] {
        riff("WEBP", riffChunk("VP8L", [0x2F, 0x00, 0x00, 0x00, 0x00]))
    }

    /// A 2x2 8-bit grey TIFF with one strip at the end of the file.
    static func tiff() -> [UInt8] {
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + (type == 3 ? le16(value) + [0, 0] : le32(value))
        }
        let entries = [
            entry(256, 3, 1, 2), entry(257, 3, 1, 2), entry(258, 3, 1, 8), entry(259, 3, 1, 1),
            entry(262, 3, 1, 1), entry(273, 4, 1, 8 + 2 + 9 * 12 + 4), entry(277, 3, 1, 1),
            entry(278, 3, 1, 2), entry(279, 4, 1, 4),
        ]
        return [0x49, 0x49, 0x2A, 0x00] + le32(8) + le16(entries.count) + entries.flatMap { $0 } + le32(0) + [10, 20, 30, 40]
    }

    /// A 2x2 24-bit BMP (rows padded to 8 bytes).
    static func bmp(width: Int = 2, height: Int = 2) -> [UInt8] {
        let pixels = [UInt8](repeating: 0x7F, count: 16)
        let dib = le32(40) + le32(width) + le32(height) + le16(1) + le16(24) + le32(0) + le32(16) + le32(2835) + le32(2835) + le32(0) + le32(0)
        return ascii("BM") + le32(14 + 40 + 16) + le32(0) + le32(54) + dib + pixels
    }

    // MARK: RIFF and AIFF audio, AVI

    static let pcmFormat: [UInt8] = le16(1) + le16(1) + le32(8000) + le32(16000) + le16(2) + le16(16)

    /// A mono 16-bit PCM WAV; `claimedDataSize` overrides the data chunk's size field, `riffSize`
    /// the RIFF size field.
    static func wav(samples: Int = 8, claimedDataSize: Int? = nil, riffSize: Int? = nil) -> [UInt8] {
        let data = [UInt8](repeating: 0, count: samples * 2)
        let chunks = riffChunk("fmt ", pcmFormat) + riffChunk("data", data, claimedSize: claimedDataSize)
        return ascii("RIFF") + le32(riffSize ?? 4 + chunks.count) + ascii("WAVE") + chunks
    }

    /// An RF64 WAV: sizes in the ds64 chunk, 0xFFFFFFFF in the 32-bit fields.
    static func rf64(samples: Int = 8) -> [UInt8] {
        let data = [UInt8](repeating: 0, count: samples * 2)
        let format = riffChunk("fmt ", pcmFormat)
        let total = 12 + 8 + 28 + format.count + 8 + data.count
        let ds64 = ascii("ds64") + le32(28) + le64(total - 8) + le64(data.count) + le64(samples) + le32(0)
        return ascii("RF64") + le32(0xFFFF_FFFF) + ascii("WAVE") + ds64 + format + ascii("data") + le32(0xFFFF_FFFF) + data
    }

    static func avi() -> [UInt8] {
        let header = riffChunk("LIST", ascii("hdrl") + riffChunk("avih", [UInt8](repeating: 0, count: 56)))
        let movie = riffChunk("LIST", ascii("movi") + riffChunk("00dc", [1, 2, 3, 4]))
        return riff("AVI ", header + movie)
    }

    /// A mono 16-bit AIFF; `soundData` false leaves out the SSND chunk.
    static func aiff(frames: Int = 4, soundData: Bool = true) -> [UInt8] {
        let rate: [UInt8] = [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]
        let comm = ascii("COMM") + be32(18) + be16(1) + be32(frames) + be16(16) + rate
        let ssnd = ascii("SSND") + be32(8 + frames * 2) + be32(0) + be32(0) + [UInt8](repeating: 0, count: frames * 2)
        let body = ascii("AIFF") + comm + (soundData ? ssnd : [])
        return ascii("FORM") + be32(body.count) + body
    }

    // MARK: ISO base media

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(8 + body.count) + ascii(type) + body }

    static let movieHeader: [UInt8] = box("mvhd", [0, 0, 0, 0] + be32(0) + be32(0) + be32(1000) + be32(0) + be32(0x10000)
        + be16(0x100) + [UInt8](repeating: 0, count: 10) + be32(0x10000) + [UInt8](repeating: 0, count: 12) + be32(0x10000)
        + [UInt8](repeating: 0, count: 12) + be32(0x4000_0000) + [UInt8](repeating: 0, count: 24) + be32(1))

    /// ftyp + moov (an empty movie header) + mdat; `mdatClaim` overrides the mdat size field.
    static func mp4(payload: Int = 16, mdatClaim: Int? = nil, largeSize: Bool = false, sizeZero: Bool = false) -> [UInt8] {
        let ftyp = box("ftyp", ascii("isom") + be32(0x200) + ascii("isommp41"))
        let moov = box("moov", movieHeader)
        let data = [UInt8](repeating: 0xAB, count: payload)
        let mdat: [UInt8]
        if largeSize {
            mdat = be32(1) + ascii("mdat") + be64(mdatClaim ?? 16 + payload) + data
        } else if sizeZero {
            mdat = be32(0) + ascii("mdat") + data
        } else {
            mdat = be32(mdatClaim ?? 8 + payload) + ascii("mdat") + data
        }
        return ftyp + moov + mdat
    }

    /// A HEIF still: ftyp, meta (hdlr, pitm, iloc with one extent into mdat), mdat.
    /// `extentExtra` adds bytes to the extent length beyond what mdat holds.
    static func heif(payload: Int = 32, extentExtra: Int = 0) -> [UInt8] {
        let ftyp = box("ftyp", ascii("heic") + be32(0) + ascii("mif1heic"))
        let hdlr = box("hdlr", [0, 0, 0, 0] + be32(0) + ascii("pict") + [UInt8](repeating: 0, count: 12) + [0])
        let pitm = box("pitm", [0, 0, 0, 0] + be16(1))
        func iloc(offset: Int) -> [UInt8] {
            box("iloc", [0, 0, 0, 0, 0x44, 0x00] + be16(1) + be16(1) + be16(0) + be16(1) + be32(offset) + be32(payload + extentExtra))
        }
        let metaLength = 8 + 4 + hdlr.count + pitm.count + iloc(offset: 0).count
        let dataOffset = ftyp.count + metaLength + 8
        let meta = box("meta", [0, 0, 0, 0] + hdlr + pitm + iloc(offset: dataOffset))
        return ftyp + meta + box("mdat", [UInt8](repeating: 0xCD, count: payload))
    }

    // MARK: Matroska

    static func ebml(_ id: [UInt8], _ body: [UInt8], unknownSize: Bool = false) -> [UInt8] {
        if unknownSize { return id + [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + body }
        if body.count < 127 { return id + [0x80 | UInt8(body.count)] + body }
        return id + [0x01] + Array(be64(body.count).dropFirst()) + body
    }

    /// A WebM with Info (1 ms ticks, `durationMs`), one video track and one Cluster of two blocks
    /// (at 0 and 33 ms). Sizes may be left unknown, as live writers do.
    static func matroska(durationMs: Float = 40, unknownSizes: Bool = false) -> [UInt8] {
        let header = ebml([0x1A, 0x45, 0xDF, 0xA3], [0x42, 0x86, 0x81, 0x01, 0x42, 0xF7, 0x81, 0x01, 0x42, 0xF2, 0x81, 0x04,
                                                    0x42, 0xF3, 0x81, 0x08] + ebml([0x42, 0x82], ascii("webm"))
                                                   + [0x42, 0x87, 0x81, 0x02, 0x42, 0x85, 0x81, 0x02])
        let duration = be32(Int(durationMs.bitPattern))
        let info = ebml([0x15, 0x49, 0xA9, 0x66], [0x2A, 0xD7, 0xB1, 0x83, 0x0F, 0x42, 0x40] + ebml([0x44, 0x89], duration))
        let track = ebml([0xAE], [0xD7, 0x81, 0x01, 0x83, 0x81, 0x01] + ebml([0x86], ascii("V_VP8")))
        let tracks = ebml([0x16, 0x54, 0xAE, 0x6B], track)
        let blocks = ebml([0xA3], [0x81, 0x00, 0x00, 0x80, 1, 2, 3]) + ebml([0xA3], [0x81, 0x00, 0x21, 0x80, 4, 5, 6])
        let cluster = ebml([0x1F, 0x43, 0xB6, 0x75], [0xE7, 0x81, 0x00] + blocks, unknownSize: unknownSizes)
        return header + ebml([0x18, 0x53, 0x80, 0x67], info + tracks + cluster, unknownSize: unknownSizes)
    }

    // MARK: Elementary audio

    /// One MPEG-1 Layer III frame, 128 kbit/s, 44.1 kHz, stereo: 417 bytes.
    static func mp3Frame(_ body: [UInt8] = []) -> [UInt8] {
        let header: [UInt8] = [0xFF, 0xFB, 0x90, 0x00]
        return header + body + [UInt8](repeating: 0, count: 413 - body.count)
    }

    /// `frames` MP3 frames; `xingFrames` puts a Xing header declaring that many frames in the first.
    static func mp3(frames: Int = 4, xingFrames: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<frames {
            if index == 0, let xingFrames {
                bytes += mp3Frame([UInt8](repeating: 0, count: 32) + ascii("Xing") + be32(1) + be32(xingFrames))
            } else {
                bytes += mp3Frame()
            }
        }
        return bytes
    }

    /// One ADTS frame (AAC LC, 44.1 kHz, stereo) with a 13-byte placeholder payload: 20 bytes.
    static func adtsFrame() -> [UInt8] {
        [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x9F, 0xFC] + [UInt8](repeating: 0x21, count: 13)
    }

    static func adts(frames: Int = 4) -> [UInt8] { (0..<frames).flatMap { _ in adtsFrame() } }

    /// One FLAC frame of 4096 silent stereo 16-bit samples (two constant subframes), numbered
    /// `number`, with its CRC-8 and CRC-16.
    static func flacFrame(number: UInt8 = 0) -> [UInt8] {
        var header: [UInt8] = [0xFF, 0xF8, 0xC9, 0x18, number]
        header.append(FLACCRC.crc8(header[...]))
        let frame = header + [0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        return frame + be16(Int(FLACCRC.crc16(frame[...])))
    }

    /// fLaC, a STREAMINFO (44.1 kHz, stereo, 16 bit, 4096-sample blocks, `totalSamples`) and
    /// `frames` frames.
    static func flac(streamInfoLength: Int = 34, frames: Int = 2, totalSamples: Int? = nil) -> [UInt8] {
        let total = totalSamples ?? frames * 4096
        let info: [UInt8] = be16(4096) + be16(4096) + [0, 0, 0, 0, 0, 0, 0x0A, 0xC4, 0x42, 0xF0] + be32(total) + [UInt8](repeating: 0, count: 16)
        let audio = (0..<frames).flatMap { flacFrame(number: UInt8($0)) }
        return ascii("fLaC") + [0x80, 0x00, 0x00, UInt8(streamInfoLength)] + info + audio
    }

    /// One Ogg page with a correct CRC.
    static func oggPage(flags: UInt8, sequence: Int, body: [UInt8], serial: Int = 0x1234) -> [UInt8] {
        var page = ascii("OggS") + [0, flags] + le64(0) + le32(serial) + le32(sequence) + le32(0) + [1, UInt8(body.count)] + body
        let crc = OggCRC.checksum(page)
        page.replaceSubrange(22..<26, with: le32(Int(crc)))
        return page
    }

    static func ogg() -> [UInt8] {
        oggPage(flags: 0x02, sequence: 0, body: [0x01] + ascii("vorbis") + [UInt8](repeating: 0, count: 23))
            + oggPage(flags: 0x04, sequence: 1, body: [UInt8](repeating: 0x55, count: 10))
    }

    /// Four 188-byte null packets.
    static func transportStream(packets: Int = 4) -> [UInt8] {
        (0..<packets).flatMap { _ in [0x47, 0x1F, 0xFF, 0x10] + [UInt8](repeating: 0xFF, count: 184) }
    }
}
