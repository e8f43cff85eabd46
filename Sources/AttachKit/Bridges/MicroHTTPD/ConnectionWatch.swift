import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Cuts off clients that take too long to send a request: libmicrohttpd's own timeout counts
/// idle time only, so a client sending one byte a second would hold its connection (and thread)
/// for ever. Each connection is timed from its start (or the end of its previous request): it has
/// `headerSeconds` to send a request's headers (so a connection that sends nothing is closed
/// soon), and `readSeconds` to send the whole request. Past its limit its socket is shut down
/// (`shutdown(2)`, which ends MHD's read; MHD then closes it) and it is marked cut
/// (``wasCut(_:)``). Checked twice a second.
final class ConnectionWatch: @unchecked Sendable {
    private struct Entry {
        let fd: Int32
        /// When it started sending the request it is sending; `nil` while it is being answered.
        var since: Double?
        /// Whether its request's headers are in (then the read limit applies, else the header limit).
        var headersIn = false
        /// Whether it was cut off for taking too long.
        var cut = false
    }

    private let headerSeconds: Double
    private let readSeconds: Double
    private let entries = Locked<[Int: Entry]>([:])
    private let running = Locked(false)

    init(headerSeconds: Double, readSeconds: Double) {
        self.headerSeconds = min(headerSeconds, readSeconds)
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

    func add(_ connection: OpaquePointer, fd: Int32) {
        entries.withLock { $0[Int(bitPattern: connection)] = Entry(fd: fd, since: HTTPServer.now) }
    }

    func remove(_ connection: OpaquePointer) { _ = entries.withLock { $0.removeValue(forKey: Int(bitPattern: connection)) } }

    /// Its request's headers have arrived: it has the rest of the read limit for the body.
    func headersArrived(_ connection: OpaquePointer) { entries.withLock { $0[Int(bitPattern: connection)]?.headersIn = true } }

    /// Its request has arrived whole: not timed while it is worked on and answered.
    func received(_ connection: OpaquePointer) { entries.withLock { $0[Int(bitPattern: connection)]?.since = nil } }

    /// It may send another request (kept alive): timed again, from its headers.
    func receiving(_ connection: OpaquePointer) {
        entries.withLock { entries in
            let key = Int(bitPattern: connection)
            entries[key]?.since = HTTPServer.now
            entries[key]?.headersIn = false
        }
    }

    /// Whether the connection was cut off for taking too long (`false` once it is removed).
    func wasCut(_ connection: OpaquePointer) -> Bool { entries.withLock { $0[Int(bitPattern: connection)]?.cut ?? false } }

    private func cutSlowClients() {
        let now = HTTPServer.now
        // Under the lock, so a connection being closed cannot hand its descriptor number to
        // another file in between (MHD reports the close before it closes the socket).
        entries.withLock { entries in
            for (key, entry) in entries {
                guard let since = entry.since, now - since > (entry.headersIn ? readSeconds : headerSeconds), entry.fd >= 0 else { continue }
                shutdown(entry.fd, Int32(SHUT_RDWR))
                entries[key]?.since = nil
                entries[key]?.cut = true
            }
        }
    }
}
