/// Totals of a batch run, for the closing table and the exit status.
public struct BatchSummary: Sendable {
    public var total = 0
    public var prepared = 0
    public var skipped = 0
    public var failed = 0
    /// Inputs skipped because an earlier run recorded a failure for the same bytes and options
    /// (``BatchOptions/retryFailed`` prepares them again): they still count against success.
    public var failedBefore = 0
    /// The run was stopped (SIGINT/SIGTERM) before every input was handled.
    public var interrupted = false
    public var inputBytes: Int64 = 0
    public var outputBytes: Int64 = 0
    /// Headline action → count (`passthrough`, `converted`...), over inputs prepared in this run.
    public var actions: [String: Int] = [:]
    /// Kind of the input → count.
    public var kinds: [String: Int] = [:]
    /// (relative path, code, message) of each failure.
    public var failures: [(path: String, code: ErrorCode, message: String)] = []
    /// The slowest items of this run: (relative path, milliseconds), slowest first.
    public var slowest: [(path: String, milliseconds: Double)] = []
    public var elapsedSeconds: Double = 0
    /// Access-handle leaks or double releases found in the ledger at the end (there must be none).
    public var accessProblems: [String] = []
    /// Where the work ran: `in-process`, or `N worker process(es), sandbox: landlock|none`.
    public var isolation = "in-process"
    /// Worker processes replaced after a crash or a broken limit.
    public var workerRestarts = 0

    /// Every input has a valid output, nothing was left undone, and the ledger is clean.
    public var allPrepared: Bool { failed == 0 && failedBefore == 0 && !interrupted && prepared + skipped == total && accessProblems.isEmpty }

    /// Bytes saved by this run (input minus output of the files prepared now).
    public var bytesSaved: Int64 { inputBytes - outputBytes }

    /// `bytes: in 4.2 MB, out 1.1 MB, saved 3.1 MB`, or `..., grew by 1.3 MB` when the outputs
    /// are larger (a GIF turned into a movie, a re-encoded tiny image): never a negative saving.
    public var bytesLine: String {
        let change = bytesSaved >= 0 ? "saved \(ByteCount.text(bytesSaved))" : "grew by \(ByteCount.text(-bytesSaved))"
        return "bytes: in \(ByteCount.text(inputBytes)), out \(ByteCount.text(outputBytes)), \(change)"
    }

    mutating func add(_ item: BatchItem) {
        if item.skipped {
            skipped += 1
            if !item.ok {
                failedBefore += 1
                let failure = item.recordedFailure ?? (ErrorCode.processingFailed, "recorded as failed")
                failures.append((item.relativePath, failure.code, "(an earlier run) " + failure.message))
            }
            return
        }
        if item.ok { prepared += 1 } else { failed += 1 }
        inputBytes += item.inputBytes
        outputBytes += item.outputBytes
        if let outcome = item.outcome {
            if item.ok { actions[outcome.action ?? "none", default: 0] += 1 }
            kinds[outcome.inputKind ?? "unknown", default: 0] += 1
            if let error = outcome.error { failures.append((item.relativePath, error.code, error.message)) }
        }
        slowest.append((item.relativePath, item.elapsedMilliseconds))
        slowest.sort { $0.milliseconds > $1.milliseconds }
        if slowest.count > 5 { slowest.removeLast() }
    }
}
