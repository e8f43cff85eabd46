import Dispatch
import Synchronization

/// A fixed number of long-lived `attachkit worker` processes doing the media work of a batch or
/// a service, one job each at a time. A job whose worker dies (a decoder crash), or goes over its
/// memory, CPU or wall-clock limit, fails alone with a ``WorkerFailure``; the dead worker is
/// replaced on the next job. Safe to call from many threads: callers beyond `count` wait.
///
/// Workers die with the process that runs the pool (``WorkerLifeline``): every one is spawned by
/// the pool's own spawner thread, which lives until the pool has stopped them, so the kernel's
/// parent-death signal comes exactly when the pool's process ends, however it ends. When a worker
/// is reaped, its private temporary folder (``Sandbox``) goes with it.
///
/// This is how the software that parses the most hostile media is built (Android's media
/// extractor and browsers' decoders live in restartable processes of their own): a bug in a
/// decoder costs one file, never the batch or the server.
public final class WorkerProcessPool: Sendable {
    /// Workers at most (and jobs at once).
    public let count: Int
    public let limits: WorkerLimits
    private let executable: String
    private let arguments: [String]
    /// Descriptors every worker inherits and holds (a batch's locks).
    private let inherited: [Int32]
    private let idle: Locked<[WorkerProcess?]>
    private let available: DispatchSemaphore
    private let restartCount = Atomic<Int>(0)
    /// The workers working on a job now, by pid (``abortBusy()``).
    private let busy = Locked<Set<Int32>>([])
    /// Set by ``abortBusy()`` for the rest of the pool's life (a shutting-down service's): a job
    /// whose worker was killed for it does not count as a restart.
    private let aborting = Atomic<Bool>(false)
    private let sandboxName = Locked<String?>(nil)
    /// The one thread that spawns workers; it ends after ``deinit`` has stopped them.
    private let spawner = WorkerPool(threads: 1)

    /// - Parameters:
    ///   - count: workers (jobs at once), at least 1.
    ///   - arguments: passed after `attachkit worker` (roots, profile, threads...).
    ///   - inheriting: descriptors every worker holds as its 3, 4... while it lives. Default none.
    /// - Throws: ``WorkerFailure/unavailable(reason:)`` when the first worker cannot start, so a
    ///   misconfigured pool is reported once, up front.
    public convenience init(count: Int, arguments: [String], limits: WorkerLimits) throws(WorkerFailure) {
        try self.init(count: count, arguments: arguments, limits: limits, inheriting: [])
    }

    init(count: Int, arguments: [String], limits: WorkerLimits, inheriting: [Int32]) throws(WorkerFailure) {
        self.count = max(1, count)
        self.limits = limits
        self.executable = limits.executable ?? Self.defaultExecutable()
        self.arguments = arguments + ["--cpu-seconds", String(limits.cpuSeconds), "--address-space", String(limits.addressSpaceBytes)]
        self.inherited = inheriting
        // All workers start at once (each spends ~0.1 s loading its libraries), so none of that
        // start-up is paid again by the first jobs.
        let (spawner, executable, arguments) = (self.spawner, self.executable, self.arguments)
        let launched = (0..<self.count).map { _ in Self.launch(on: spawner, executable: executable, arguments: arguments, inheriting: inheriting) }
        let results = launched.map { launched in
            launched.flatMap { worker in Result { () throws(WorkerFailure) in try worker.awaitHello(); return worker } }
        }
        let workers = results.compactMap { try? $0.get() }
        guard let first = workers.first else {
            if case .failure(let failure) = results.first { throw failure }
            throw .unavailable(reason: "no worker started")
        }
        sandboxName.withLock { $0 = first.hello["sandbox"]?.stringValue }
        self.idle = Locked(workers + Array(repeating: nil, count: self.count - workers.count))
        self.available = DispatchSemaphore(value: self.count)
    }

    deinit { stop() }

    /// Ends every idle worker: each is reaped and its private temporary folder removed. What a
    /// front end calls when it is done, since a process that calls `exit` with the pool still
    /// referenced never runs ``deinit``, and its workers would then die of their parent's death
    /// (`PR_SET_PDEATHSIG`) unreaped, leaving their folders. Safe to call more than once; a
    /// ``run(_:outputFolder:)`` after it starts a new worker.
    /// Kills the workers working on a job now (SIGKILL): each such job fails at once with
    /// ``WorkerFailure/crashed(signal:detail:)``, not counted as a restart. What a service does
    /// when its drain has run out with work still running, so that the work's requests can be
    /// answered (503) and the process can end.
    public func abortBusy() {
        aborting.store(true, ordering: .releasing)
        for pid in busy.withLock({ $0 }) { try? Signal.kill.send(to: pid) }
    }

    public func stop() {
        let workers = idle.withLock { slots -> [WorkerProcess?] in
            let taken = slots
            slots = slots.map { _ in nil }
            return taken
        }
        for worker in workers { worker?.stop() }
    }

