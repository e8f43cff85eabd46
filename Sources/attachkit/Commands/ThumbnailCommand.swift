import AttachKit

/// `attachkit thumbnail FILE --out PATH [--size PX] [--clip x,y,w,h] [--frame N] [--at SECONDS]`
struct ThumbnailCommand: Command {
    static let name = "thumbnail"
    static let summary = "render a JPEG thumbnail of an image (a GIF frame) or a movie (a poster frame)"
    static let usage = """
        \(UsageText.synopsis(name, ["FILE"] + UsageText.items(.thumbnail) + ["[--json]"]))

        Renders an upright JPEG thumbnail and prints the attachment options that make the device
        show the same one. A movie is decoded up to its poster frame only: a truncated file is
        refused as corrupt, but damage after the poster frame is not seen (validate --deep sees it).
        \(UsageText.lines(UsageText.entries(.thumbnail) + [("--json", ["print the report as JSON"])]))
        Exit status: 0 written, 1 could not be rendered, 64 usage error.
        """
    static let options = Arguments.options(.thumbnail)
    static let flags = Arguments.flags(.thumbnail).union(["json"])

    let inputs: InputSet
    let output: String
    let request: ThumbnailRequest
    let json: Bool

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.count == 1, !FileSystem.isDirectory(arguments.positional[0]) else {
            throw UsageError("give exactly one input file")
        }
        guard let output = arguments.value("out") else { throw UsageError("--out PATH is required") }
        let folder = FileSystem.parent(of: output)
        guard FileSystem.isDirectory(folder) else { throw UsageError("the folder of --out (\(folder)) does not exist") }
        self.output = output
        request = try arguments.decode { options throws(OptionsError) in try options.thumbnailRequest() }
        inputs = try InputSet(arguments.positional, allow: [folder])
        json = arguments.flag("json")
    }

    func run() -> ExitCode {
        let input = inputs.files[0]
        let report = inputs.ledger.withAccess(input, refused: { ThumbnailReport(input: input, error: .probe(.access($0))) }) {
            Thumbnailer().thumbnail($0, to: output, request: request, ledger: inputs.ledger)
        }
        if json {
            Output.json(report.json.serialized)
        } else if let error = report.error {
            Output.line("FAIL \(inputs.files[0]): \(error.code): \(error.message)")
        } else {
            let at = report.time.map { " at \(Format.seconds($0))" } ?? report.frame.map { " frame \($0)" } ?? ""
            Output.line("wrote \(output) (\(report.width ?? 0)x\(report.height ?? 0)\(at))")
            if let options = report.options { Output.line("options: \(options.json.serialized)") }
        }
        if let problem = inputs.checkLedger() { return problem }
        return report.error.map { ExitCode($0.code) } ?? (report.ok ? .success : .failure)
    }
}
