/// One request of the JSON Lines protocol:
/// `{"id": ..., "op": "probe"|"validate"|"prepare"|"thumbnail", "path": "...", "options": {...}}`.
public struct ServiceRequest: Sendable {
    public enum Operation: String, Sendable, CaseIterable {
        case probe, validate, prepare, thumbnail
    }

    /// Echoed in the response as the same JSON value, any (a number keeps its text: `1.50`,
    /// `1e3`, `9007199254740993` come back as written; a string or array is written anew, so
    /// `"\u00e9"` may come back as `"é"`). `null` when absent. A line that is not valid JSON is
    /// still answered under its `id` when the `id` member, and what ends it, parse before the
    /// problem (`{"id": 7, "op": "probe", "op": ...}`); otherwise under `null` (`{"id": 01, ...}`).
    public let id: JSONValue
    public let operation: Operation
    public let path: String
    /// The `options` object (empty when absent); checked strictly by the operation.
    public let options: [(String, JSONValue)]

    /// Longest request line accepted, in bytes. Longer lines get a `malformed-request` error.
    public static let maxLineBytes = 1 << 20

    /// Longest request line an `attachkit worker` takes from its parent, in bytes: the parent
    /// writes a client's line (at most ``maxLineBytes``) anew from its decoded call, with every
    /// option it implies (a profile's name becomes its inline policy), so the line a worker gets
    /// may be longer than the one the client sent.
    package static let maxWorkerLineBytes = 8 << 20

    public init(id: JSONValue, operation: Operation, path: String, options: [(String, JSONValue)] = []) {
        self.id = id
        self.operation = operation
        self.path = path
        self.options = options
    }

    /// The request as one line (no newline): `{"id", "op", "path", "options"}`, which
    /// ``parse(_:)`` reads back equal.
    public var line: String {
        JSONValue.object([("id", id), ("op", .string(operation.rawValue)), ("path", .string(path)), ("options", .object(options))]).serialized
    }

    /// Nesting a request may have (the options object holds plain values).
    static let maxDepth = 16

    /// Parses one line. On failure the error comes with the request's `id` when it could be read,
    /// so even a bad request gets a response the client can match.
    /// - Throws: ``RequestRejection`` carrying the request's `id` when it could be read (also from a
    ///   line that is not valid JSON, when the `id` comes before the problem).
    public static func parse(_ line: String) throws(RequestRejection) -> ServiceRequest {
        try parse(line, maxBytes: maxLineBytes)
    }

    /// ``parse(_:)`` with a longer limit (``maxWorkerLineBytes``, in a worker).
    package static func parse(_ line: String, maxBytes: Int) throws(RequestRejection) -> ServiceRequest {
        guard line.utf8.count <= maxBytes else { throw .tooLong(bytes: line.utf8.count, limit: maxBytes) }
        let json: JSONValue
        do {
            json = try JSONValue.parse(line, maxDepth: maxDepth)
        } catch {
            let id = JSONValue.leadingMembers(of: line, maxDepth: maxDepth).first { $0.0 == "id" }?.1 ?? .null
            throw RequestRejection(id: id, code: .malformedRequest, message: error.description)
        }
        guard case .object(let pairs) = json else {
            throw RequestRejection(id: .null, code: .malformedRequest, message: "a request must be a JSON object")
        }
        let id = json["id"] ?? .null
        for (key, _) in pairs where !["id", "op", "path", "options"].contains(key) {
            throw RequestRejection(id: id, code: .malformedRequest, message: "unknown field \(key.debugDescription) (fields: id, op, path, options)")
        }
        guard let opName = json["op"]?.stringValue else {
            throw RequestRejection(id: id, code: .malformedRequest, message: "\"op\" must be a string")
        }
        guard let operation = Operation(rawValue: opName) else {
            throw RequestRejection(id: id, code: .unknownOp, message: "unknown op \(opName.debugDescription) (ops: probe, validate, prepare, thumbnail)")
        }
        let path = try Self.path(json["path"], id: id)
        var options: [(String, JSONValue)] = []
        if let value = json["options"], value != .null {
            guard case .object(let given) = value else {
                throw RequestRejection(id: id, code: .malformedRequest, message: "\"options\" must be an object")
            }
            options = given
        }
        return ServiceRequest(id: id, operation: operation, path: path, options: options)
    }

    /// The request's `path`: a non-empty string without NUL (which no file path can hold; the
    /// message says where it is).
    private static func path(_ value: JSONValue?, id: JSONValue) throws(RequestRejection) -> String {
        guard let path = value?.stringValue, !path.isEmpty else {
            throw RequestRejection(id: id, code: .malformedRequest, message: "\"path\" must be a non-empty string")
        }
        if let nul = path.unicodeScalars.firstIndex(of: "\u{0}") {
            let at = path.unicodeScalars.distance(from: path.unicodeScalars.startIndex, to: nul)
            throw RequestRejection(id: id, code: .malformedRequest,
                                   message: "\"path\" contains a NUL character (\\u0000) at character \(at): no file path can hold one")
        }
        return path
    }
}

/// A request line that could not be accepted, with the `id` to answer it under (`null` when the
/// line was not readable).
public struct RequestRejection: Error, Sendable {
    public let id: JSONValue
    public let error: ServiceError

    init(id: JSONValue, code: ErrorCode, message: String) {
        self.id = id
        self.error = ServiceError(code: code, message: message)
    }

    /// A line of `bytes` bytes, over `limit` (default ``ServiceRequest/maxLineBytes``): refused unread.
    package static func tooLong(bytes: Int, limit: Int = ServiceRequest.maxLineBytes) -> RequestRejection {
        RequestRejection(id: .null, code: .malformedRequest, message: "line of \(bytes) bytes is longer than \(limit)")
    }

    /// The response line: `{"id", "ok": false, "error": {"code", "message"}}`.
    package var response: String {
        JSONValue.object([("id", id), ("ok", .bool(false)), ("error", error.json)]).serialized
    }
}
