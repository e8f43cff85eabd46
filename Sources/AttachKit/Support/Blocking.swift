import Dispatch

/// The one bridge from a thread that must wait (a libmicrohttpd connection thread, a worker
/// process's request loop) to async work: the work runs as a task, the calling thread waits for
/// its value. Never call it from Swift's cooperative pool, whose threads it would block.
package enum Blocking {
    package static func wait<Value: Sendable>(for work: @escaping @Sendable () async -> Value) -> Value {
        let result = Locked<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
