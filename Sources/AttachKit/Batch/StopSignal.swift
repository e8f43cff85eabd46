import Synchronization

/// Asks a running batch (or service) to stop taking new work. Set from a signal handler's
/// dispatch source or another thread; read by workers between items.
public final class StopSignal: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func stop() { flag.store(true, ordering: .relaxed) }

    public var isStopped: Bool { flag.load(ordering: .relaxed) }
}
