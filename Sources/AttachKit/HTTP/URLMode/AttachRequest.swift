/// One URL-mode request, checked from its path before anything is fetched: the signature first
/// (403), then the options (400, as `POST /v1/prepare`'s query: ``UploadPlan``), then the source
/// against the origins (403). ``AttachWork`` then answers it: from the result cache, or by
/// fetching the original into the request folder and preparing it exactly as an upload.
struct AttachRequest {
    let path: AttachPath
    let source: OriginURL
    let plan: UploadPlan
    let conditions: AttachConditions
    /// The result cache's key: SHA-256 (hex) of the source URL, the options (profile included,
    /// as the service request carries them) and AttachKit's version.
    let cacheKey: String

    /// - Throws: ``ServiceError``: `not-found` when URL mode is off, `access-denied` for a path
    ///   not signed by a key of the server or a source outside the origins, `bad-options` and
    ///   `malformed-request` as ``UploadPlan``.
    init(target: RequestTarget, head: RequestHead, server: HTTPServer) throws(ServiceError) {
        guard let mode = server.urlMode else {
            throw ServiceError(code: .notFound, message: "URL mode is off on this server (no --signing-key-file)")
        }
        path = try AttachPath(target.path)
        try path.verify(mode.keys)
        guard target.parameters.isEmpty else {
            throw ServiceError(code: .badOptions, message: "a URL-mode URL takes no query: its options are its signed options segment")
        }
        source = try path.sourceURL()
        let parameters = try AttachOptions.parameters(path.options) + [("name", Self.fileName(of: source))]
        plan = try UploadPlan(route: .attach, parameters: parameters, server: server)
        try mode.fetch.origins.check(source)
        conditions = AttachConditions(ifNoneMatch: head.ifNoneMatch, ifModifiedSince: head.ifModifiedSince)
        cacheKey = SHA256.hex(Array((source.text + "\n" + JSONValue.object(plan.options).serialized + "\nAttachKit " + BuildInfo.version).utf8))
    }

    /// The upload's name for `source`: its last path segment with anything but `A-Z a-z 0-9 . _ -`
    /// dropped and no leading dot, at most 100 characters; `source` when nothing is left.
    static func fileName(of source: OriginURL) -> String {
        let last = source.path.split(separator: "/").last ?? ""
        let kept = String(last.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }.drop { $0 == "." }.prefix(100))
        return kept.isEmpty ? "source" : kept
    }
}
