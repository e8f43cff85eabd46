/// The picture size a JPEG XL file declares, read from its codestream header (ISO/IEC 18181-1,
/// `SizeHeader` and the start of `ImageMetadata`) without decoding anything.
///
/// FFmpeg 5.1 has no JPEG XL parser, so `avformat_find_stream_info` learns the size by decoding the
/// whole picture through libjxl (in 32-bit float: an 8000² file of 6 KB took 4.4 s and 1 GB to
/// probe). This reader gives the size from the first bytes, so a probe stays header-only and a
/// picture over the pixel cap is refused before any decoder sees it.
///
/// Layout: a bare codestream starts with `FF 0A`; the container form is ISO BMFF boxes after a
/// `JXL ` signature box, the codestream in one `jxlc` box or split over `jxlp` boxes (each with a
/// 4-byte part index first). Bits are read least significant first.
struct JXLHeader: Equatable {
    /// The size of the decoded picture, after the orientation libjxl applies when it decodes
    /// (orientations 5–8 transpose the coded picture).
    let width: Int
    let height: Int

    /// The header of the file `reader` reads; `nil` when it is not JPEG XL or its header is cut
    /// short (the caller then falls back to a decoder).
    static func read(_ reader: borrowing FileReader) -> JXLHeader? {
        codestreamHead(reader).flatMap(parse)
    }

    /// The header of a codestream that starts at `bytes[0]`.
    static func parse(_ bytes: [UInt8]) -> JXLHeader? {
        var bits = LSBBitReader(bytes)
        guard bits.read(16) == 0x0AFF else { return nil }
        guard let (width, height) = readSize(&bits) else { return nil }
        var orientation = 1
        let allDefault = bits.read(1) == 1
        if !allDefault, bits.read(1) == 1 {  // extra_fields
            orientation = Int(bits.read(3)) + 1
        }
        guard !bits.isPastEnd, width > 0, height > 0 else { return nil }
        return orientation > 4 ? JXLHeader(width: height, height: width) : JXLHeader(width: width, height: height)
    }

    /// `SizeHeader`: a small form in multiples of 8, or 9 to 30 bits; the width may be given as a
    /// ratio of the height.
    private static func readSize(_ bits: inout LSBBitReader) -> (Int, Int)? {
        let small = bits.read(1) == 1
        let height = small ? (Int(bits.read(5)) + 1) * 8 : largeDimension(&bits)
        let ratio = Int(bits.read(3))
        let width: Int
        switch ratio {
        case 0: width = small ? (Int(bits.read(5)) + 1) * 8 : largeDimension(&bits)
        case 1: width = height
        case 2: width = height * 12 / 10
        case 3: width = height * 4 / 3
        case 4: width = height * 3 / 2
        case 5: width = height * 16 / 9
        case 6: width = height * 5 / 4
        default: width = height * 2
        }
        return bits.isPastEnd ? nil : (width, height)
    }

    /// `U32(1 + u(9), 1 + u(13), 1 + u(18), 1 + u(30))`.
    private static func largeDimension(_ bits: inout LSBBitReader) -> Int {
        let widths = [9, 13, 18, 30]
        return Int(bits.read(widths[Int(bits.read(2))])) + 1
    }

    /// The first 64 bytes of the codestream (fewer when it is shorter): the file's start for a bare
    /// one, else the payload of the `jxlc` box, or of the `jxlp` boxes in turn, each without its
    /// 4-byte part index (a codestream split into parts of a few bytes was read across a box
    /// header, a 9000² picture as 449×808). Boxes are walked from the start, at most 256 of them.
    private static func codestreamHead(_ reader: borrowing FileReader) -> [UInt8]? {
        let wanted = 64
        let head = reader.read(at: 0, count: 2)
        if head.matches([0xFF, 0x0A], at: 0) { return reader.read(at: 0, count: wanted) }
        var collected: [UInt8] = []
        var sawPart = false
        var offset: Int64 = 0
        for _ in 0..<256 where offset + 8 <= reader.size {
            guard let box = try? ISOBMFFStructure.header(reader, at: offset, end: reader.size) else { return nil }
            let payload = box.size - box.headerSize
            switch box.type {
            case "jxlc" where !sawPart:
                return reader.read(at: box.dataOffset, count: Int(min(payload, Int64(wanted))))
            case "jxlp":
                sawPart = true
                guard payload >= 4 else { return nil }
                collected += reader.read(at: box.dataOffset + 4, count: Int(min(payload - 4, Int64(wanted - collected.count))))
                if collected.count >= wanted { return collected }
            default: break
            }
            offset = box.end
        }
        return sawPart ? collected : nil
    }
}

/// Reads bits least significant first, as JPEG XL (and DEFLATE, WebP lossless) store them; past the
/// end it reads zeros and says so in ``isPastEnd``.
struct LSBBitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// True once a read went beyond the last byte.
    private(set) var isPastEnd = false

    /// The next `count` bits (at most 32) as an unsigned number, the first bit read lowest.
    mutating func read(_ count: Int) -> UInt32 {
        var value: UInt32 = 0
        for i in 0..<count {
            let byte = position >> 3
            guard byte < bytes.count else { isPastEnd = true; return value }
            value |= UInt32((bytes[byte] >> UInt8(position & 7)) & 1) << UInt32(i)
            position += 1
        }
        return value
    }
}
