import AttachKit

/// `attachkit report OUT_DIR [--report FILE]`
struct ReportCommand: Command {
    static let name = "report"
    static let summary = "draw a batch's HTML report: what was prepared, refused and why, with before/after pictures"
    static let usage = """
        \(UsageText.synopsis(name, ["OUT_DIR"] + UsageText.items(.report)))

        Writes one self-contained HTML file from the manifests a batch left in OUT_DIR (manifest.jsonl,
        or every shard's manifest-shard-I-of-N.jsonl, merged): a summary (inputs, prepared, refused,
        bytes before and after, time, profile and options), then per input a before and an after
        thumbnail, the type and size before → after, what was done and the notes, or the code,
        message and fix of a refusal, and an approximate iOS notification banner. The file loads
        nothing from the network (pictures are small inline thumbnails, never a full-size original;
        a Content-Security-Policy forbids every load) and pages its rows 100 at a time, so 10,000
        inputs open quickly. Pictures are drawn only of inputs the batch prepared, and only while
        their bytes still match the manifest; a refused input is never decoded here.
        \(UsageText.lines(UsageText.entries(.report)))
        The report is written atomically. It replaces only a report AttachKit wrote (recognised by
        the comment that opens it); any other file at FILE is output-collision, and it is never
        written into the batch's input folder. `attachkit batch --report FILE` draws the same report
        when the run ends.
        Exit status: 0 written, 1 not written (no manifest in OUT_DIR, output-collision, a write
        failed), 64 usage error.
        """
    static let options = Arguments.options(.report)
    static let flags = Arguments.flags(.report)

    let report: BatchReport

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.count == 1 else { throw UsageError("give exactly one OUT_DIR (the --out folder of a batch)") }
        let folder = arguments.positional[0]
        guard FileSystem.isDirectory(folder) else { throw UsageError("\(folder) is not a folder") }
        report = BatchReport(outputRoot: folder, path: arguments.value("report") ?? (folder.hasSuffix("/") ? folder : folder + "/") + "report.html")
    }

    func run() -> ExitCode {
        do {
            let written = try report.write()
            Output.line("wrote \(written.path): \(written.inputs) input(s), \(written.prepared) prepared, \(written.refused) refused, \(written.pictured) with pictures")
            if written.unreadLines > 0 {
                Output.error("attachkit report: \(written.unreadLines) manifest line(s) are not a batch's lines and are left out (the report says it is incomplete)")
            }
            return .success
        } catch {
            Output.error("attachkit report: \(error.description)")
            return .failure
        }
    }
}
