import AttachKit

/// `attachkit prepare [options] FILE...`
struct PrepareCommand: Command {
    static let name = "prepare"
    static let summary = "fit files into attachments that satisfy a profile (convert, downscale, trim, transcode)"
    static let usage = """
        \(UsageText.synopsis(name, UsageText.items(.prepare) + ["[--json]", "FILE|DIR..."]))

        For each file: probe, validate, and only where needed transform; then re-probe and re-validate
        the output before reporting success. Outputs are named STEM.EXT with the extension that
        matches their bytes, written to a temporary name and renamed into place; inputs are never
        modified.
        \(UsageText.lines(UsageText.entries(.prepare) + [("--json", ["one report per file per line"])]))
        Exit status: 0 every file prepared, 1 any could not be, 64 usage error.
        """
    static let options = Arguments.options(.prepare)
    static let flags = Arguments.flags(.prepare).union(["json"])

    let inputs: InputSet
    let preparer: Preparer
    let json: Bool

    init(_ arguments: Arguments) throws(UsageError) {
        let options = try arguments.decode { options throws(OptionsError) in
            try options.prepareOptions(defaultProfile: .standard, defaultOutputFolder: "prepared")
        }
        let out = options.outputFolder
        // Only once every option is known good: a usage error leaves no folder behind.
        guard FileSystem.makeFolders(out) else { throw UsageError("cannot create the output folder \(out)") }
        preparer = Preparer(options: options)
        inputs = try InputSet(arguments.positional, allow: [out])
        json = arguments.flag("json")
    }

    func run() -> ExitCode {
        var failures = 0
        var status = ExitCode.success
        // Every output and thumbnail planned over all the inputs before any is written.
        var plan = WritePlan(inputs: inputs.files)
        let planned = inputs.files.map { plan.claimOutput(fileName: String($0.split(separator: "/").last ?? ""), in: preparer.options.outputFolder, for: $0) }
        // A run killed earlier (SIGKILL, power loss) may have left its temporaries for these names.
        preparer.removeStaleTemporaries(stems: Set(planned.map(\.stem)))
        var table = Table(["", "INPUT", "ACTION", "OUTPUT", "BEFORE", "AFTER", "MS"])
        for (path, output) in zip(inputs.paths, planned + inputs.unlistable.map { _ in nil }) {
            var report = inputs.withAccess(path, refused: { PrepareReport(input: path, error: .probe(.access($0))) }) {
                preparer.prepare($0, ledger: inputs.ledger, outputStem: output?.stem)
            }
            if report.outputName == nil, output?.reason != nil { report.outputName = output }
            if !report.ok { failures += 1 }
            if let error = report.error { status = status.worse(ExitCode(error.code)) }
            if json {
                Output.json(report.json.serialized)
            } else {
                func brief(_ info: MediaInfo?) -> String {
                    guard let info else { return "" }
                    let size = info.width.map { "\($0)x\(info.height ?? 0) " } ?? ""
                    let time = info.duration.map { info.kind == .image ? "" : " \(Format.seconds($0))" } ?? ""
                    return "\(info.container.rawValue) \(size)\(Format.bytes(info.bytes))\(time)"
                }
                var notes = report.notes
                if let error = report.error { notes.insert("\(error.code): \(error.message)", at: 0) }
                table.add([report.ok ? "ok" : "FAIL", path, report.action?.rawValue ?? "-",
                           report.output.map(PathResolverCLI.relative) ?? "", brief(report.before), brief(report.after),
                           String(report.elapsedMilliseconds.clampedInteger(in: 0...Int.max))], notes: notes)
            }
        }
        if !json {
            Output.line(table.render())
            Output.line("\n\(inputs.paths.count) file(s), profile \(preparer.options.profile.name): \(inputs.paths.count - failures) prepared, \(failures) failed")
        }
        if let problem = inputs.checkLedger() { return problem }
        return failures > 0 ? status.worse(.failure) : status
    }
}

enum PathResolverCLI {
    /// `path` relative to the working directory when it lies below it.
    static func relative(_ path: String) -> String {
        let cwd = FileSystem.currentDirectory
        return path.hasPrefix(cwd + "/") ? String(path.dropFirst(cwd.count + 1)) : path
    }
}
