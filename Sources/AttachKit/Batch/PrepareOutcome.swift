/// One preparation as a batch records it: the report as JSON (what the manifest and `--json`
/// print) and the few facts the summary and progress need. Made from an in-process
/// ``PrepareReport`` or from a worker process's answer, so both paths record the same line.
public struct PrepareOutcome: Sendable {
    /// The report object (``PrepareReport/json``), plus `sandbox` when a worker made it.
    public let json: JSONValue
    public let ok: Bool
    /// The headline action (`passthrough`, `converted`...), when prepared.
    public let action: String?
    /// The input's kind as probed (`image`, `audio`, `video`), when it could be probed.
    public let inputKind: String?
    /// The output's absolute path, when prepared.
    public let output: String?
    public let error: ServiceError?
    public let inputBytes: Int64?
    public let outputBytes: Int64?

    /// The outcome of a preparation done in this process.
    public init(report: PrepareReport) {
        self.init(json: report.json)
    }

    /// The outcome a report object describes (as a worker answers it).
    public init(json: JSONValue) {
        self.json = json
        ok = json["ok"]?.boolValue ?? false
        action = json["action"]?.stringValue
        inputKind = json["before"]?["kind"]?.stringValue
        output = json["output"]?.stringValue
        error = json["error"].flatMap { error in
            error["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)).map { ServiceError(code: $0, message: error["message"]?.stringValue ?? "") }
        }
        inputBytes = json["before"]?["bytes"]?.intValue.map(Int64.init)
        outputBytes = json["after"]?["bytes"]?.intValue.map(Int64.init)
    }

    /// A failure with no report behind it (the worker died, the input could not be read...);
    /// `sandbox` names the sandbox of the worker that had the input, when one had it.
    public init(input: String, error: ServiceError, sandbox: String? = nil) {
        var pairs: [(String, JSONValue)] = [("input", .string(input)), ("ok", .bool(false)), ("error", error.json)]
        if let sandbox { pairs.append(("sandbox", .string(sandbox))) }
        self.init(json: .object(pairs))
    }
}
