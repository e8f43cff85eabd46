#if canImport(Glibc)
import Glibc
#endif

/// Cuts off clients that take too long to send a request: libmicrohttpd's own timeout counts
/// idle time only, so a client sending one byte a second would hold its connection (and its
/// thread, and an upload slot) for ever. Each connection libmicrohttpd serves is timed from its
/// acceptance (its head was read before, within the header timeout, by ``HeadReader``): it has
/// `readSeconds` to send the whole request, head and body. Past that its socket is shut down
/// (`shutdown(2)`, which ends MHD's read; MHD then closes it) and it is marked cut
/// (``wasCut(_:)``). Checked twice a second.
final class ConnectionWatch: @unchecked Sendable {
    private struct Entry {
        let fd: Int32
        /// When it was accepted; `nil` once its request is in (being worked on, answered).
        var since: Double?
        /// Whether it was cut off for taking too long.
        var cut = false
    }

    private let readSeconds: Double
    private let entries = Locked<[Int: Entry]>([:])
    private let running = Locked(false)

    init(readSeconds: Double) {
        self.readSeconds = readSeconds
    }

    func start() {
        running.withLock { $0 = true }
        NativeThread.start(stackSize: 256 << 10) { [self] in
            while running.withLock({ $0 }) {
                usleep(500_000)
                cutSlowClients()
            }
        }
    }

    func stop() { running.withLock { $0 = false } }

    /// Times `connection` (socket `fd`) from `since`, when it was accepted.
    func add(_ connection: OpaquePointer, fd: Int32, since: Double) {
        entries.withLock { $0[Int(bitPattern: connection)] = Entry(fd: fd, since: since) }
    }

    func remove(_ connection: OpaquePointer) { _ = entries.withLock { $0.removeValue(forKey: Int(bitPattern: connection)) } }

    /// Its request has arrived whole: not timed while it is worked on and answered.
    func received(_ connection: OpaquePointer) { entries.withLock { $0[Int(bitPattern: connection)]?.since = nil } }

    /// Whether the connection was cut off for taking too long (`false` once it is removed).
    func wasCut(_ connection: OpaquePointer) -> Bool { entries.withLock { $0[Int(bitPattern: connection)]?.cut ?? false } }

    private func cutSlowClients() {
        let now = HTTPServer.now
        // Under the lock, so a connection being closed cannot hand its descriptor number to
        // another file in between (MHD reports the close before it closes the socket).
        entries.withLock { entries in
            for (key, entry) in entries {
                guard let since = entry.since, now - since > readSeconds, entry.fd >= 0 else { continue }
                shutdown(entry.fd, Int32(SHUT_RDWR))
                entries[key]?.since = nil
                entries[key]?.cut = true
            }
        }
    }
}
