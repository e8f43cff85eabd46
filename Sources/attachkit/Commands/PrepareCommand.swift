import AttachKit

/// `attachkit prepare [options] FILE...`
struct PrepareCommand: Command {
    static let name = "prepare"
    static let summary = "fit files into attachments that satisfy a profile (convert, downscale, trim, transcode)"
    static let usage = """
        usage: attachkit prepare [--profile NAME|PATH.json] [--out DIR] [--max-bytes N] [--max-edge PX]
                                 [--max-frames N] [--max-duration S] [--start S] [--trim fast|exact]
                                 [--deadline S] [--quality-floor Q] [--keep-metadata] [--verify-seconds S]
                                 [--thumbnail [--size PX] [--clip x,y,w,h] [--frame N] [--at S]] [--json] FILE|DIR...

        For each file: probe, validate, and only where needed transform; then re-probe and re-validate
        the output before reporting success. Outputs are named STEM.EXT with the extension that
        matches their bytes, written to a temporary name and renamed into place; inputs are never
        modified.
          --profile P        apple | ios (default) | path to a JSON policy
          --out DIR          output folder (default ./prepared, created if missing)
          --max-bytes N      byte budget tighter than the profile's (5000000, 500KB, 5MB)
          --max-edge PX      long-edge cap for images and video
          --max-frames N     animation frame cap, checked from the header before decoding
          --max-duration S   duration budget for audio and video, seconds
          --start S          where a trimmed clip starts (default 0)
          --trim MODE        fast: stream copy from a keyframe (default); exact: re-encode to the frame
          --deadline S       time budget per file; work stops cleanly when it runs out
          --quality-floor Q  lowest JPEG quality byte fitting may use before shrinking (default 50)
          --keep-metadata    keep EXIF/XMP in re-encoded images (default: stripped)
          --verify-seconds S seconds of video decoded to verify a copied output (default 60): a
                             longer video is checked GOP by GOP, GOPs spread evenly; the note says so
          --thumbnail        also write STEM.thumbnail.jpg and report its attachment options
          --size, --clip, --frame, --at   thumbnail size, normalized clip, GIF frame, movie time
          --json             one report per file per line
        Exit status: 0 every file prepared, 1 any could not be, 64 usage error.
        """
    static let options: Set<String> = ["profile", "out", "max-bytes", "max-edge", "max-frames", "max-duration", "start",
                                       "trim", "deadline", "quality-floor", "size", "clip", "frame", "at", "verify-seconds"]
    static let flags: Set<String> = ["json", "thumbnail", "keep-metadata"]

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
