/// AttachKit as a long-lived service: probe, validate, prepare and thumbnail as async functions
/// that are safe to call concurrently, plus the JSON Lines protocol `attachkit serve` speaks.
///
/// Every path is confined to the allowed roots (the access scopes); anything outside is refused
/// with `access-denied`. At most `jobs` operations run at once on the service's own threads, so a
/// flood of requests queues instead of oversubscribing the machine.
public final class AttachKitService: Sendable {
    /// The ledger granting every read and write; its report shows any handle leak.
    public let ledger: AccessLedger
    /// The profile used when a request names none. Default ``Profile/standard``.
    public let profile: Profile
    public let jobs: Int
    private let pool: WorkerPool
    private let safety: SafetyLimits
    private let prober: Prober
    private let threadsPerJob: Int

    /// Worker processes answering the JSON protocol, when the service isolates its work.
    private let workers: WorkerProcessPool?
    /// Whether requests may carry the worker-only `stem` option (set in `attachkit worker`).
    private let isWorker: Bool
    /// The sandbox this process confined itself to, added to every answer when known.
    private let sandbox: String?

    /// - Parameters:
    ///   - roots: folders requests may read from and write into.
    ///   - jobs: operations at once (default: the number of cores); libvips and FFmpeg get
    ///     cores ÷ jobs threads each.
    ///   - isolation: where ``perform(_:progress:)`` (and so ``respond(to:)-(String)`` and every
    ///     front end) runs the work. Default ``Isolation/inProcess``, as for ``BatchOptions``; with
    ///     ``Isolation/workers(_:)`` every call goes to one of `jobs` worker processes, so a call
    ///     that crashes a decoder or breaks a limit fails alone (`crashed`, `over-memory`,
    ///     `timed-out`) and the service goes on. The functions that give Swift values
    ///     (``probe(path:)``...) run in this process: a report crosses from a worker as its JSON,
    ///     which ``perform(_:progress:)`` hands back as it is.
    /// - Throws: ``AccessError/notFound(path:)`` when a root does not exist;
    ///   ``WorkerFailure/unavailable(reason:)`` when worker processes cannot be started.
    public convenience init(allow roots: [String], profile: Profile = .standard, jobs: Int = BatchOptions.coreCount,
                            safety: SafetyLimits = SafetyLimits(), prober: Prober = Prober(),
                            isolation: Isolation = .inProcess) throws {
        try self.init(allow: roots, profile: profile, jobs: jobs, safety: safety, prober: prober, isolation: isolation,
                      threadsPerJob: nil, isWorker: false, sandbox: nil)
    }

    /// The service inside one `attachkit worker` process: one job at a time, `threadsPerJob`
    /// codec threads, the worker-only `stem` option accepted, `sandbox` added to every answer.
    package convenience init(workerAllow roots: [String], profile: Profile, threadsPerJob: Int, sandbox: String) throws {
        try self.init(allow: roots, profile: profile, jobs: 1, safety: SafetyLimits(), prober: Prober(), isolation: .inProcess,
                      threadsPerJob: threadsPerJob, isWorker: true, sandbox: sandbox)
    }

    private init(allow roots: [String], profile: Profile, jobs: Int, safety: SafetyLimits, prober: Prober, isolation: Isolation,
                 threadsPerJob: Int?, isWorker: Bool, sandbox: String?) throws {
        var scopes: [AccessScope] = []
        for root in roots { scopes.append(try AccessScope.folder(root)) }
        self.ledger = AccessLedger(scopes: scopes)
        self.profile = profile
        self.jobs = max(1, jobs)
        self.pool = WorkerPool(threads: self.jobs)
        self.safety = safety
        self.prober = prober
        self.threadsPerJob = threadsPerJob ?? max(1, BatchOptions.coreCount / self.jobs)
        self.isWorker = isWorker
        self.sandbox = sandbox
        if case .workers(let limits) = isolation {
            var arguments: [String] = []
            for scope in scopes { arguments += ["--allow", scope.root] }
            arguments += ["--threads", String(self.threadsPerJob), "--profile-json", profile.json.serialized]
            self.workers = try WorkerProcessPool(count: self.jobs, arguments: arguments, limits: limits)
        } else {
            self.workers = nil
            VipsRuntime.setThreads(self.threadsPerJob)
        }
    }

    /// How the work runs, for logs: `in-process`, or `N worker processes (sandbox: landlock)`.
    package var isolationSummary: String {
        guard let workers else { return "in-process" }
        return "\(workers.count) worker process(es), sandbox: \(workers.sandbox)"
    }

