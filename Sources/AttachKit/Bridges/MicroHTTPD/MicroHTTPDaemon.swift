import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP front of `attachkit http`, with one owner. Its ``HTTPListener`` accepts each
/// connection (at most ``HTTPLimits/connections``, ``HTTPLimits/connectionsPerClient`` from one
/// address: past them it is closed at once); a thread of its own reads the request's head with
/// ``HeadReader`` within the header timeout, and ``RequestHead`` — the one authority on framing —
/// accepts or refuses it. A refused head is answered here (``DirectAnswer``) and libmicrohttpd
/// never sees the connection; an accepted one is handed to the libmicrohttpd daemon
/// (`MHD_add_connection`; it runs without a listening socket), which gives it a thread, reads the
/// same head again and the body, and drives the request through an ``HTTPExchange`` built from
/// the head as ``RequestHead`` read it (headers → early answer or body pieces → answer →
/// completion). Every answer closes the connection, so libmicrohttpd never parses a second
/// request on it. Stopped in ``stop()`` or when dropped.
///
/// Calls: `MHD_start_daemon` (through the shim's fixed-arity `ak_mhd_start`), `MHD_add_connection`,
/// `MHD_stop_daemon`, `MHD_queue_response` with responses from `MHD_create_response_from_buffer`
/// (copied) or `MHD_create_response_from_fd` (MHD owns and closes the descriptor).
package final class MicroHTTPDaemon: @unchecked Sendable {
    /// Per request: its exchange, once begun.
    private final class Pending {
        var exchange: HTTPExchange?
        var answered = false
    }

    /// A connection whose head was accepted, from its hand-over to its close.
    private struct Handed: Sendable {
        let head: RequestHead
        /// Begun when the head was read (its answer may already be decided: ``HTTPExchange/early``).
        let exchange: HTTPExchange
        let client: ClientAddress
        let acceptedAt: Double
        /// Tells this hand-over from a later one on the same descriptor number.
        let serial: Int
    }

    private let server: HTTPServer
    private let watch: ConnectionWatch
    private let listener: HTTPListener
    private let connections: ClientSlots
    private let headerSeconds: Double
    /// The running daemon (`MHD_Daemon *` as a bit pattern: 0 once stopped), under a lock so
    /// ``stop()`` cannot free it while a connection is being handed over.
    private let daemon = Locked<Int>(0)
    /// Handed to `MHD_add_connection`, by socket, until MHD reports the connection started.
    private let arriving = Locked<(serial: Int, bySocket: [Int32: Handed])>((0, [:]))
    /// Connections MHD serves, by connection, until MHD reports them closed.
    private let served = Locked<[Int: Handed]>([:])
    /// Sockets whose head is being read, so ``stop()`` can end them.
    private let reading = Locked<Set<Int32>>([])

    /// The address bound (with the port the kernel chose for port 0).
    package var address: ListenAddress { listener.address }

    /// Starts listening.
    /// - Throws: ``ServiceError`` `unavailable` when it cannot listen (address in use, no
    ///   permission) or libmicrohttpd does not start.
    package init(server: HTTPServer, address: ListenAddress) throws(ServiceError) {
        let limits = server.limits
        self.server = server
        self.watch = ConnectionWatch(readSeconds: Double(limits.readTimeoutSeconds))
        self.headerSeconds = Double(min(limits.headerTimeoutSeconds, limits.readTimeoutSeconds))
        self.connections = ClientSlots(total: limits.connections, perClient: limits.connectionsPerClient)
        self.listener = try HTTPListener(address: address, backlog: 128)
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_POLL.rawValue
            | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        // MHD's own connection limit is only a backstop (twice ours): ours counts a connection
        // from its acceptance to its close, MHD forgets a closed one a little later.
        guard let started = ak_mhd_start(flags, Self.access, Self.completed, Self.notify, context, UInt32(limits.connections * 2),
                                         UInt32(limits.readTimeoutSeconds), Self.connectionMemory) else {
            listener.close()
            throw ServiceError(code: .unavailable, message: "libmicrohttpd did not start")
        }
        daemon.withLock { $0 = Int(bitPattern: started) }
        watch.start()
        listener.start { [self] fd, client in accepted(fd, client) }
    }

    /// Memory per connection for its headers and read buffer (MHD's default is 32 KiB, which reads
    /// a body 16 KiB at a time): 256 KiB reads an upload in pieces 8 times larger, so a 2 MB photo
    /// costs 16 reads and spool writes instead of 128 (a `/v1/probe` of a 2 MB JPEG over loopback:
    /// 3 ms more than the same probe by path, was 17 ms). The pool is mapped per connection but its
    /// pages are touched only as they fill. It is far over ``RequestHead/maxBytes``, so MHD never
    /// refuses a head that was accepted.
    static let connectionMemory = 256 << 10

    deinit { stop() }

    /// Connections accepted whose request head is still arriving: a drain waits for them too
    /// (within its time), as they were accepted before the signal.
    package var headsBeingRead: Int { reading.withLock { $0.count } }

    /// Stops accepting connections (the listening socket is closed); connections already
    /// accepted are still served.
    package func quiesce() { listener.close() }

    /// Answers every request whose body is still arriving with 503 `unavailable` (`Retry-After`,
    /// `Connection: close`), written on its socket here since libmicrohttpd cannot answer in the
    /// middle of a body; then the sending side is shut, and libmicrohttpd reads and drops the rest
    /// of the body until the client closes or ``stop()``. What a drain does when its time is up,
    /// so that an upload accepted before the signal gets an answer too. Returns how many.
    @discardableResult
    package func answerUploadsInProgress() -> Int {
        // Under the lock: a connection's close waits for it (``notify``), so each connection and
        // its socket stay open while they are answered (a few hundred bytes each).
        served.withLock { served in
            var answered = 0
            for (connection, handed) in served {
                guard let answer = handed.exchange.cutOff() else { continue }
                let fd = ak_mhd_connection_fd(OpaquePointer(bitPattern: connection))
                let sent = fd >= 0 && DirectAnswer.send(answer, to: fd)
                if fd >= 0 { shutdown(fd, Int32(SHUT_WR)) }
                handed.exchange.cutOffSent(sent)
                answered += 1
            }
            return answered
        }
    }

    /// Closes every connection and joins the daemon's threads. Idempotent.
    package func stop() {
        listener.close()
        let running = daemon.withLock { daemon in
            defer { daemon = 0 }
            return daemon
        }
        if let running = OpaquePointer(bitPattern: running) { MHD_stop_daemon(running) }
        watch.stop()
        reading.withLock { sockets in
            for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    // MARK: Before libmicrohttpd (the listener's thread, then the connection's own)

    private func accepted(_ fd: Int32, _ client: ClientAddress) {
        guard connections.take(client.text) == nil else {
            close(fd)
            return
        }
        let acceptedAt = HTTPServer.now
        reading.withLock { _ = $0.insert(fd) }
        NativeThread.start(stackSize: 256 << 10) { [self] in
            let outcome = HeadReader.read(fd, until: acceptedAt + headerSeconds)
            reading.withLock { _ = $0.remove(fd) }
            switch outcome {
            case .head(let head):
                let exchange = server.begin(.success(head), client: client.text)
                // Refused from its head alone while a body is on its way (413, 429): answered here,
                // then the body is read and dropped before the close (``DirectAnswer``), so the
                // client, still sending, reaches its read and sees the answer instead of a reset.
                if let early = exchange.early, head.framing.hasBody, case .bytes = early.body {
                    answerBeforeTheBody(fd, exchange, early, client: client, body: head.framing.declaredLength)
                } else {
                    handOver(fd, head: head, exchange: exchange, client: client, acceptedAt: acceptedAt)
                }
            case .refused(let error): refuse(fd, error, client: client)
            case .timedOut, .closed:
                shutdown(fd, Int32(SHUT_RDWR))
                close(fd)
                connections.release(client.text)
            }
        }
    }

    /// Answers a refused head (as an exchange, so the metrics count it) and closes.
    private func refuse(_ fd: Int32, _ error: ServiceError, client: ClientAddress) {
        let exchange = server.begin(.failure(error), client: client.text)
        let sent = exchange.early.map { DirectAnswer.send($0, to: fd) } ?? false
        exchange.complete(sent ? .delivered : .clientGone)
        DirectAnswer.close(fd)
        connections.release(client.text)
    }

    /// Answers a request refused before its body (which the client is still sending) and closes
    /// lingering: what the client sends is read and dropped for up to
    /// ``DirectAnswer/refusalLingerSeconds``, and at most the body's declared length (1 GiB at
    /// most; a chunked body: the body limit).
    private func answerBeforeTheBody(_ fd: Int32, _ exchange: HTTPExchange, _ answer: HTTPResponse, client: ClientAddress, body: Int64?) {
        let sent = DirectAnswer.send(answer, to: fd)
        exchange.complete(sent ? .delivered : .clientGone)
        DirectAnswer.close(fd, lingering: DirectAnswer.refusalLingerSeconds, upTo: min(body ?? server.limits.maxBodyBytes, 1 << 30))
        connections.release(client.text)
    }

    /// Hands the connection to MHD (which closes the socket even when it refuses it).
    private func handOver(_ fd: Int32, head: RequestHead, exchange: HTTPExchange, client: ClientAddress, acceptedAt: Double) {
        let serial = arriving.withLock { arriving in
            arriving.serial += 1
            arriving.bySocket[fd] = Handed(head: head, exchange: exchange, client: client, acceptedAt: acceptedAt, serial: arriving.serial)
            return arriving.serial
        }
        let added = daemon.withLock { daemon in
            guard let daemon = OpaquePointer(bitPattern: daemon) else {
                close(fd)
                return false
            }
            return client.withSocketAddress { MHD_add_connection(daemon, fd, $0, $1) } == .YES
        }
        guard !added else { return }
        let forgotten = arriving.withLock { arriving in
            guard arriving.bySocket[fd]?.serial == serial else { return false }
            arriving.bySocket[fd] = nil
            return true
        }
        if forgotten {
            exchange.complete(.shutDown)
            connections.release(client.text)
        }
    }

    private static func owner(_ context: UnsafeMutableRawPointer?) -> MicroHTTPDaemon {
        Unmanaged<MicroHTTPDaemon>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: libmicrohttpd's callbacks (each on the connection's own thread)

    private static let access: MHD_AccessHandlerCallback = { context, connection, _, _, _, uploadData, uploadSize, requestContext in
        let daemon = owner(context)
        guard let connection, let requestContext else { return .NO }
        guard let raw = requestContext.pointee else {
            let pending = Pending()
            requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
            return daemon.begin(pending, on: connection)
        }
        let pending = Unmanaged<Pending>.fromOpaque(raw).takeUnretainedValue()
        guard let exchange = pending.exchange else { return .NO }
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
        // `nil`: a drain answered it while its body arrived (``answerUploadsInProgress()``).
        guard let response = exchange.early ?? exchange.finish() else { return .NO }
        // A client that closed while its request was worked on cannot get the answer: the
        // connection is closed (and the request counted `client-gone`), nothing is sent.
        guard !clientClosed(connection) else { return .NO }
        return daemon.queue(response, on: connection)
    }

    /// The first call for a request, its headers in: the exchange, from the head as
    /// ``RequestHead`` read it (MHD's own reading is not used). An early answer (a refusal, a
    /// `GET`) is sent at once, before any body is read; MHD then closes the connection.
    private func begin(_ pending: Pending, on connection: OpaquePointer) -> MHD_Result {
        guard let handed = served.withLock({ $0[Int(bitPattern: connection)] }) else { return .NO }
        let exchange = handed.exchange
        pending.exchange = exchange
        guard let early = exchange.early else { return .YES }
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
        let daemon = owner(context)
        if event == .CONNECTION_NOTIFY_STARTED {
            daemon.started(connection)
        } else {
            let cut = daemon.watch.wasCut(connection)
            daemon.watch.remove(connection)
            let handed = daemon.served.withLock { $0.removeValue(forKey: Int(bitPattern: connection)) }
            guard let handed else { return }
            // A connection MHD closes before its request reached the access handler (the client
            // reset it right after its head) has no request to complete: its exchange is ended
            // here, so what it holds (an upload slot, a spool folder, an open file) is given
            // back. It leaked before: 128 such resets took every upload slot for good. After the
            // request-completed callback this does nothing (``HTTPExchange/complete(_:)`` runs once).
            handed.exchange.complete(cut ? .timedOut : .clientGone)
            daemon.connections.release(handed.client.text)
        }
    }

    /// MHD took a connection handed over: it is timed from its acceptance.
    private func started(_ connection: OpaquePointer) {
        let fd = ak_mhd_connection_fd(connection)
        guard let handed = arriving.withLock({ $0.bySocket.removeValue(forKey: fd) }) else { return }
        served.withLock { $0[Int(bitPattern: connection)] = handed }
        watch.add(connection, fd: fd, since: handed.acceptedAt)
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

    /// Queues the answer (its headers include `Connection: close`: ``HTTPExchange``).
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
        for header in response.headers { _ = MHD_add_response_header(made, header.name, header.value) }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }
}
