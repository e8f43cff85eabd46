/// A CRC computed most significant bit first, starting at 0 with no final XOR: the checksums of
/// Ogg pages (CRC-32, polynomial 0x04C11DB7) and FLAC frames (CRC-8, 0x07; CRC-16, 0x8005).
/// zlib only has the reflected CRC-32; libavutil has these (`AV_CRC_32_IEEE`, `AV_CRC_8_ATM`,
/// `AV_CRC_16_ANSI`), but the structure checks must not need FFmpeg, so the one table-driven
/// loop lives here.
struct UnreflectedCRC<Value: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    private let table: [Value]

    /// The table for `polynomial` (without its top bit).
    init(polynomial: Value) {
        let top = Value(1) << (Value.bitWidth - 1)
        table = (0..<256).map { n -> Value in
            var c = Value(truncatingIfNeeded: n) << (Value.bitWidth - 8)
            for _ in 0..<8 { c = c & top != 0 ? (c << 1) ^ polynomial : c << 1 }
            return c
        }
    }

    /// The CRC of `bytes`.
    func checksum(_ bytes: some Sequence<UInt8>) -> Value {
        var crc: Value = 0
        let shift = Value.bitWidth - 8
        table.withUnsafeBufferPointer { t in
            for byte in bytes { crc = (crc << 8) ^ t[Int(truncatingIfNeeded: (crc >> shift) ^ Value(byte))] }
        }
        return crc
    }
}

/// Ogg's page checksum: CRC-32 with polynomial 0x04C11DB7, not reflected, initial value 0.
enum OggCRC {
    private static let crc = UnreflectedCRC<UInt32>(polynomial: 0x04C1_1DB7)

    static func checksum(_ bytes: [UInt8]) -> UInt32 { crc.checksum(bytes) }
}

/// FLAC's frame checksums: CRC-8 (polynomial 0x07) over a frame header, CRC-16 (polynomial
/// 0x8005) over a whole frame; both unreflected, starting at 0.
enum FLACCRC {
    private static let eight = UnreflectedCRC<UInt8>(polynomial: 0x07)
    private static let sixteen = UnreflectedCRC<UInt16>(polynomial: 0x8005)

    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 { eight.checksum(bytes) }

    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 { sixteen.checksum(bytes) }
}
