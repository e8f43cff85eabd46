/// What a WebP's chunks say about how libwebp decodes it: lossy (`VP8 `, decoded one macroblock row
/// at a time into its output) or lossless (`VP8L`, whose decoder keeps the whole picture as ARGB
/// for back-references), with an alpha plane (`ALPH`, decoded whole), animated (`ANIM`/`ANMF`).
/// Reads the RIFF chunk headers only (and an animation's first frame's sub-chunks).
struct WebPHeader: Sendable, Equatable {
    var lossless = false
    var alpha = false
    var animated = false
    /// The canvas (`VP8X`) or the bitstream's picture size.
    var width = 0
    var height = 0

    /// Chunks looked at before giving up.
    static let maximumChunks = 64

    /// The header of the WebP in `reader`, or `nil` when it is not a RIFF WebP.
    static func read(_ reader: borrowing FileReader) -> WebPHeader? {
        let head = reader.read(at: 0, count: 30)
        guard head.matches("RIFF", at: 0), head.matches("WEBP", at: 8) else { return nil }
        var header = WebPHeader()
        var position: Int64 = 12
        var end = min(reader.size, 8 + Int64(head.le32(4)))
        for _ in 0..<maximumChunks {
            let chunk = reader.read(at: position, count: 30)
            guard chunk.count >= 8 else { break }
            let size = Int64(chunk.le32(4))
            switch chunk.ascii(0, 4) {
            case "VP8X":                      // flags, 3 reserved, canvas width - 1 and height - 1 (24 bits each)
                header.alpha = header.alpha || chunk.u8(8) & 0x10 != 0
                header.animated = chunk.u8(8) & 0x02 != 0
                header.width = Int(chunk.le32(12) & 0xFFFFFF) + 1
                header.height = Int(chunk.le32(15) & 0xFFFFFF) + 1
            case "VP8L":                      // signature 0x2F, then 14 + 14 bits of size - 1, alpha hint
                header.lossless = true
                let bits = chunk.le32(9)
                if header.width == 0 {
                    header.width = Int(bits & 0x3FFF) + 1
                    header.height = Int((bits >> 14) & 0x3FFF) + 1
                }
                header.alpha = header.alpha || (bits >> 28) & 1 == 1
                return header
            case "VP8 ":                      // frame tag (3), start code (3), 14-bit width and height
                if header.width == 0 {
                    header.width = Int(chunk.le16(14) & 0x3FFF)
                    header.height = Int(chunk.le16(16) & 0x3FFF)
                }
                return header
            case "ALPH":
                header.alpha = true
            case "ANMF":                      // a frame: 16 bytes of position, size and timing, then its chunks
                position += 8 + 16
                end = min(end, position - 16 + size)
                continue
            default:
                break
            }
            position += 8 + size + (size & 1)
            guard position < end else { break }
        }
        return header.width > 0 ? header : nil
    }
}
