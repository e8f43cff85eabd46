/// Finds where a request's head ends while its bytes arrive, looking at each byte once: the
/// empty line (CRLF CRLF) that ends it, or the first byte that can never be part of a head this
/// server accepts — a NUL, a CR not followed by LF (a bare CR), an LF not after a CR (a bare LF) —
/// or the head growing past ``RequestHead/maxBytes``. So a smuggling attempt is refused as soon as
/// its bad byte arrives, not when the head timeout runs out. Bytes after the head (the body) are
/// never looked at.
package struct HeadScanner: Sendable {
    /// Where the head ends, once found.
    package enum Scan: Equatable, Sendable {
        /// Not yet: more bytes are needed.
        case incomplete
        /// The head is the first `count` bytes (its empty line included).
        case complete(count: Int)
    }

    /// The first byte not looked at yet.
    private var next = 0

    package init() {}

    /// Looks at what `bytes` (everything received so far, from the first byte) adds.
    /// - Throws: ``ServiceError`` `malformed-request` (400) for a NUL, a bare CR or a bare LF,
    ///   `header-too-large` (431) past ``RequestHead/maxBytes`` without an end.
    package mutating func scan(_ bytes: ArraySlice<UInt8>) throws(ServiceError) -> Scan {
        let start = bytes.startIndex
        while start + next < bytes.endIndex {
            let index = start + next
            switch bytes[index] {
            case 0:
                throw RequestHead.malformed("a NUL byte at offset \(next) of the request's head")
            case HTTPBytes.cr:
                guard index + 1 < bytes.endIndex else { return try incomplete() }
                guard bytes[index + 1] == HTTPBytes.lf else {
                    throw RequestHead.malformed("a CR not followed by LF (a bare CR) at offset \(next) of the request's head")
                }
            case HTTPBytes.lf:
                guard next > 0, bytes[index - 1] == HTTPBytes.cr else {
                    throw RequestHead.malformed("an LF not after a CR (a bare LF) at offset \(next) of the request's head")
                }
                if next >= 3, bytes[index - 2] == HTTPBytes.lf { return .complete(count: next + 1) }
            default:
                break
            }
            next += 1
            guard next < RequestHead.maxBytes else { throw tooLarge() }
        }
        return try incomplete()
    }

    private func incomplete() throws(ServiceError) -> Scan {
        guard next < RequestHead.maxBytes else { throw tooLarge() }
        return .incomplete
    }

    private func tooLarge() -> ServiceError {
        ServiceError(code: .headerTooLarge, message: "the request's head is longer than \(RequestHead.maxBytes) bytes")
    }
}
