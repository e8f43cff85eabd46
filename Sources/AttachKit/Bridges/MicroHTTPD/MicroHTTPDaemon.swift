import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// The libmicrohttpd daemon behind `attachkit http`, with one owner: it listens, gives every
/// connection a thread of its own, and drives each request through an ``HTTPExchange`` of the
/// ``HTTPServer`` (headers → early answer or body pieces → answer → completion). Stopped in
/// ``stop()`` or when dropped.
///
/// Calls: `MHD_start_daemon` (through the shim's fixed-arity `ak_mhd_start`), `MHD_get_connection_values`
/// (every `Content-Length` and `Transfer-Encoding` header), `MHD_quiesce_daemon`,
/// `MHD_stop_daemon`, `MHD_queue_response` with responses from `MHD_create_response_from_buffer`
/// (copied) or `MHD_create_response_from_fd` (MHD owns and closes the descriptor).
package final class MicroHTTPDaemon: @unchecked Sendable {
    /// Per request: the raw target (from the URI callback, before MHD splits and unescapes it)
    /// and the exchange once the headers are in.
    private final class Pending {
        let target: String
        var exchange: HTTPExchange?
        var answered = false
        init(target: String) { self.target = target }
    }

    private let server: HTTPServer
    private let watch: ConnectionWatch
    private var daemon: OpaquePointer?
    private var quiesced = false
    /// The address bound (with the port the kernel chose for port 0).
    package private(set) var address: ListenAddress

    /// Starts listening.
    /// - Throws: ``ServiceError`` `unavailable` when the daemon cannot start (address in use,
    ///   no permission).
    package init(server: HTTPServer, address: ListenAddress) throws(ServiceError) {
        self.server = server
        self.address = address
        self.watch = ConnectionWatch(headerSeconds: Double(server.limits.headerTimeoutSeconds),
                                     readSeconds: Double(server.limits.readTimeoutSeconds))
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue
            | MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue
            | (address.isIPv6 ? MHD_USE_IPv6.rawValue : 0)
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Each connection holds a thread; past these limits, new connections are closed at once.
        let limits = server.limits
        let started = Self.withSocketAddress(address) { socketAddress in
            ak_mhd_start(flags, socketAddress, Self.access, Self.uriLog, Self.completed, Self.notify, context,
                         UInt32(limits.connections), UInt32(limits.connectionsPerClient), UInt32(limits.readTimeoutSeconds), 128, Self.connectionMemory)
        }
        guard let started else {
            throw ServiceError(code: .unavailable, message: "cannot listen on \(address) (in use, or not an address of this machine)")
        }
        daemon = started
        self.address = address.with(port: ak_mhd_bound_port(started))
        watch.start()
    }

    /// Memory per connection for its headers and read buffer (MHD's default is 32 KiB, which reads
    /// a body 16 KiB at a time): 256 KiB reads an upload in pieces 8 times larger, so a 2 MB photo
    /// costs 16 reads and spool writes instead of 128 (a `/v1/probe` of a 2 MB JPEG over loopback:
    /// 3 ms more than the same probe by path, was 17 ms). The pool is mapped per connection but its
    /// pages are touched only as they fill (250 connections each holding 20 KB of headers: +7 MB
    /// resident), and a body is read only for a request that holds a work slot (`--jobs` + `--queue`).
    static let connectionMemory = 256 << 10

    deinit { stop() }

    /// Stops accepting connections (the listening socket is closed); connections already
    /// accepted are still served.
    package func quiesce() {
        guard let daemon, !quiesced else { return }
        quiesced = true
        let socket = MHD_quiesce_daemon(daemon)
        if socket >= 0 { close(socket) }
    }

    /// Closes every connection and joins the daemon's threads. Idempotent.
    package func stop() {
        guard let daemon else { return }
        self.daemon = nil
        MHD_stop_daemon(daemon)
        watch.stop()
    }

    private static func withSocketAddress<T>(_ address: ListenAddress, _ body: (UnsafePointer<sockaddr>) -> T) -> T {
        if address.isIPv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = address.port.bigEndian
            _ = inet_pton(AF_INET6, address.host, &socketAddress.sin6_addr)
            return withUnsafePointer(to: &socketAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        _ = inet_pton(AF_INET, address.host, &socketAddress.sin_addr)
        return withUnsafePointer(to: &socketAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }

    private static func owner(_ context: UnsafeMutableRawPointer?) -> MicroHTTPDaemon {
        Unmanaged<MicroHTTPDaemon>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: Callbacks (each on the connection's own thread)

    /// The first thing MHD knows of a request: its raw target. What it returns becomes the
    /// request's context (released in ``completed``).
    private static let uriLog: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { _, uri, _ in
        Unmanaged.passRetained(Pending(target: uri.map { String(cString: $0) } ?? "/")).toOpaque()
    }

    private static let access: MHD_AccessHandlerCallback = { context, connection, _, method, _, uploadData, uploadSize, requestContext in
        let daemon = owner(context)
        guard let connection, let requestContext, let raw = requestContext.pointee else { return .NO }
        let pending = Unmanaged<Pending>.fromOpaque(raw).takeUnretainedValue()
        guard let exchange = pending.exchange else { return daemon.begin(pending, method: method, on: connection) }
        if let uploadSize, uploadSize.pointee > 0 {
            if !pending.answered, let uploadData {
                exchange.receive(UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee))
            }
            uploadSize.pointee = 0
            return .YES
        }
        guard !pending.answered else { return .YES }
        pending.answered = true
        daemon.watch.received(connection)
        let response = exchange.early ?? exchange.finish()
        // A client that closed while its request was worked on cannot get the answer: the
        // connection is closed (and the request counted `client-gone`), nothing is sent.
        guard !clientClosed(connection) else { return .NO }
        return daemon.queue(response, on: connection)
    }

    /// The first call for a request, its headers in: the exchange, from every `Content-Length`
    /// and `Transfer-Encoding` header (``RequestFraming``). A refusal of a request with a body is
    /// sent before the body is read (MHD then closes the connection); one without a body is sent
    /// on the next call, which keeps it alive.
    private func begin(_ pending: Pending, method: UnsafePointer<CChar>?, on connection: OpaquePointer) -> MHD_Result {
        watch.headersArrived(connection)
        let lengths = Self.headerValues("Content-Length", of: connection)
        let encodings = Self.headerValues("Transfer-Encoding", of: connection)
        let length = Result { () throws(ServiceError) in try RequestFraming.contentLength(lengths, transferEncodings: encodings) }
        let exchange = server.begin(method: method.map { String(cString: $0) } ?? "GET", target: pending.target, contentLength: length)
        pending.exchange = exchange
        let hasBody = lengths.contains { $0 != "0" } || !encodings.isEmpty
        guard let early = exchange.early, hasBody else { return .YES }
        pending.answered = true
        watch.received(connection)
        return queue(early, on: connection)
    }

    private static let completed: MHD_RequestCompletedCallback = { context, connection, requestContext, code in
        guard let requestContext, let raw = requestContext.pointee else { return }
        requestContext.pointee = nil
        let pending = Unmanaged<Pending>.fromOpaque(raw).takeRetainedValue()
        let watch = owner(context).watch
        pending.exchange?.complete(ending(code, cut: connection.map(watch.wasCut) ?? false))
        if let connection { watch.receiving(connection) }
    }

    /// How a request ended, from MHD's termination code and whether the watch cut it off.
    private static func ending(_ code: MHD_RequestTerminationCode, cut: Bool) -> HTTPEnding {
        if cut { return .timedOut }
        switch code {
        case .REQUEST_TERMINATED_COMPLETED_OK: return .delivered
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: return .timedOut
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: return .shutDown
        default: return .clientGone
        }
    }

    private static let notify: MHD_NotifyConnectionCallback = { context, connection, _, event in
        guard let connection else { return }
        let watch = owner(context).watch
        if event == .CONNECTION_NOTIFY_STARTED {
            watch.add(connection, fd: ak_mhd_connection_fd(connection))
        } else {
            watch.remove(connection)
        }
    }

    /// Every value of the request header `name` (any case), in order (`MHD_get_connection_values`).
    private static func headerValues(_ name: String, of connection: OpaquePointer) -> [String] {
        final class Found {
            let name: String
            var values: [String] = []
            init(_ name: String) { self.name = name }
        }
        let found = Found(name)
        _ = withExtendedLifetime(found) {
            MHD_get_connection_values(connection, .HEADER_KIND, { cls, _, key, value in
                let found = Unmanaged<Found>.fromOpaque(cls!).takeUnretainedValue()
                if let key, strcasecmp(key, found.name) == 0 { found.values.append(value.map { String(cString: $0) } ?? "") }
                return .YES
            }, Unmanaged.passUnretained(found).toOpaque())
        }
        return found.values
    }

    /// Whether the client has closed its side of the connection (a peek reads end of file or an
    /// error): an answer would not reach it.
    private static func clientClosed(_ connection: OpaquePointer) -> Bool {
        let fd = ak_mhd_connection_fd(connection)
        guard fd >= 0 else { return false }
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// Queues the answer; while the server drains, with `Connection: close`, so a kept-alive
    /// client sends no further request on a connection about to close.
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY) }
        case .file(let file):
            let fd = file.take()
            made = MHD_create_response_from_fd(Int(file.size), fd)
            if made == nil, fd >= 0 { close(fd) }
        }
        guard let made else { return .NO }
        defer { MHD_destroy_response(made) }
        var headers = response.headers
        if server.isDraining, !headers.contains(where: { $0.name == "Connection" }) { headers.append(("Connection", "close")) }
        for header in headers { _ = MHD_add_response_header(made, header.name, header.value) }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }
}
