/// A URL-mode path, `/v1/attach/{signature}/{options}/{source}[.ext]`, taken apart:
/// - `signature`: ``AttachSignature`` of everything after `{signature}/`, byte for byte;
/// - `options`: ``AttachOptions`` (`maxBytes=500KB&maxEdge=1024`, `-` for none);
/// - `source`: the original's `http(s)` URL, base64url without padding, optionally followed by
///   `.ext` (any extension a client wants to see in the path; signed, otherwise unused).
package struct AttachPath: Sendable {
    /// Where URL-mode paths start.
    package static let prefix = "/v1/attach/"

    package let signature: Substring
    /// What the signature covers: `{options}/{source}[.ext]`.
    package let signed: Substring
    package let options: Substring
    /// The source's base64url text, without `.ext`.
    package let source: Substring

    /// `path` with a URL-mode signature replaced by `-` (`/v1/attach/-/maxEdge=1024/...`), for
    /// logs and messages: a signed URL is a bearer URL, never written out whole. Other paths as
    /// they are.
    package static func redacted(_ path: String) -> String {
        guard path.hasPrefix(prefix) else { return path }
        let rest = path.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return prefix + "-" }
        return prefix + "-" + rest[slash...]
    }

    /// Splits the path; nothing is decoded yet, so that a path is checked against its signature
    /// before anything else is read from it.
    /// - Throws: ``ServiceError`` `access-denied` (403) for a path without its three segments.
    package init(_ path: String) throws(ServiceError) {
        let rest = path.dropFirst(Self.prefix.count)
        let segments = rest.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard path.hasPrefix(Self.prefix), segments.count == 3, segments.allSatisfy({ !$0.isEmpty }), !segments[2].contains("/") else {
            throw ServiceError(code: .accessDenied, message: "a URL-mode path is \(Self.prefix){signature}/{options}/{source}: this one is not signed as one")
        }
        signature = segments[0]
        signed = rest[segments[1].startIndex...]
        options = segments[1]
        source = segments[2].prefix { $0 != "." }
    }

    /// Refuses the path (403) unless its signature is one of `keys`'.
    /// - Throws: ``ServiceError`` `access-denied`.
    package func verify(_ keys: SigningKeys) throws(ServiceError) {
        guard AttachSignature.verify(signature, of: signed, keys: keys.keys) else {
            throw ServiceError(code: .accessDenied, message: "the URL's signature does not match (tampered with, or signed with a key this server does not have)")
        }
    }

    /// The source URL the path names.
    /// - Throws: ``ServiceError`` `malformed-request` when it is not base64url of UTF-8 text,
    ///   `access-denied` when that text is no fetchable URL (``OriginURL``).
    package func sourceURL() throws(ServiceError) -> OriginURL {
        guard let bytes = Base64URL.decode(source), let text = String(validating: bytes, as: UTF8.self) else {
            throw ServiceError(code: .malformedRequest, message: "the source segment is not base64url of a URL")
        }
        return try OriginURL(text)
    }
}
