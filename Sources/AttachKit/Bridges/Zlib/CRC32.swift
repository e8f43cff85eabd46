import CZlib

/// CRC-32 (IEEE 802.3, reflected, as PNG and zlib use it): zlib's `crc32_z`.
enum CRC32 {
    /// Continues a CRC over `bytes`; start with `0` and pass the previous result to chain.
    static func update(_ crc: UInt32, _ bytes: some Collection<UInt8>) -> UInt32 {
        let continued = bytes.withContiguousStorageIfAvailable { update(crc, $0) }
        return continued ?? Array(bytes).withUnsafeBufferPointer { update(crc, $0) }
    }

    private static func update(_ crc: UInt32, _ buffer: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return crc }
        return UInt32(truncatingIfNeeded: crc32_z(uLong(crc), base, z_size_t(buffer.count)))
    }
}
