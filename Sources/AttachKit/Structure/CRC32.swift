/// CRC-32 (IEEE 802.3, reflected, as PNG and zlib use it).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Continues a CRC over `bytes`; start with `0` and pass the previous result to chain.
    static func update(_ crc: UInt32, _ bytes: some Collection<UInt8>) -> UInt32 {
        var c = ~crc
        table.withUnsafeBufferPointer { t in
            for byte in bytes { c = t[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        return ~c
    }
}
