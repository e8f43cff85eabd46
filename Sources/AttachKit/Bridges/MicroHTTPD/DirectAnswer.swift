import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Answers on a socket libmicrohttpd never saw (a head ``RequestHead`` refused) and closes it:
/// the status line (reason phrase from `MHD_get_reason_phrase_for`), `Date`, the answer's headers
/// (it says `Connection: close`, ``HTTPExchange``), `Content-Length` and the body, as libmicrohttpd
/// would have sent it; then the sending
/// side is shut down and what the client still sends is read and dropped for at most
/// ``lingerSeconds`` before the socket is closed, so the kernel does not reset the connection
/// (which can destroy the answer before the client reads it) while the client is still sending
/// the body the refusal never read.
enum DirectAnswer {
    /// Longest wait for the client to stop sending after a refused head, seconds.
    static let lingerSeconds = 1.0
    /// Longest wait after a refusal decided from an accepted head while its body is on its way
    /// (413 over the body limit, 429 busy), seconds: long enough for a client to finish sending a
    /// body of the size limit over a fast link and reach its read (nginx's lingering close).
    static let refusalLingerSeconds = 5.0

    /// Writes `response` (a body held in memory) to `fd`; whether all of it was written. A
    /// client that does not read gets 5 s (`SO_SNDTIMEO`).
    static func send(_ response: HTTPResponse, to fd: Int32) -> Bool {
        guard case .bytes(let body) = response.body else { return false }
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\nDate: \(HTTPDate.format(time(nil)))\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return (Array(head.utf8) + body).withUnsafeBytes { sendAll($0, to: fd) }
    }

    /// Shuts down the sending side, drains what the client still sends (until it closes, for
    /// `seconds`, or `bytes` read), and closes `fd`.
    static func close(_ fd: Int32, lingering seconds: Double = lingerSeconds, upTo bytes: Int64 = .max) {
        shutdown(fd, Int32(SHUT_WR))
        let end = HTTPServer.now + seconds
        var drained: Int64 = 0
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        while HTTPServer.now < end, drained < bytes {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(((end - HTTPServer.now) * 1000).rounded(.up))) > 0 else { break }
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { break }
            if count > 0 { drained += Int64(count) }
        }
        Glibc.close(fd)
    }

    private static func sendAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
