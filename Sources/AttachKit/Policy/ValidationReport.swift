/// The verdict on one file: what it is (when it could be probed) and every finding.
public struct ValidationReport: Sendable, Equatable {
    /// The path as the caller gave it.
    public let path: String
    /// The profile the file was checked against.
    public let profile: String
    /// The probe result; `nil` when the file could not be identified.
    public let info: MediaInfo?
    /// Findings in rule order: errors and warnings.
    public let diagnostics: [Diagnostic]

    public init(path: String, profile: String, info: MediaInfo?, diagnostics: [Diagnostic]) {
        self.path = path
        self.profile = profile
        self.info = info
        self.diagnostics = diagnostics
    }

    /// `true` when no finding is an error (warnings do not fail a file).
    public var ok: Bool { !diagnostics.contains { $0.severity == .error } }

    /// Errors only.
    public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }

    /// `{"path", "ok", "profile", "diagnostics": [...], then the probe fields}`.
    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("path", .string(path)),
            ("ok", .bool(ok)),
            ("profile", .string(profile)),
            ("diagnostics", .array(diagnostics.map(\.json))),
        ]
        if let info { pairs += info.jsonFields.filter { $0.0 != "path" } }
        return .object(pairs)
    }
}
