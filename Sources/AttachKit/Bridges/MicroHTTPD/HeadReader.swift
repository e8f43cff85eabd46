import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Reads a request's head off a socket just accepted without taking it out of the socket
/// (`recv(MSG_PEEK)`), so the same bytes are then read by libmicrohttpd — or, when
/// ``RequestHead`` refuses them, never by anyone. Each wait asks the kernel to wake it only once a
/// byte more than it has seen has arrived (`SO_RCVLOWAT`), so a client trickling its head costs
/// one wake-up per segment and each byte is scanned once (``HeadScanner``); the mark is set back
/// to 1 before the socket is handed on.
enum HeadReader {
    enum Outcome {
        /// The whole head, accepted.
        case head(RequestHead)
        /// The head (or its first bytes) refused: answer with this error and close.
        case refused(ServiceError)
        /// No whole head before the deadline.
        case timedOut
        /// The client closed (or reset) the connection before its head was whole.
        case closed
    }

    /// Waits for the head on `fd` until `deadline` (``HTTPServer/now``'s clock).
    static func read(_ fd: Int32, until deadline: Double) -> Outcome {
        // One byte past the limit, so that a head longer than the limit is seen to be longer (with
        // exactly the limit's bytes in view, a head one byte over waited for a byte the peek
        // could never return, and its client got no answer until the timeout).
        var buffer = [UInt8](repeating: 0, count: RequestHead.maxBytes + 1)
        var scanner = HeadScanner()
        var seen = 0
        defer { setLowMark(fd, 1) }
        while true {
            setLowMark(fd, seen + 1)
            guard let events = waitReadable(fd, until: deadline) else { return .timedOut }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_PEEK | MSG_DONTWAIT)) }
            if count < 0 && errno != EAGAIN && errno != EINTR { return .closed }
            guard count > seen else {
                // No byte more: the client closed its side (or the socket failed), or the kernel
                // woke us early (memory pressure); then wait a little rather than spin.
                if events & (hangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0 { return .closed }
                usleep(5_000)
                continue
            }
            seen = count
            do throws(ServiceError) {
                guard case .complete(let length) = try scanner.scan(buffer[0..<count]) else {
                    // A full buffer without a whole head can never complete: never wait on it.
                    guard count < buffer.count else {
                        throw ServiceError(code: .headerTooLarge, message: "the request's head is longer than \(RequestHead.maxBytes) bytes")
                    }
                    continue
                }
                return .head(try RequestHead.parse(buffer[0..<length]))
            } catch {
                return .refused(error)
            }
        }
    }

    /// `POLLRDHUP` (Linux: the peer shut down its sending side), which Swift's Glibc does not export.
    private static let hangUp: Int16 = 0x2000

    /// The events once `fd` became readable (at its low mark, or at its end) before `deadline`;
    /// `nil` when the deadline came first.
    private static func waitReadable(_ fd: Int32, until deadline: Double) -> Int16? {
        while true {
            let remaining = deadline - HTTPServer.now
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN) | hangUp, revents: 0)
            let ready = poll(&poller, 1, Int32((remaining * 1000).rounded(.up)))
            if ready > 0 { return poller.revents }
            if ready < 0 && errno != EINTR { return Int16(POLLERR) }   // the peek then reports the error
        }
    }

    private static func setLowMark(_ fd: Int32, _ bytes: Int) {
        var mark = Int32(bytes)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &mark, socklen_t(MemoryLayout<Int32>.size))
    }
}
