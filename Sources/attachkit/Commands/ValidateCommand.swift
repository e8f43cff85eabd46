import AttachKit

/// `attachkit validate [--profile NAME|PATH.json] [--deep] [--request] [--json] FILE...`
struct ValidateCommand: Command {
    static let name = "validate"
    static let summary = "check files against a profile and say what is wrong and what would fix it"
    static let usage = """
        \(UsageText.synopsis(name, UsageText.items(.validate) + ["[--request]", "[--json]", "FILE|DIR..."]))

        Checks each file against a policy profile and lists diagnostics with stable codes, a
        message and the fix that would cure each.
        \(UsageText.lines(UsageText.entries(.validate) + [
            ("--request", ["treat the files as the attachments of one notification request",
                           "(adds too-many-attachments when over the profile's count)"]),
            ("--json", ["one line per file: {\"path\", \"ok\", \"profile\", \"diagnostics\": [...], probe fields}"]),
        ]))
        Exit status: 0 every file passes, 1 any fails, 64 usage error.
        """
    static let options = Arguments.options(.validate)
    static let flags = Arguments.flags(.validate).union(["json", "request"])

    let inputs: InputSet
    let validator: Validator
    let json: Bool
    let asRequest: Bool

    init(_ arguments: Arguments) throws(UsageError) {
        let (profile, deep) = try arguments.decode { options throws(OptionsError) in
            (try options.profile(default: .standard), try options.bool("deep"))
        }
        validator = Validator(profile: profile, deep: deep)
        inputs = try InputSet(arguments.positional)
        json = arguments.flag("json")
        asRequest = arguments.flag("request")
    }

    func run() -> ExitCode {
        var failures = 0
        var table = Table(["", "FILE", "KIND", "FORMAT", "SIZE", "DURATION", "BYTES"])
        for path in inputs.paths {
            let report = inputs.withAccess(path, refused: { error in
                ValidationReport(path: path, profile: validator.profile.name, info: nil,
                                 diagnostics: [Diagnostic(.unreadable, error.description, fix: nil)])
            }) { validator.validate($0) }
            if !report.ok { failures += 1 }
            if json {
                Output.json(report.json.serialized)
            } else {
                let info = report.info
                let verdict = !report.ok ? "FAIL" : report.diagnostics.isEmpty ? "ok" : "warn"
                let format = info.map { i in [i.container.rawValue, i.codec?.rawValue, i.audioCodec?.rawValue].compactMap { $0 }.joined(separator: "/") } ?? ""
                table.add([verdict, path, info?.kind.rawValue ?? "", format,
                           Format.dimensions(info?.displayWidth, info?.displayHeight),
                           Format.seconds(info?.duration), info.map { Format.bytes($0.bytes) } ?? ""],
                          notes: report.diagnostics.map { d in
                              "\(d.severity == .warning ? "warning " : "")\(d.code.rawValue): \(d.message)\(d.fix.map { " -> \($0)" } ?? "")"
                          })
            }
        }
        let requestFindings = asRequest ? validator.requestDiagnostics(attachmentCount: inputs.files.count) : []
        if json {
            for finding in requestFindings {
                Output.json(JSONValue.object([("request", .bool(true)), ("ok", .bool(false)), ("diagnostics", .array([finding.json]))]).serialized)
            }
        } else {
            Output.line(table.render())
            for finding in requestFindings { Output.line("request: \(finding.code.rawValue): \(finding.message) -> \(finding.fix ?? "")") }
            Output.line("\n\(inputs.paths.count) file(s) checked against profile \(validator.profile.name): \(inputs.paths.count - failures) pass, \(failures) fail")
        }
        if let problem = inputs.checkLedger() { return problem }
        return failures > 0 || !requestFindings.isEmpty ? .failure : .success
    }
}