    /// Ends the service's worker processes (each reaped, its private temporary folder removed),
    /// when it isolates its work; in-process, nothing. Call it when no request is in flight any
    /// more: `attachkit serve` and `attachkit http` do at their end. A request after it starts
    /// a worker again.
    public func shutDownWorkers() {
        workers?.stop()
    }

    /// Ends the work running now in the isolated workers (each busy worker killed): its requests
    /// fail at once (``WorkerFailure``). In-process, nothing can be ended. What `attachkit http`
    /// does when its drain runs out with work still running.
    package func abortRunningWork() {
        workers?.abortBusy()
    }

    /// Why the isolated workers cannot work now (one died and cannot be started again), after
    /// replacing those that died while idle; `nil` in-process or when they can.
    package func workersProblem() -> String? { workers?.replaceDeadWorkers() }

    /// Workers replaced after a crash or a broken limit (0 in-process).
    package var workerRestarts: Int { workers?.restarts ?? 0 }

    // MARK: Swift API

    /// Probes a file inside the allowed roots.
    /// - Throws: ``ServiceError`` with the probe's code (`not-found`, `access-denied`, `corrupt`...).
    public func probe(path: String) async throws(ServiceError) -> MediaInfo {
        let prober = self.prober
        return try await withInput(path) { handle in
            Result { () throws(ProbeError) in try prober.probe(handle) }.mapError(ServiceError.init)
        }
    }

    /// Validates a file against `profile` (default: the service's).
    public func validate(path: String, profile: Profile? = nil, deep: Bool = false) async throws(ServiceError) -> ValidationReport {
        let validator = Validator(profile: profile ?? self.profile, prober: prober, deep: deep, safety: safety)
        return try await withInput(path) { .success(validator.validate($0)) }
    }

    /// Prepares a file; `options.outputFolder` must be inside the allowed roots. Failures to fit
    /// are in the report (``PrepareReport/error``), not thrown.
    /// - Throws: ``ServiceError`` only when the input cannot be accessed.
    public func prepare(path: String, options: PrepareOptions, outputStem: String? = nil) async throws(ServiceError) -> PrepareReport {
        try await prepare(path: path, options: options, outputStem: outputStem, replacing: [])
    }

    /// ``prepare(path:options:outputStem:)`` allowed to replace the files `replacing` lists (a
    /// batch worker's request: the input's earlier outputs).
    /// `progress` receives the share of the output encoded (``PrepareProgress``).
    func prepare(path: String, options: PrepareOptions, outputStem: String?, replacing: Set<FileVersion>,
                 progress: (@Sendable (Double) -> Void)? = nil) async throws(ServiceError) -> PrepareReport {
        makeFolderIfMissing(options.outputFolder)
        var options = options
        options.threads = options.threads ?? threadsPerJob
        let preparer = Preparer(options: options, safety: safety, prober: prober)
        let ledger = self.ledger
        return try await withInput(path) { handle in
            .success(PrepareProgress.reporting(to: progress) { preparer.prepare(handle, ledger: ledger, outputStem: outputStem, replacing: replacing) })
        }
    }

    /// Renders a JPEG thumbnail to `output` (inside the allowed roots).
    public func thumbnail(path: String, output: String, request: ThumbnailRequest = ThumbnailRequest()) async throws(ServiceError) -> ThumbnailReport {
        let thumbnailer = Thumbnailer(safety: safety, prober: prober)
        let ledger = self.ledger
        return try await withInput(path) { .success(thumbnailer.thumbnail($0, to: output, request: request, ledger: ledger)) }
    }

    /// Makes the output folder `folder` (and the folders above it) when it is missing and lies
    /// inside an allowed folder root, as `attachkit prepare` makes `--out`; outside the roots
    /// nothing is made (the write is then refused as `access-denied`).
    private func makeFolderIfMissing(_ folder: String) {
        guard !FileSystem.isDirectory(PathResolver.normalized(PathResolver.absolute(folder))),
              let (real, rest) = PathResolver.resolvedAsFarAsItExists(folder), !rest.isEmpty, PathResolver.realPath(real) != nil else { return }
        let resolved = ([real] + rest).joined(separator: "/")
        guard ledger.scopes.contains(where: { $0.kind == .folder && $0.contains(resolvedPath: resolved) }) else { return }
        _ = FileSystem.makeFolders(resolved)
    }

    /// Runs `work` on one of the service's threads with access to the input at `path`; a refused
    /// access is the request's error.
    private func withInput<Value: Sendable>(_ path: String,
                                            _ work: @escaping @Sendable (borrowing AccessHandle) -> Result<Value, ServiceError>)
        async throws(ServiceError) -> Value {
        let ledger = self.ledger
        let result = await pool.run { ledger.withAccess(path, refused: { .failure(ServiceError($0)) }, work) }
        return try result.get()
    }

