import CVips

/// HMAC-SHA256 (RFC 2104) through GLib's `GHmac` (`G_CHECKSUM_SHA256`), which every process
/// already links through libvips: what signs and verifies URL-mode paths (``AttachSignature``).
/// The one owner of its `GHmac`, unreferenced in `deinit`.
struct HMACSHA256: ~Copyable {
    private let hmac: OpaquePointer

    /// A MAC keyed with `key` (any length; GLib hashes a key longer than the block).
    init(key: [UInt8]) {
        // Never NULL for SHA-256 (GLib 2.30+).
        guard let hmac = key.withUnsafeBufferPointer({ g_hmac_new(G_CHECKSUM_SHA256, $0.baseAddress, gsize($0.count)) }) else {
            fatalError("GLib has no HMAC-SHA256")
        }
        self.hmac = hmac
    }

    deinit { g_hmac_unref(hmac) }

    /// Feeds `bytes` (`g_hmac_update`).
    func update(_ bytes: some Collection<UInt8>) {
        SHA256.contiguous(bytes) { g_hmac_update(hmac, $0, gssize($1)) }
    }

    /// The 32-byte MAC of everything fed (`g_hmac_get_digest`; nothing more can be fed after).
    consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length = gsize(SHA256.byteCount)
        digest.withUnsafeMutableBufferPointer { g_hmac_get_digest(hmac, $0.baseAddress, &length) }
        return Array(digest.prefix(Int(length)))
    }

    /// The MAC of `message` under `key`.
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let hmac = HMACSHA256(key: key)
        hmac.update(message)
        return hmac.finalize()
    }
}
