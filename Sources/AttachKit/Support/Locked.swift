#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`: the one lock type AttachKit uses.
///
/// Not `Synchronization.Mutex`: on Linux that hands the lock from thread to thread inside the
/// kernel (`FUTEX_LOCK_PI`), where ThreadSanitizer cannot see the hand-over, so every contended
/// `withLock` is reported as a race and `scripts/sanitize.sh thread` cannot tell real races from
/// false ones. ThreadSanitizer intercepts `pthread_mutex_lock`/`unlock`. Uncontended, both cost
/// about the same (one atomic each way).
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Outside the object, so `withLock`'s `inout` is plain memory access (a stored property would
    /// get Swift's exclusivity bookkeeping, which ThreadSanitizer reports at the object's address
    /// when the value is empty, as with `Locked(())`).
    private let storage: UnsafeMutablePointer<Value>

    package init(_ value: Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with the value, holding the lock; `body` must not call `withLock` on the same
    /// instance (the mutex is not recursive).
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage.pointee)
    }
}
