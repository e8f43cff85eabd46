/// `POST /v1/jobs`: the `serve` protocol over HTTP for files already under an `--allow` root, so
/// large files need not travel. The body is one `serve` request (`{"op", "path", "options"}`,
/// an `id` is allowed and ignored); the answer is its `result` (200), or `{"code", "message"}`
/// with the code's status (and the report as `report` when the operation made one).
///
/// Paths inside the spool (other requests' uploads and outputs) are refused as `access-denied`,
/// input and `out` alike, whatever link leads there.
enum JobWork {
    /// - Parameter requestID: the service request's `id`, and the result's `requestId`.
    static func run(body: [UInt8], server: HTTPServer, requestID: String) -> HTTPResponse {
        guard let text = String(validating: body, as: UTF8.self) else {
            return .error(ServiceError(code: .malformedRequest, message: "the body is not UTF-8 text"))
        }
        let request: ServiceRequest
        do throws(RequestRejection) { request = try ServiceRequest.parse(text) } catch { return .error(error.error) }
        var call: ServiceCall
        do throws(ServiceError) {
            call = try ServiceCall.decode(request, defaultProfile: server.service.profile).call.capping(deadline: server.limits.deadline)
        } catch {
            return .error(error)
        }
        // No file path is longer than PATH_MAX; the spool check walks a path's folders one by one.
        for path in [call.path] + (call.writes.map { [$0] } ?? []) where path.utf8.count > 4096 {
            return .error(ServiceError(code: .malformedRequest, message: "a path of \(path.utf8.count) bytes is longer than any file path can be (4096 bytes)"))
        }
        for path in [call.path] + (call.writes.map { [$0] } ?? []) where inside(server.spool.root, path) {
            return .error(ServiceError(code: .accessDenied, message: "\(path) is inside the server's spool, which requests may not name"))
        }
        call.id = .string(requestID)
        let service = server.service
        let answer = Blocking.wait { [call] in await service.perform(call) }
        let result = answer.report.map { tagged($0, requestID: requestID) }
        if let error = answer.error { return .error(error, report: result) }
        return .json(200, result ?? .null)
    }

    /// A report (an object) with the request's id added as `requestId`; anything else as it is.
    static func tagged(_ report: JSONValue, requestID: String) -> JSONValue {
        guard case .object(let pairs) = report else { return report }
        return .object(pairs.filter { $0.0 != "requestId" } + [("requestId", .string(requestID))])
    }

    /// Whether `path` (made absolute, links resolved as far as it exists) lies in `root`.
    static func inside(_ root: String, _ path: String) -> Bool {
        let absolute = PathResolver.normalized(PathResolver.absolute(path))
        var existing = absolute
        var rest: [String] = []
        while PathResolver.realPath(existing) == nil, existing != "/" {
            rest.insert(PathResolver.fileName(existing), at: 0)
            existing = PathResolver.directory(existing)
        }
        let resolved = ([PathResolver.realPath(existing) ?? existing] + rest).joined(separator: "/")
        return [absolute, resolved].contains { $0 == root || $0.hasPrefix(root + "/") }
    }
}
