/// The answer to one ``ServiceCall``: its report (a `result`: what the work made, also when a
/// prepare or thumbnail failed), its error when it failed, and the sandbox of the worker process
/// that did it. What ``AttachKitService/perform(_:progress:)`` gives every front end. It becomes
/// text only as an answer line (a worker's, or `serve`'s): ``line`` writes it, ``init(line:)``
/// reads it back equal.
public struct ServiceAnswer: Sendable, Equatable {
    /// The call's ``ServiceCall/id``.
    public var id: JSONValue
    /// The report as JSON (``MediaInfo/json``, ``ValidationReport/json``, ``PrepareReport/json``,
    /// ``ThumbnailReport/json``); `nil` when the work made none.
    public var report: JSONValue?
    public var error: ServiceError?
    /// The sandbox of the worker process that did the work (`landlock`, `none`); `nil` in-process.
    public var sandbox: String?

    public init(id: JSONValue, report: JSONValue? = nil, error: ServiceError? = nil, sandbox: String? = nil) {
        self.id = id
        self.report = report
        self.error = error
        self.sandbox = sandbox
    }

    public var ok: Bool { error == nil }

    /// The prepared attachment (a prepare's `output`) or the thumbnail written (a thumbnail's
    /// `output`), as the report names it.
    public var output: String? { report?["output"]?.stringValue }
    /// The thumbnail a prepare wrote beside its output, when asked for.
    public var thumbnail: String? { report?["thumbnail"]?.stringValue }

    /// `{"id", "ok", "result"?, "error": {"code", "message"}?, "sandbox"?}`, one line.
    public var line: String {
        var pairs: [(String, JSONValue)] = [("id", id), ("ok", .bool(ok))]
        if let report { pairs.append(("result", report)) }
        if let error { pairs.append(("error", error.json)) }
        if let sandbox { pairs.append(("sandbox", .string(sandbox))) }
        return JSONValue.object(pairs).serialized
    }

    /// Reads an answer line as ``line`` writes it; an error code this build does not know reads
    /// as `processing-failed`.
    /// - Throws: ``ServiceError`` `processing-failed` when the line is no answer.
    package init(line: String) throws(ServiceError) {
        guard let json = try? JSONValue.parse(line), json.objectValue != nil, let ok = json["ok"]?.boolValue else {
            throw ServiceError(code: .processingFailed, message: "the answer is not a service answer line")
        }
        id = json["id"] ?? .null
        report = json["result"]
        sandbox = json["sandbox"]?.stringValue
        error = nil
        if let given = json["error"] {
            let code = given["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)) ?? .processingFailed
            error = ServiceError(code: code, message: given["message"]?.stringValue ?? "the operation failed")
        } else if !ok {
            error = ServiceError(code: .processingFailed, message: "the operation failed")
        }
    }

    /// The answer with each of `prefixes` taken out of every text it holds (the report's paths and
    /// messages, the error's message): what a server shows a client of files it keeps in a spool.
    func removing(_ prefixes: [String]) -> ServiceAnswer {
        func strip(_ text: String) -> String { prefixes.reduce(text) { $0.replacing($1, with: "") } }
        var shown = self
        shown.report = report?.mappingStrings(strip)
        shown.error = error.map { ServiceError(code: $0.code, message: strip($0.message)) }
        return shown
    }
}

extension JSONValue {
    /// The value with `transform` applied to every string in it (keys unchanged).
    func mappingStrings(_ transform: (String) -> String) -> JSONValue {
        switch self {
        case .string(let text): return .string(transform(text))
        case .array(let items): return .array(items.map { $0.mappingStrings(transform) })
        case .object(let pairs): return .object(pairs.map { ($0.0, $0.1.mappingStrings(transform)) })
        default: return self
        }
    }
}
