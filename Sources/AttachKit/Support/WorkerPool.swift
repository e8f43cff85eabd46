import Dispatch
import Synchronization

/// A fixed number of threads running blocking jobs (libvips and FFmpeg work) in FIFO order, so
/// CPU-bound preparation never blocks Swift's cooperative thread pool and never runs more jobs at
/// once than asked. Jobs queue without limit; threads never grow.
///
/// AttachKit's one thread pool: the service's requests (``run(_:)``, awaited), a batch's files and
/// the start of worker processes (``runAll(_:_:)``, blocking) all run on one.
final class WorkerPool: Sendable {
    private final class Jobs: Sendable {
        let queue = Locked<[@Sendable () -> Void]>([])
        let available = DispatchSemaphore(value: 0)
        let closed = Atomic<Bool>(false)
    }

    private let jobs = Jobs()
    let size: Int

    init(threads: Int) {
        size = max(1, threads)
        let jobs = self.jobs
        for _ in 0..<size {
            NativeThread.start {
                while true {
                    jobs.available.wait()
                    if jobs.closed.load(ordering: .relaxed) { return }
                    guard let job = jobs.queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                    job()
                }
            }
        }
    }

    /// Lets the threads end once the pool is gone (queued jobs still run first).
    deinit {
        let jobs = self.jobs
        // Callers await their jobs while holding the pool, so nothing should be queued here; if
        // something is, run it rather than leave a continuation unresumed.
        let pending = jobs.queue.withLock { queue in
            let all = queue
            queue.removeAll()
            return all
        }
        for job in pending { job() }
        jobs.closed.store(true, ordering: .relaxed)
        for _ in 0..<size { jobs.available.signal() }
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        jobs.queue.withLock { $0.append(job) }
        jobs.available.signal()
    }

    /// Runs `work` once for each of `items`, in their order (at most ``size`` at once), and
    /// returns when every one has finished. Blocks the calling thread.
    func runAll<Item: Sendable>(_ items: [Item], _ work: @escaping @Sendable (Item) -> Void) {
        let group = DispatchGroup()
        for item in items {
            group.enter()
            submit {
                work(item)
                group.leave()
            }
        }
        group.wait()
    }

    /// Runs `work` on a pool thread and returns its result to the awaiting task.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: work()) }
        }
    }
}
