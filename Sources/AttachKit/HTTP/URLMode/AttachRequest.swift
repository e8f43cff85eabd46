#if canImport(Glibc)
import Glibc
#endif

/// One URL-mode request, checked from its path before anything is fetched: the signature first
/// (403), then the options (400, as `POST /v1/prepare`'s query: ``UploadPlan``), then the source
/// against the origins (403). ``run(in:server:requestID:)`` fetches the original into the request
/// folder and prepares it exactly as an upload.
struct AttachRequest {
    let path: AttachPath
    let source: OriginURL
    let plan: UploadPlan

    /// - Throws: ``ServiceError``: `not-found` when URL mode is off, `access-denied` for a path
    ///   not signed by a key of the server or a source outside the origins, `bad-options` and
    ///   `malformed-request` as ``UploadPlan``.
    init(target: RequestTarget, server: HTTPServer) throws(ServiceError) {
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
    }

    /// Fetches the original into `folder` (`in/NAME`) and prepares it as ``UploadPlan`` does an
    /// upload, adding `ETag`, `Cache-Control` and `Last-Modified`.
    func run(in folder: String, server: HTTPServer, requestID: String) -> HTTPResponse {
        guard let mode = server.urlMode else { return .error(ServiceError(code: .notFound, message: "URL mode is off")) }
        let fd = open(folder + "/in/" + plan.name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return .error(ServiceError(code: .writeFailed, message: "cannot create the original in the spool")) }
        let answer: OriginFetch.Answer
        do throws(OriginError) {
            answer = try mode.fetch.fetch(source) { HTTPSpool.write($0, to: fd) }
            close(fd)
        } catch {
            close(fd)
            return error.response
        }
        let identity = AttachIdentity(answer: answer, file: folder + "/in/" + plan.name)
        let response = plan.run(in: folder, server: server, requestID: requestID)
        guard response.status == 200 else { return response }
        var cached = response
        cached.headers += [("ETag", identity.etag(options: plan.options)), ("Cache-Control", "public, max-age=\(mode.maxAge)")]
        if let modified = answer.lastModified { cached.headers.append(("Last-Modified", modified)) }
        return cached
    }

    /// The upload's name for `source`: its last path segment with anything but `A-Z a-z 0-9 . _ -`
    /// dropped and no leading dot, at most 100 characters; `source` when nothing is left.
    static func fileName(of source: OriginURL) -> String {
        let last = source.path.split(separator: "/").last ?? ""
        let kept = String(last.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }.drop { $0 == "." }.prefix(100))
        return kept.isEmpty ? "source" : kept
    }
}
