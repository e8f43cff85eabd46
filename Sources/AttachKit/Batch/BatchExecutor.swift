/// Runs one input's preparation for a batch: in this process, or in one of its worker processes
/// (see ``Isolation``). Either way the outcome is the same report.
enum BatchExecutor: Sendable {
    case inProcess(Preparer, AccessLedger)
    /// The pool, and the options every input shares (profile, budgets...).
    case workers(WorkerProcessPool, PrepareOptions)

    /// Sets the executor up for `options`: libvips/FFmpeg get cores ÷ jobs threads per job; worker
    /// processes may read beneath `inputRoot` only and write beneath `outputRoot` only, and hold
    /// `locks` (the run's ``BatchLock`` and ``BatchSplitLock``) while they live.
    /// - Throws: ``WorkerFailure`` when the worker processes cannot be started.
    init(options: BatchOptions, inputRoot: String, outputRoot: String, ledger: AccessLedger, locks: [Int32] = []) throws(WorkerFailure) {
        let threads = max(1, BatchOptions.coreCount / options.jobs)
        var prepare = options.prepare
        prepare.threads = threads
        switch options.isolation {
        case .inProcess:
            VipsRuntime.setThreads(threads)
            self = .inProcess(Preparer(options: prepare, safety: options.safety), ledger)
        case .workers(let limits):
            // Each request carries its options, the profile too (an inline policy); the same profile
            // is each worker's default.
            let arguments = ["--read-only", inputRoot, "--allow", outputRoot, "--threads", String(threads),
                             "--profile-json", prepare.profile.json.serialized]
            let pool = try WorkerProcessPool(count: options.jobs, arguments: arguments, limits: limits, inheriting: locks)
            self = .workers(pool, prepare)
        }
    }

    /// `in-process`, or `N worker process(es), sandbox: landlock|none`.
    var summary: String {
        guard case .workers(let pool, _) = self else { return "in-process" }
        return "\(pool.count) worker process(es), sandbox: \(pool.sandbox)"
    }

    /// Ends the worker processes (reaped, their temporary folders removed) before the run lets go
    /// of the locks they hold; nothing in-process.
    func stop() {
        if case .workers(let pool, _) = self { pool.stop() }
    }

    var restarts: Int {
        guard case .workers(let pool, _) = self else { return 0 }
        return pool.restarts
    }

    /// Prepares the input behind `handle` into `folder` as `stem.EXT`, replacing none but the files
    /// `replacing` lists (the input's earlier outputs); `progress` receives the share of its output
    /// encoded (a worker is then asked for progress lines).
    func prepare(_ handle: borrowing AccessHandle, into folder: String, stem: String, replacing: Set<FileVersion>,
                 progress: (@Sendable (Double) -> Void)? = nil) -> PrepareOutcome {
        switch self {
        case .inProcess(let preparer, let ledger):
            var preparer = preparer
            preparer.options.outputFolder = folder
            let report = PrepareProgress.reporting(to: progress) { preparer.prepare(handle, ledger: ledger, outputStem: stem, replacing: replacing) }
            return PrepareOutcome(report: report)
        case .workers(let pool, let shared):
            var options = shared
            options.outputFolder = folder
            var call = ServiceCall.prepare(handle.resolvedPath, options: options, id: .number(0))
            call.outputStem = stem
            call.replacing = replacing
            let answer = pool.perform(call, progress: progress)
            guard case .object(var fields)? = answer.report else {
                return PrepareOutcome(input: handle.resolvedPath,
                                      error: answer.error ?? ServiceError(code: .processingFailed, message: "the worker gave no report"),
                                      sandbox: answer.sandbox)
            }
            if let sandbox = answer.sandbox { fields.append(("sandbox", .string(sandbox))) }
            return PrepareOutcome(json: .object(fields))
        }
    }
}
