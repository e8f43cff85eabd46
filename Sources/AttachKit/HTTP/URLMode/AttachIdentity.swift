/// What identifies an original for the `ETag` and the result cache: the origin's validators when
/// it gave any (`ETag`, `Last-Modified`, with the length), else the SHA-256 of the bytes.
package struct AttachIdentity: Sendable, Equatable {
    package let text: String

    package init(text: String) { self.text = text }

    /// The identity of a fetched original (its bytes in `file`).
    init(answer: OriginFetch.Answer, file: String) {
        if answer.etag != nil || answer.lastModified != nil {
            text = "origin etag=\(answer.etag ?? "") modified=\(answer.lastModified ?? "") length=\(answer.length)"
        } else {
            do {
                let reader = try FileReader(path: file)
                text = "sha256=" + SHA256.hex(file: reader)
            } catch {
                text = "unreadable"
            }
        }
    }

    /// The answer's `ETag`: a strong validator over this identity, the options (profile included)
    /// and AttachKit's version, so a new release or other options never match an old answer.
    func etag(options: [(String, JSONValue)]) -> String {
        "\"" + String(SHA256.hex(Array(key(options: options).utf8)).prefix(32)) + "\""
    }

    /// The result cache's key text: identity, options, version.
    func key(options: [(String, JSONValue)]) -> String {
        text + "\n" + JSONValue.object(options).serialized + "\nAttachKit " + BuildInfo.version
    }
}
