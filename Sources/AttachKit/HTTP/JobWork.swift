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
        var request: ServiceRequest
        do throws(RequestRejection) { request = try ServiceRequest.parse(text) } catch { return .error(error.error) }
        let out = request.options.last { $0.0 == "out" }?.1.stringValue
        for path in [request.path] + (out.map { [$0] } ?? []) where inside(server.spool.root, path) {
            return .error(ServiceError(code: .accessDenied, message: "\(path) is inside the server's spool, which requests may not name"))
        }
        if request.operation == .prepare, let cap = server.limits.deadline {
            let given = request.options.last { $0.0 == "deadline" }?.1.doubleValue
            var options = request.options.filter { $0.0 != "deadline" }
            options.append(("deadline", .number(min(given ?? cap, cap))))
            request = ServiceRequest(id: .null, operation: request.operation, path: request.path, options: options)
        }
        let line = JSONValue.object([("id", .string(requestID)), ("op", .string(request.operation.rawValue)), ("path", .string(request.path)),
                                     ("options", .object(request.options))]).serialized
        let service = server.service
        let answerText = server.blocking { await service.respond(to: line) }
        guard let answer = try? JSONValue.parse(answerText) else {
            return .error(ServiceError(code: .processingFailed, message: "the service gave an answer that is not JSON"))
        }
        let result = answer["result"].map { tagged($0, requestID: requestID) }
        guard answer["ok"]?.boolValue == true else { return .error(error(of: answer), report: result) }
        return .json(200, result ?? .null)
    }

    /// A report (an object) with the request's id added as `requestId`; anything else as it is.
    static func tagged(_ report: JSONValue, requestID: String) -> JSONValue {
        guard case .object(let pairs) = report else { return report }
        return .object(pairs.filter { $0.0 != "requestId" } + [("requestId", .string(requestID))])
    }

    /// The `error` of a `serve` answer as a ``ServiceError`` (`processing-failed` when unreadable).
    static func error(of answer: JSONValue) -> ServiceError {
        let code = answer["error"]?["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)) ?? .processingFailed
        return ServiceError(code: code, message: answer["error"]?["message"]?.stringValue ?? "the operation failed")
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
