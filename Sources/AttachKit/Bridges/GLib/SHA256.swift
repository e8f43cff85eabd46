import CVips

/// SHA-256 (FIPS 180-4), for content hashes in batch manifests and shard assignment: GLib's
/// `GChecksum` (`G_CHECKSUM_SHA256`), which every process already links through libvips (the
/// toolchain on Linux has no CryptoKit). The one owner of its `GChecksum`, freed in `deinit`.
struct SHA256: ~Copyable {
    private let checksum: OpaquePointer

    /// Digest length in bytes.
    static let byteCount = 32

    init() {
        // Never NULL for a type GLib lists; SHA-256 has been there since GLib 2.16.
        guard let checksum = g_checksum_new(G_CHECKSUM_SHA256) else { fatalError("GLib has no SHA-256") }
        self.checksum = checksum
    }

    deinit { g_checksum_free(checksum) }

    /// Feeds `bytes` (`g_checksum_update`).
    mutating func update(_ bytes: some Collection<UInt8>) {
        Self.contiguous(bytes) { g_checksum_update(checksum, $0, gssize($1)) }
    }

    /// Calls `feed` with `bytes` as one run of memory (its start and length), unless empty: what
    /// GLib's hashers take (``HMACSHA256`` too).
    static func contiguous(_ bytes: some Collection<UInt8>, _ feed: (UnsafePointer<UInt8>, Int) -> Void) {
        func run(_ buffer: UnsafeBufferPointer<UInt8>) { if let base = buffer.baseAddress, !buffer.isEmpty { feed(base, buffer.count) } }
        if bytes.withContiguousStorageIfAvailable(run) == nil { Array(bytes).withUnsafeBufferPointer(run) }
    }

    /// The digest of everything fed (`g_checksum_get_digest`); the hasher then starts over, empty.
    mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Self.byteCount)
        var length = gsize(Self.byteCount)
        digest.withUnsafeMutableBufferPointer { g_checksum_get_digest(checksum, $0.baseAddress, &length) }
        g_checksum_reset(checksum)
        return Array(digest.prefix(Int(length)))
    }

    /// The hex digest of `bytes`.
    static func hex(_ bytes: some Collection<UInt8>) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize().hexString
    }

    /// The hex digest of a file's content, read in 1 MiB chunks.
    static func hex(file reader: borrowing FileReader) -> String {
        var hasher = SHA256()
        reader.scan(from: 0, chunkSize: 1 << 20) { _, chunk in
            hasher.update(chunk)
            return true
        }
        return hasher.finalize().hexString
    }
}

extension Array where Element == UInt8 {
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
