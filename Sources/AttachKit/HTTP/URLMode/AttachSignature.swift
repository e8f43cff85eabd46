/// The signature of a URL-mode path: HMAC-SHA256 (GLib's `GHmac`) over the path after the
/// signature segment (`{options}/{source}`, byte for byte as sent), as unpadded base64url
/// (43 characters). One key signs; any of the keys verifies, so keys rotate without downtime
/// (``SigningKeys``).
public enum AttachSignature {
    /// The signature of `signed` (the path after `/v1/attach/{signature}/`) under `key`.
    public static func sign(_ signed: String, key: [UInt8]) -> String {
        Base64URL.encode(HMACSHA256.mac(key: key, message: Array(signed.utf8)))
    }

    /// Whether `signature` is the signature of `signed` under one of `keys`. Each comparison
    /// takes the same time whatever bytes differ (no early exit), and every key is tried, so the
    /// time says nothing about how close a forgery came. `false` for text that is not base64url.
    public static func verify(_ signature: Substring, of signed: Substring, keys: [[UInt8]]) -> Bool {
        guard let given = Base64URL.decode(signature), given.count == SHA256.byteCount else { return false }
        let message = Array(signed.utf8)
        var matched = false
        for key in keys {
            let expected = HMACSHA256.mac(key: key, message: message)
            var difference: UInt8 = 0
            for index in 0..<expected.count { difference |= expected[index] ^ given[index] }
            matched = matched || difference == 0
        }
        return matched
    }
}
