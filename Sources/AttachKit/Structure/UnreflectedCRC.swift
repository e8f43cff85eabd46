/// A CRC of up to 32 bits computed most significant bit first, with no final XOR: the checksums
/// of Ogg pages (CRC-32, polynomial 0x04C11DB7, starting at 0), MPEG-2 sections (the same
/// CRC-32 starting at all ones) and FLAC frames (CRC-8, 0x07; CRC-16, 0x8005; starting at 0). zlib only has the reflected CRC-32; libavutil has these (`AV_CRC_32_IEEE`,
/// `AV_CRC_8_ATM`, `AV_CRC_16_ANSI`), but the structure checks must not need FFmpeg, so the one
/// table-driven loop lives here. Narrower CRCs run in the top bits of a 32-bit register.
struct UnreflectedCRC: Sendable {
    private let table: [UInt32]
    /// 32 − width: how far the register is shifted left of the CRC.
    private let shift: UInt32

    /// The table for a `width`-bit CRC (8...32) with `polynomial` (without its top bit).
    init(width: Int, polynomial: UInt32) {
        shift = UInt32(32 - width)
        let aligned = polynomial << shift
        table = (0..<256).map { n -> UInt32 in
            var c = UInt32(n) << 24
            for _ in 0..<8 { c = c & 0x8000_0000 != 0 ? (c << 1) ^ aligned : c << 1 }
            return c
        }
    }

    /// The CRC of `bytes`, in the low `width` bits, from the register `initial` (default 0; a
    /// 32-bit CRC only takes another).
    func checksum(_ bytes: ArraySlice<UInt8>, initial: UInt32 = 0) -> UInt32 {
        var crc: UInt32 = initial
        table.withUnsafeBufferPointer { t in
            bytes.withUnsafeBufferPointer { b in
                for byte in b { crc = (crc << 8) ^ t[Int((crc >> 24) ^ UInt32(byte))] }
            }
        }
        return crc >> shift
    }
}

/// Ogg's page checksum: CRC-32 with polynomial 0x04C11DB7, not reflected, initial value 0.
enum OggCRC {
    private static let crc = UnreflectedCRC(width: 32, polynomial: 0x04C1_1DB7)

    static func checksum(_ bytes: [UInt8]) -> UInt32 { crc.checksum(bytes[...]) }
}

/// The checksum that ends every MPEG-2 PSI section (PAT, PMT: ISO/IEC 13818-1 Annex A): CRC-32
/// with polynomial 0x04C11DB7, not reflected, initial value 0xFFFFFFFF, no final XOR. Over a whole
/// section, its own `CRC_32` field included, it is 0.
enum MPEG2CRC {
    private static let crc = UnreflectedCRC(width: 32, polynomial: 0x04C1_1DB7)

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 { crc.checksum(bytes, initial: 0xFFFF_FFFF) }
}

/// FLAC's frame checksums: CRC-8 (polynomial 0x07) over a frame header, CRC-16 (polynomial
/// 0x8005) over a whole frame; both unreflected, starting at 0.
enum FLACCRC {
    private static let eight = UnreflectedCRC(width: 8, polynomial: 0x07)
    private static let sixteen = UnreflectedCRC(width: 16, polynomial: 0x8005)

    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 { UInt8(truncatingIfNeeded: eight.checksum(bytes)) }

    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 { UInt16(truncatingIfNeeded: sixteen.checksum(bytes)) }
}
