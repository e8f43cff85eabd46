/// Signed URL-mode URLs, as `attachkit sign` prints them: what a push sender puts in the payload
/// for the Notification Service Extension to download (docs/url-mode.md).
public enum AttachURL {
    /// The signed URL of `source` prepared with `options`.
    ///
    /// ```swift
    /// let url = try AttachURL.make(base: "https://attach.example.com", source: "https://media.example.com/push/cat.heic",
    ///                              options: [("maxBytes", "500KB"), ("maxEdge", "1024")], key: keys.signing)
    /// // https://attach.example.com/v1/attach/<43 characters>/maxBytes=500KB&maxEdge=1024/aHR0cHM6...
    /// ```
    /// - Parameters:
    ///   - base: the service's URL (`https://attach.example.com`; a trailing `/` is dropped).
    ///   - source: the original's `http(s)` URL (checked as the server reads it, ``OriginURL``).
    ///   - options: prepare options under their library keys (``OptionTable``'s for `sign`:
    ///     `maxBytes`, `maxEdge`, `profile` as a built-in name, `thumbnail`...), each with its
    ///     text, or `nil` for a yes/no option given alone; checked as the server checks them
    ///     (default profile `ios`).
    ///   - key: the signing key (``SigningKeys/signing``).
    ///   - fileExtension: an extension to end the path with (`jpg`, without the dot); default none.
    /// - Throws: ``ServiceError``: `bad-options` for an unknown key or a value out of range,
    ///   `access-denied` for a source that is not a fetchable URL, `malformed-request` for an
    ///   extension that is not 1 to 8 letters or digits.
    public static func make(base: String, source: String, options: [(key: String, value: String?)], key: [UInt8],
                            fileExtension: String? = nil) throws(ServiceError) -> String {
        _ = try OriginURL(source)
        let segment = AttachOptions.segment(options)
        _ = try UploadPlan(route: .attach, parameters: try AttachOptions.parameters(Substring(segment)), standard: .standard, deadline: nil)
        var signed = segment + "/" + Base64URL.encode(Array(source.utf8))
        if let fileExtension {
            guard (1...8).contains(fileExtension.count), fileExtension.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw ServiceError(code: .malformedRequest, message: "the extension must be 1 to 8 letters or digits, not \(fileExtension.debugDescription)")
            }
            signed += "." + fileExtension
        }
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        return trimmed + AttachPath.prefix + AttachSignature.sign(signed, key: key) + "/" + signed
    }
}

extension AttachURL {
    /// The key of the payload that carries the URL (`attachkit sign --json`), which the
    /// Notification Service Extension reads.
    public static let payloadKey = "attachment-url"

    /// An APNs payload skeleton for `url`: `aps` with `mutable-content: 1` (so the extension
    /// runs) and an alert to fill in, the URL under ``payloadKey``.
    public static func payload(_ url: String) -> JSONValue {
        let alert = JSONValue.object([("title", .string("")), ("body", .string(""))])
        return .object([("url", .string(url)),
                        ("payload", .object([("aps", .object([("alert", alert), ("mutable-content", .number(1))])),
                                             (payloadKey, .string(url))]))])
    }
}
