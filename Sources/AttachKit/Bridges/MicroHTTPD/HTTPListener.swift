import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// The listening socket of `attachkit http`, with one owner: it binds the address, and a thread of
/// its own accepts each connection (`accept4` with `SOCK_CLOEXEC`, so worker processes never
/// inherit a client's socket) and hands it to the callback given to ``start(_:)``. libmicrohttpd
/// never listens: it is given each connection only once its head has been read
/// (``MicroHTTPDaemon``). ``close()`` stops accepting; connections already accepted are not
/// touched.
final class HTTPListener: @unchecked Sendable {
    /// The address bound (with the port the kernel chose for port 0).
    let address: ListenAddress
    private let fd: Int32
    /// Whether it still accepts, and whether the accepting thread was started (it closes the socket).
    private let state = Locked((listening: true, started: false))

    /// Binds and listens (`SO_REUSEADDR`; an IPv6 address listens on IPv6 only).
    /// - Throws: ``ServiceError`` `unavailable` when it cannot (address in use, not an address
    ///   of this machine, no permission).
    init(address: ListenAddress, backlog: Int32) throws(ServiceError) {
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var yes: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        let bound = fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, size) == 0
            && (!address.isIPv6 || setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &yes, size) == 0)
            && Self.withSocketAddress(address, { bind(fd, $0, $1) }) == 0 && listen(fd, backlog) == 0
        guard bound, let port = Self.boundPort(fd) else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { Glibc.close(fd) }
            throw ServiceError(code: .unavailable, message: "cannot listen on \(address): \(reason)")
        }
        self.fd = fd
        self.address = address.with(port: port)
    }

    /// Starts the accepting thread: `accepted` gets each new connection's socket (its own to
    /// close) and address, on that thread.
    func start(_ accepted: @escaping @Sendable (Int32, ClientAddress) -> Void) {
        guard state.withLock({ state in
            defer { state.started = true }
            return state.listening && !state.started
        }) else { return }
        NativeThread.start(stackSize: 256 << 10) { [self] in
            while state.withLock({ $0.listening }) {
                var storage = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let client = withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { ak_accept_cloexec(fd, $0, &length) }
                }
                if client >= 0 {
                    accepted(client, ClientAddress(storage, length: length))
                } else if errno == EMFILE || errno == ENFILE || errno == ENOMEM {
                    usleep(10_000)   // out of descriptors: let some close rather than spin
                }
            }
            Glibc.close(fd)
        }
    }

    /// Stops accepting: the accepting thread ends and closes the socket (or it is closed here
    /// when no thread was started); new connections are refused. Idempotent.
    func close() {
        state.withLock { state in
            guard state.listening else { return }
            state.listening = false
            // Wakes the thread blocked in accept(2) (Linux: EINVAL on a listening socket shut
            // down); under the lock, so it is done before that thread can close the socket.
            shutdown(fd, Int32(SHUT_RDWR))
            if !state.started { Glibc.close(fd) }
        }
    }

    private static func boundPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard got == 0 else { return nil }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            family == AF_INET6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    private static func withSocketAddress<T>(_ address: ListenAddress, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        if address.isIPv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = address.port.bigEndian
            _ = inet_pton(AF_INET6, address.host, &socketAddress.sin6_addr)
            return withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        _ = inet_pton(AF_INET, address.host, &socketAddress.sin_addr)
        return withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
