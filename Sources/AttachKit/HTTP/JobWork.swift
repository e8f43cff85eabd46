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
        for path in [call.path] + (call.writes.map { [$0] } ?? []) {
            guard let inSpool = inside(server.spool.root, path) else {
                return .error(ServiceError(code: .malformedRequest,
                                           message: "a path of \(path.utf8.count) bytes is longer than any file path can be (\(PathResolver.maxPathBytes) bytes)"))
            }
            if inSpool { return .error(ServiceError(code: .accessDenied, message: "\(path) is inside the server's spool, which requests may not name")) }
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

    /// Whether `path` (made absolute, links resolved as far as it exists) lies in `root`; `nil`
    /// for a path longer than any file path can be.
    static func inside(_ root: String, _ path: String) -> Bool? {
        guard let (existing, rest) = PathResolver.resolvedAsFarAsItExists(path) else { return nil }
        let resolved = ([existing] + rest).joined(separator: "/")
        return [PathResolver.normalized(PathResolver.absolute(path)), resolved].contains { $0 == root || $0.hasPrefix(root + "/") }
    }
}