    // MARK: Any call, where the service runs its work

    /// Runs `call` where the service's isolation says: in one of its worker processes (the call
    /// and its answer cross as lines, ``WorkerProcessPool``), or in this process through the typed
    /// functions above. Every front end's work comes through here. Never throws: a failure is the
    /// answer's ``ServiceAnswer/error`` (a failed prepare or thumbnail also carries its report).
    /// - Parameter progress: receives the share of a prepare's output encoded (``PrepareProgress``).
    public func perform(_ call: ServiceCall, progress: (@Sendable (Double) -> Void)? = nil) async -> ServiceAnswer {
        guard let workers else { return await performHere(call, progress: progress) }
        return await pool.run { workers.perform(call, progress: progress) }
    }

    private func performHere(_ call: ServiceCall, progress: (@Sendable (Double) -> Void)?) async -> ServiceAnswer {
        do throws(ServiceError) {
            switch call.work {
            case .probe:
                return answer(call, report: try await probe(path: call.path).json)
            case .validate(let profile, let deep):
                return answer(call, report: try await validate(path: call.path, profile: profile, deep: deep).json)
            case .prepare(let options):
                let report = try await prepare(path: call.path, options: options, outputStem: call.outputStem, replacing: call.replacing,
                                               progress: progress)
                return answer(call, report: report.json, error: report.error.map(ServiceError.init))
            case .thumbnail(let output, let request):
                let report = try await thumbnail(path: call.path, output: output, request: request)
                return answer(call, report: report.json, error: report.error.map(ServiceError.init))
            }
        } catch {
            return answer(call, error: error)
        }
    }

    private func answer(_ call: ServiceCall, report: JSONValue? = nil, error: ServiceError? = nil) -> ServiceAnswer {
        ServiceAnswer(id: call.id, report: report, error: error, sandbox: sandbox)
    }

    // MARK: JSON Lines protocol

    /// Answers one request line with exactly one answer line (no trailing newline):
    /// `{"id", "ok": true, "result": {...}}` or `{"id", "ok": false, "error": {"code", "message"}}`
    /// (a failed `prepare`/`thumbnail` also carries its report as `result`). Never throws.
    public func respond(to line: String) async -> String {
        await respond(to: line, progressLines: nil)
    }

    /// ``respond(to:)-(String)`` for a worker process: a prepare whose options ask for it
    /// (`"progress": true`, a worker-only option its parent sends) also gives `progressLines`
    /// its progress, as lines written before the answer: `{"progress":0.42,"id":ID}`, the share
    /// of the output encoded (``PrepareProgress``: a few a second at most; audio and video only).
    package func respond(to line: String, progressLines: (@Sendable (String) -> Void)?) async -> String {
        let request: ServiceRequest
        do {
            request = try ServiceRequest.parse(line, maxBytes: isWorker ? ServiceRequest.maxWorkerLineBytes : ServiceRequest.maxLineBytes)
        } catch {
            return ServiceAnswer(id: error.id, error: error.error, sandbox: sandbox).line
        }
        return await respond(to: request, progressLines: progressLines)
    }

    /// Answers a parsed request (see ``respond(to:)-(String)``).
    public func respond(to request: ServiceRequest) async -> String {
        await respond(to: request, progressLines: nil)
    }

    private func respond(to request: ServiceRequest, progressLines: (@Sendable (String) -> Void)?) async -> String {
        let decoded: (call: ServiceCall, progress: Bool)
        do throws(ServiceError) {
            decoded = try ServiceCall.decode(request, defaultProfile: profile, asWorker: isWorker)
        } catch {
            return ServiceAnswer(id: request.id, error: error, sandbox: sandbox).line
        }
        var progress: (@Sendable (Double) -> Void)?
        if decoded.progress, let write = progressLines {
            let id = request.id
            progress = { fraction in
                let rounded: Double = (fraction * 1000).rounded() / 1000
                write(JSONValue.object([("progress", JSONValue.number(rounded)), ("id", id)]).serialized)
            }
        }
        return await perform(decoded.call, progress: progress).line
    }

    /// Removes, beneath every allowed root, the temporaries of processes that are gone (a killed
    /// `serve` or worker), by their exact naming pattern. Returns how many were removed.
    @discardableResult
    package func removeStaleTemporaries() -> Int {
        ledger.scopes.filter { $0.kind == .folder }.reduce(0) { $0 + AtomicOutput.removeStaleTemporaries(beneath: $1.root) }
    }
}
