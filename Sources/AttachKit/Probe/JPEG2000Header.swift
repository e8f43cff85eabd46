/// The image and tile size marker (`SIZ`, ISO/IEC 15444-1 A.5.1) of a JPEG 2000 file: a raw
/// codestream (`FF4F FF51`) or a JP2/JPX file whose `jp2c` box holds one. Read when FFmpeg 5.1's
/// decoder cannot read a file's header, to tell a valid codestream it does not support (a
/// component sampled 1 in 13, say) from a broken one.
struct JPEG2000Header: Equatable {
    let width: Int
    let height: Int
    /// Components (`Csiz`), each with its horizontal and vertical sample separation (`XRsiz`,
    /// `YRsiz`) and bit depth.
    let components: [(separation: (x: Int, y: Int), bits: Int)]

    static func == (a: JPEG2000Header, b: JPEG2000Header) -> Bool {
        a.width == b.width && a.height == b.height && a.components.count == b.components.count
            && zip(a.components, b.components).allSatisfy { $0.separation == $1.separation && $0.bits == $1.bits }
    }

    /// What it holds, for messages: `a 76×13 grid, 1 component of 8 bits, sampled 1 in 13×1`.
    var summary: String {
        let bits = Set(components.map(\.bits)).sorted().map(String.init).joined(separator: "/")
        var text = "a \(width)×\(height) grid, \(components.count) component\(components.count == 1 ? "" : "s") of \(bits) bits"
        let sampled = components.map(\.separation).filter { $0 != (1, 1) }
        if let first = sampled.first { text += ", sampled 1 in \(first.x)×\(first.y)" }
        return text
    }

    /// The `SIZ` of the file, or `nil` when there is none or it breaks the standard's rules.
    static func read(_ reader: borrowing FileReader) -> JPEG2000Header? {
        guard let start = codestreamStart(reader) else { return nil }
        let head = reader.read(at: start, count: 4)
        guard head.matches([0xFF, 0x4F, 0xFF, 0x51], at: 0) else { return nil }
        let length = Int(reader.read(at: start + 4, count: 2).be16(0))
        guard length >= 41 else { return nil }
        let siz = reader.read(at: start + 4, count: length)
        guard siz.count == length else { return nil }
        let (xsiz, ysiz, xosiz, yosiz) = (Int(siz.be32(4)), Int(siz.be32(8)), Int(siz.be32(12)), Int(siz.be32(16)))
        let count = Int(siz.be16(36))
        guard xsiz > xosiz, ysiz > yosiz, (1...16_384).contains(count), length == 38 + 3 * count else { return nil }
        var components: [(separation: (x: Int, y: Int), bits: Int)] = []
        for index in 0..<count {
            let at = 38 + 3 * index
            let (x, y) = (Int(siz.u8(at + 1)), Int(siz.u8(at + 2)))
            let bits = Int(siz.u8(at) & 0x7F) + 1
            guard x >= 1, y >= 1, bits <= 38 else { return nil }
            components.append(((x, y), bits))
        }
        return JPEG2000Header(width: xsiz - xosiz, height: ysiz - yosiz, components: components)
    }

    /// Where the codestream starts: byte 0 for a raw codestream, the body of the first `jp2c` box
    /// of a JP2/JPX file (top-level boxes, at most 64).
    private static func codestreamStart(_ reader: borrowing FileReader) -> Int64? {
        if reader.read(at: 0, count: 2).matches([0xFF, 0x4F], at: 0) { return 0 }
        var offset: Int64 = 0
        for _ in 0..<64 {
            let header = reader.read(at: offset, count: 16)
            guard header.count >= 8 else { return nil }
            var size = Int64(header.be32(0)), body = offset + 8
            if size == 1, header.count == 16 {
                size = Int64(clamping: header.be64(8))
                body = offset + 16
            } else if size == 0 {
                size = reader.size - offset
            }
            if header.matches("jp2c", at: 4) { return body }
            guard size >= 8 else { return nil }
            offset += size
        }
        return nil
    }
}
