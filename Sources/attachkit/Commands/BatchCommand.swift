import AttachKit
import Dispatch

/// `attachkit batch INPUT_DIR --out OUT_DIR [--profile ...] [--jobs N] [--shard I/N] [--thumbnails] [--json]`
struct BatchCommand: Command {
    static let name = "batch"
    static let summary = "prepare a whole folder in parallel, resumably, into a mirrored output folder"
    static let usage = """
        \(UsageText.synopsis(name, ["INPUT_DIR"] + UsageText.items(.batch) + ["[--jobs N]", "[--shard I/N]", "[--retry-failed]", "[--json]"]
                               + [Arguments.isolationSynopsis]))

        Prepares every file under INPUT_DIR (hidden files skipped, no symbolic link followed out of
        it) into OUT_DIR, mirroring the folders, with extensions that match the bytes. Writes
        OUT_DIR/manifest.jsonl, one line per input (the prepare report plus a content hash). A rerun
        with the same options skips inputs already done, so a killed batch can simply be started
        again. SIGINT/SIGTERM stop cleanly (in-flight files finish; a second SIGINT aborts).
        \(UsageText.lines([("--jobs N", ["files at once (default: cores); libvips/FFmpeg get cores÷N threads each"]),
                            ("--shard I/N", ["only the inputs whose path hash falls in shard I of N (0-based); the",
                                             "manifest is then manifest-shard-I-of-N.jsonl. A run with another split",
                                             "reuses what any manifest finished for the same bytes and options;",
                                             "`attachkit merge OUT_DIR` folds the shards' manifests into one"]),
                            ("--retry-failed", ["prepare again the inputs an earlier run recorded as failed (by default",
                                                "they are skipped, and the run exits 1 while they stand)"])]
                           + UsageText.entries(.batch, besides: .prepare)))
        \(UsageText.sameAs(.prepare, for: .batch))
        Changing any of these options makes a rerun prepare every file again.
        OUT_DIR may sit inside INPUT_DIR (it is then skipped) but must not be it or contain it.
          --json          one report per file on stdout (the summary goes to stderr)
        Each file is prepared in one of N worker processes (sandboxed with Landlock where the kernel
        has it: reads beneath INPUT_DIR, writes beneath OUT_DIR only). A file that crashes a decoder
        or breaks a limit is recorded as crashed, over-memory or timed-out; the batch goes on.
        \(Arguments.isolationUsage)
        Progress goes to stderr: on a terminal a bar with the files in progress (and how much of each
        audio or video is encoded) and an ETA by bytes; one line per file otherwise.
        Exit status: 0 every file prepared (and the report written), 1 any failed (in this run, or
        recorded as failed by an earlier one and not retried) or the report was not written, 64 usage
        error, 70 an access handle leaked, 75 another batch is running on the same OUT_DIR and shard
        (its pid is named), 130 stopped by SIGINT, 143 stopped by SIGTERM (files in flight finish first).
        """
    static let options = Arguments.options(.batch).union(["jobs", "shard"]).union(Arguments.isolationOptions)
    static let flags = Arguments.flags(.batch).union(["json", "retry-failed"]).union(Arguments.isolationFlags)

    let runner: BatchRunner
    let json: Bool
    /// `--report FILE`: the HTML report drawn when the run ends.
    let report: String?

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.count == 1 else { throw UsageError("give exactly one INPUT_DIR") }
        guard FileSystem.isDirectory(arguments.positional[0]) else { throw UsageError("\(arguments.positional[0]) is not a folder") }
        guard let out = arguments.value("out") else { throw UsageError("--out OUT_DIR is required") }
        let shard: Shard
        do {
            shard = try arguments.value("shard").map { text throws(ShardError) in try Shard(parsing: text) } ?? .all
        } catch {
            throw UsageError(error.description)
        }
        let prepare = try arguments.decode { options throws(OptionsError) in try options.prepareOptions(defaultProfile: .standard) }
        var options = BatchOptions(inputRoot: arguments.positional[0], outputRoot: out, prepare: prepare,
                                   jobs: try arguments.int("jobs", in: 1...256) ?? BatchOptions.coreCount,
                                   shard: shard, isolation: try arguments.isolation())
        options.retryFailed = arguments.flag("retry-failed")
        runner = BatchRunner(options: options)
        json = arguments.flag("json")
        report = arguments.value("report")
    }

    func run() -> ExitCode {
        // A reader that goes away (`batch ... | head -1`) must not kill the run mid-file: its
        // output lines are dropped and the batch finishes as it would, its manifest whole.
        Signal.brokenPipe.ignore()
        let stop = StopSignal()
        let signals = SignalWatch(stop: stop)
        let progress = ProgressRenderer(terminal: SystemProcess.standardErrorIsTerminal)
        // The files in progress and their encodes' progress are asked for only when shown.
        var options = self.runner.options
        options.fileProgress = progress.wantsFileProgress
        let runner = BatchRunner(options: options)
        let json = self.json
        // A report that could not be written is refused before the run, not after hours of work.
        if let report {
            do {
                try BatchReport.checkDestination(report, inputRoot: runner.options.inputRoot, outputRoot: runner.options.outputRoot,
                                                 shard: runner.options.shard)
            } catch {
                Output.error("attachkit batch: --report: \(error.description)")
                return .failure
            }
        }
        let summary: BatchSummary
        do {
            summary = try runner.run(stop: stop) { event in
                progress.handle(event)
                if json, case .finished(let item) = event, let outcome = item.outcome {
                    Output.json(outcome.json.serialized)
                }
            }
        } catch {
            progress.finish()
            // The library names no flag; the command line adds its own.
            let hint = if case .overlappingFolders = error { " (--out)" } else { "" }
            Output.error("attachkit batch: \(error.description)\(hint)")
            if case .busy = error { return .busy }
            if case .survivors = error { return .busy }
            if case .otherSplit = error { return .busy }
            return .failure
        }
        progress.finish()
        let text = BatchSummaryTable.render(summary, manifest: runner.options.outputRoot + "/" + runner.options.manifestName)
        if json { Output.error(text) } else { Output.line(text) }
        withExtendedLifetime(signals) {}
        let restarts = summary.workerRestarts > 0 ? "; \(summary.workerRestarts) worker(s) replaced after a crash or a broken limit" : ""
        Output.error("attachkit batch: work ran \(summary.isolation == "in-process" ? "in-process" : "in \(summary.isolation)")\(rendered: restarts)")
        for problem in summary.accessProblems { Output.error("attachkit batch: \(problem)") }
        var reported = true
        if let report {
            do {
                let written = try BatchReport(outputRoot: runner.options.outputRoot, path: report, runSeconds: summary.elapsedSeconds,
                                              jobs: runner.options.jobs).write()
                Output.error("attachkit batch: report: \(written.path) (\(written.pictured) of \(written.inputs) input(s) with pictures)")
            } catch {
                Output.error("attachkit batch: --report: \(error.description)")
                reported = false
            }
        }
        if !summary.accessProblems.isEmpty { return .software }
        if summary.interrupted { return signals.receivedTerminate ? .terminated : .interrupted }
        return summary.allPrepared && reported ? .success : .failure
    }
}