    /// Spawns one worker on the spawner thread (its hello not awaited yet).
    private func launch() -> Result<WorkerProcess, WorkerFailure> {
        Self.launch(on: spawner, executable: executable, arguments: arguments, inheriting: inherited)
    }

    private static func launch(on spawner: WorkerPool, executable: String, arguments: [String],
                               inheriting inherited: [Int32]) -> Result<WorkerProcess, WorkerFailure> {
        let result = Locked<Result<WorkerProcess, WorkerFailure>>(.failure(.unavailable(reason: "not spawned")))
        spawner.runAll([0]) { _ in
            let launched = Result { () throws(WorkerFailure) in
                try WorkerProcess.launch(executable: executable, arguments: arguments, inheriting: inherited)
            }
            result.withLock { $0 = launched }
        }
        return result.withLock { $0 }
    }
    /// Sends one JSON request line to a worker and returns its answer line, or why the worker gave
    /// none. Blocks the calling thread (run it on a thread of its own, not Swift's cooperative pool).
    /// - Parameter outputFolder: where the request writes; when the worker dies, the temporaries it
    ///   left there (its pid is in their names) are removed.
    /// - Parameter progress: receives the fractions of the worker's progress lines (a request that
    ///   asked for them: ``WorkerProcess/progressPrefix``).
    public func run(_ request: String, outputFolder: String? = nil, progress: ((Double) -> Void)? = nil) -> Result<String, WorkerFailure> {
        available.wait()
        defer { available.signal() }
        var worker = idle.withLock { slots -> WorkerProcess? in
            let index = slots.firstIndex { $0 != nil } ?? slots.indices.first!
            let taken = slots[index]
            slots.remove(at: index)
            return taken
        }
        if worker == nil {
            switch launch().flatMap({ worker in Result { () throws(WorkerFailure) in try worker.awaitHello(); return worker } }) {
            case .success(let started): worker = started
            case .failure(let error):
                idle.withLock { $0.append(nil) }
                return .failure(error)
            }
        }
        let pid = worker!.pid
        busy.withLock { _ = $0.insert(pid) }
        let result = worker!.exchange(request, limits: limits, progress: progress)
        busy.withLock { _ = $0.remove(pid) }
        if case .failure = result {
            if !aborting.load(ordering: .acquiring) { restartCount.add(1, ordering: .relaxed) }
            if let outputFolder { AtomicOutput.removeTemporaries(in: outputFolder, ofProcess: worker!.pid) }
            worker = nil
        } else if WorkerProcess.residentBytes(of: worker!.pid) > limits.memoryBytes / 2 {
            // Memory a big job leaves resident (allocator caches, library pools) would count
            // against the next file's limit: a fresh worker takes the next job instead.
            worker!.stop()
            worker = nil
        }
        idle.withLock { $0.append(worker) }
        return result
    }

    /// Replaces the idle workers that have died while waiting for a job (killed from outside, out
    /// of memory); what `/readyz` asks before it says ready.
    /// - Returns: why the pool cannot work now (a dead worker could not be replaced), `nil` when
    ///   every idle worker is alive.
    public func replaceDeadWorkers() -> String? {
        let dead = idle.withLock { slots -> [WorkerProcess] in
            var found: [WorkerProcess] = []
            for index in slots.indices {
                guard let worker = slots[index], worker.hasExited else { continue }
                found.append(worker)
                slots[index] = nil
            }
            return found
        }
        guard !dead.isEmpty else { return nil }
        restartCount.add(dead.count, ordering: .relaxed)
        var problem: String?
        for worker in dead {
            worker.stop()
            switch launch().flatMap({ worker in Result { () throws(WorkerFailure) in try worker.awaitHello(); return worker } }) {
            case .success(let started):
                idle.withLock { slots in
                    if let free = slots.firstIndex(where: { $0 == nil }) { slots[free] = started } else { started.stop() }
                }
            case .failure(let failure):
                problem = "a worker process died and cannot be started again: \(failure.message)"
            }
        }
        return problem
    }

    /// Workers that died or broke a limit (and were replaced) since the pool started.
    public var restarts: Int { restartCount.load(ordering: .relaxed) }

    /// The sandbox the workers run in, as they report it: `landlock` or `none`.
    public var sandbox: String { sandboxName.withLock { $0 } ?? "none" }


    /// The `attachkit` executable beside the running one (a test runner or the benchmark harness in
    /// the same build folder), else the running executable itself.
    static func defaultExecutable() -> String {
        guard let running = try? FileNames.linkTarget("/proc/self/exe"), !running.isEmpty else { return "/proc/self/exe" }
        if PathResolver.fileName(running) == "attachkit" { return running }
        let sibling = PathResolver.directory(running) + "/attachkit"
        return SystemProcess.isExecutable(sibling) ? sibling : running
    }
}
