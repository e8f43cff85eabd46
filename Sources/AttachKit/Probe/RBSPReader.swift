/// Reads the bits of an H.264/HEVC NAL unit's payload (its RBSP: the emulation-prevention `03`
/// after each `00 00` removed), most significant bit first, with the Exp-Golomb codes of ITU-T
/// H.264 § 9.1 (and AV1's `uvlc`, for an AV1 OBU read ``init(raw:)``). Every read past the end
/// returns `nil`, never traps.
struct RBSPReader {
    private let bytes: [UInt8]
    private var bit = 0

    /// The payload of `nal` after its `headerBytes` (1 for H.264, 2 for HEVC), unescaped.
    init(nal: ArraySlice<UInt8>, headerBytes: Int) {
        var out: [UInt8] = []
        out.reserveCapacity(nal.count)
        var zeros = 0
        for byte in nal.dropFirst(headerBytes) {
            if zeros >= 2, byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        bytes = out
    }

    /// `bytes` as they are (AV1's OBUs have no emulation prevention).
    init(raw bytes: ArraySlice<UInt8>) {
        self.bytes = Array(bytes)
    }

    /// Skips `count` bits; `false` past the end.
    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, bit + count <= bytes.count * 8 else { return false }
        bit += count
        return true
    }

    /// AV1's `uvlc()` (§4.10.3): the same code as `ue(v)`.
    mutating func uvlc() -> UInt32? { unsigned() }

    /// `count` bits (at most 32) as an unsigned number.
    mutating func bits(_ count: Int) -> UInt32? {
        guard count <= 32, bit + count <= bytes.count * 8 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<count {
            value = value << 1 | UInt32(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
            bit += 1
        }
        return value
    }

    mutating func flag() -> Bool? { bits(1).map { $0 == 1 } }

    /// `ue(v)`: an unsigned Exp-Golomb code (at most 31 leading zeros).
    mutating func unsigned() -> UInt32? {
        var zeros = 0
        while true {
            guard let b = bits(1) else { return nil }
            if b == 1 { break }
            zeros += 1
            guard zeros < 32 else { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return UInt32((UInt64(1) << zeros) - 1 + UInt64(rest))
    }

    /// `se(v)`: a signed Exp-Golomb code.
    mutating func signed() -> Int? {
        guard let code = unsigned() else { return nil }
        let magnitude = Int((code + 1) / 2)
        return code % 2 == 1 ? magnitude : -magnitude
    }
}
