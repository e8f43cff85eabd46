import Testing
@testable import AttachKit

/// The one reader of request heads (`RequestHead`, `HeadScanner`, `RequestFraming`): what RFC 9112
/// lets through, and what it refuses with which code — fed whole and one byte at a time, as a
/// socket may deliver it.
@Suite("attachkit http: request heads (RFC 9112)")
struct RequestHeadTests {
    /// Scans `text` as the head reader does (the bytes as they arrive, `pieceSize` at a time), then
    /// parses the head once it is whole; `nil` when it never ends.
    static func read(_ bytes: [UInt8], pieceSize: Int = .max) -> Result<RequestHead, ServiceError>? {
        var scanner = HeadScanner()
        var end = 0
        repeat {
            end = min(bytes.count, end + min(pieceSize, bytes.count))
            do throws(ServiceError) {
                if case .complete(let count) = try scanner.scan(bytes[0..<end]) {
                    return Result { () throws(ServiceError) in try RequestHead.parse(bytes[0..<count]) }
                }
            } catch {
                return .failure(error)
            }
        } while end < bytes.count
        return nil
    }

    /// The outcome, fed whole and byte by byte (which must agree).
    static func outcome(_ text: String) -> Result<RequestHead, ServiceError>? {
        let bytes = Array(text.utf8)
        let whole = read(bytes), trickled = read(bytes, pieceSize: 1)
        #expect(whole.map(describe) == trickled.map(describe), "\(text.debugDescription): whole and byte by byte differ")
        return whole
    }

    static func describe(_ result: Result<RequestHead, ServiceError>) -> String {
        switch result {
        case .success(let head): return "\(head)"
        case .failure(let error): return "\(error.code): \(error.message)"
        }
    }

    static func head(_ text: String) throws -> RequestHead {
        let result = try #require(outcome(text), "never ends: \(text.debugDescription)")
        return try result.get()
    }

    static func refusal(_ text: String) -> ServiceError? {
        guard case .failure(let error)? = outcome(text) else { return nil }
        return error
    }

    @Test("a plain head: method, target, version, framing and where the body starts")
    func accepted() throws {
        let text = "POST /v1/prepare?maxBytes=5MB HTTP/1.1\r\nHost: example.com:8080\r\nContent-Length: 007\r\nX-Note:\tcafé \r\n\r\n"
        let head = try Self.head(text + "abcdefg")
        #expect(head.method == "POST" && head.target == "/v1/prepare?maxBytes=5MB" && head.version == .http11)
        #expect(head.framing == .length(7) && head.framing.hasBody)
        #expect(head.byteCount == text.utf8.count)
        #expect(try Self.head("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n").framing == .chunked)
        #expect(try Self.head("POST / HTTP/1.1\r\nHost: x\r\ntransfer-encoding:\tCHUNKED\r\n\r\n").framing == .chunked)
        #expect(try Self.head("POST / HTTP/1.1\r\nHost: x\r\ncontent-length:5\r\n\r\n").framing == .length(5))
        #expect(try Self.head("GET /healthz HTTP/1.0\r\n\r\n").framing == .none)
        #expect(try Self.head("GET / HTTP/1.1\r\nHost: [::1]:80\r\nContent-Length: 0\r\n\r\n").framing.hasBody == false)
        #expect(try Self.head("GET / HTTP/1.1\r\nHost:\r\n\r\n").version == .http11, "an empty Host is allowed (RFC 9110 §7.2)")
    }

    @Test("bytes after the head (a body with NULs, bare CRs) are never looked at")
    func bodyNotScanned() throws {
        let head = try Self.head("POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n\0\r\u{1}\n")
        #expect(head.framing == .length(4))
    }

    /// Heads smuggled past a parser that reads them differently (issue 27), and the rest RFC 9112
    /// says a server must refuse: each is refused with its code and a message naming the fault.
    static let refused: [(name: String, head: String, code: ErrorCode, says: String)] = [
        ("space before the colon of Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\n", .malformedRequest, "colon"),
        ("space before the colon of Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n", .malformedRequest, "colon"),
        ("tab before the colon", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length\t: 5\r\n\r\n", .malformedRequest, "colon"),
        ("obs-fold hiding Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nX: y\r\n Transfer-Encoding: chunked\r\n\r\n", .malformedRequest, "obs-fold"),
        ("obs-fold with a tab", "POST / HTTP/1.1\r\nHost: x\r\nX: y\r\n\tz\r\n\r\n", .malformedRequest, "obs-fold"),
        ("bare CR hiding Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nX: y\rTransfer-Encoding: chunked\r\n\r\n", .malformedRequest, "bare CR"),
        ("bare LF", "POST / HTTP/1.1\r\nHost: x\nContent-Length: 5\r\n\r\n", .malformedRequest, "bare LF"),
        ("bare LF line endings throughout", "GET / HTTP/1.1\nHost: x\n\n", .malformedRequest, "bare LF"),
        ("NUL in a value", "GET / HTTP/1.1\r\nHost: x\r\nX: a\0b\r\n\r\n", .malformedRequest, "NUL"),
        ("NUL in the request line", "GET /\0 HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequest, "NUL"),
        ("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .malformedRequest, "Host"),
        ("two Host fields in HTTP/1.0", "GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", .malformedRequest, "Host"),
        ("no Host in HTTP/1.1", "GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", .malformedRequest, "Host"),
        ("a Host that is no host", "GET / HTTP/1.1\r\nHost: a b/c\r\n\r\n", .malformedRequest, "Host"),
        ("Content-Length +5", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\n", .malformedRequest, "Content-Length"),
        ("Content-Length as a list 5, 5", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\n", .malformedRequest, "Content-Length"),
        ("Content-Length twice, equal", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", .malformedRequest, "Content-Length"),
        ("Content-Length twice, different", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\n", .malformedRequest, "Content-Length"),
        ("Content-Length negative", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", .malformedRequest, "Content-Length"),
        ("Content-Length hexadecimal", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0x5\r\n\r\n", .malformedRequest, "Content-Length"),
        ("Content-Length empty", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", .malformedRequest, "Content-Length"),
        ("Content-Length of 19 digits", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9999999999999999999\r\n\r\n", .malformedRequest, "Content-Length"),
        ("Content-Length with Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n", .malformedRequest, "together"),
        ("Transfer-Encoding gzip", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", .malformedRequest, "final"),
        ("Transfer-Encoding identity", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n", .malformedRequest, "final"),
        ("Transfer-Encoding chunked, identity", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n", .malformedRequest, "final"),
        ("Transfer-Encoding chunked then identity in two fields", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n", .malformedRequest, "final"),
        ("Transfer-Encoding chunked twice", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", .malformedRequest, "more than once"),
        ("Transfer-Encoding empty", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n\r\n", .malformedRequest, "final"),
        ("Transfer-Encoding with a parameter", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked;x=1\r\n\r\n", .malformedRequest, "final"),
        ("Transfer-Encoding as a list that comes down to chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: , chunked\r\n\r\n", .malformedRequest, "alone"),
        ("Transfer-Encoding empty, then chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\nTransfer-Encoding: chunked\r\n\r\n", .malformedRequest, "alone"),
        ("whitespace after Transfer-Encoding: chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked \r\n\r\n", .malformedRequest, "whitespace after"),
        ("whitespace after Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\t\r\n\r\n", .malformedRequest, "whitespace after"),
        ("Transfer-Encoding gzip, chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedCoding, "gzip"),
        ("Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .malformedRequest, "HTTP/1.0"),
        ("a field name with a bracket", "GET / HTTP/1.1\r\nHost: x\r\nBad[Name]: 1\r\n\r\n", .malformedRequest, "token"),
        ("a field name with a space inside", "GET / HTTP/1.1\r\nHost: x\r\nContent Length: 5\r\n\r\n", .malformedRequest, "token"),
        ("a field name that is not ASCII", "GET / HTTP/1.1\r\nHost: x\r\nNäme: 1\r\n\r\n", .malformedRequest, "token"),
        ("an empty field name", "GET / HTTP/1.1\r\nHost: x\r\n: 1\r\n\r\n", .malformedRequest, "token"),
        ("a field line without a colon", "GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", .malformedRequest, "colon"),
        ("a control byte in a value", "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{1}b\r\n\r\n", .malformedRequest, "control"),
        ("DEL in a value", "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{7F}b\r\n\r\n", .malformedRequest, "control"),
        ("two spaces in the request line", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequest, "request line"),
        ("no version", "GET /\r\nHost: x\r\n\r\n", .malformedRequest, "request line"),
        ("a method that is no token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequest, "request line"),
        ("a target that is not ASCII", "GET /é HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequest, "target"),
        ("an empty line before the request line", "\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequest, "request line"),
        ("a version that is no version", "GET / HTTP/1.1x\r\nHost: x\r\n\r\n", .malformedRequest, "version"),
        ("HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", .unsupportedVersion, "HTTP/2.0"),
        ("HTTP/0.9", "GET / HTTP/0.9\r\nHost: x\r\n\r\n", .unsupportedVersion, "HTTP/0.9"),
    ]

    @Test("refused, with the code and a message naming the fault", arguments: refused.indices)
    func refusals(_ index: Int) {
        let item = Self.refused[index]
        let error = Self.refusal(item.head)
        #expect(error?.code == item.code, "\(item.name): \(error.map { "\($0.code): \($0.message)" } ?? "accepted")")
        #expect(error?.message.contains(item.says) == true, "\(item.name): \(error?.message ?? "accepted")")
    }

    @Test("a head over 16 KiB is 431 header-too-large as soon as its bytes pass the limit; one just under it is read")
    func size() throws {
        let start = "GET / HTTP/1.1\r\nHost: x\r\nX: "
        let under = start + String(repeating: "a", count: RequestHead.maxBytes - start.utf8.count - 4) + "\r\n\r\n"
        #expect(under.utf8.count == RequestHead.maxBytes)
        #expect(try Self.head(under).byteCount == RequestHead.maxBytes)
        let over = start + String(repeating: "a", count: RequestHead.maxBytes) + "\r\n\r\n"
        #expect(Self.refusal(over)?.code == .headerTooLarge)
        // Refused once the limit is passed, without waiting for an end that may never come.
        var scanner = HeadScanner()
        let bytes = Array((start + String(repeating: "a", count: RequestHead.maxBytes)).utf8)
        #expect(throws: ServiceError.self) { try scanner.scan(bytes[0...]) }
    }

    @Test("an incomplete head waits for more, and a smuggling byte is refused before the head ends")
    func incremental() throws {
        var scanner = HeadScanner()
        #expect(try scanner.scan(Array("POST / HTTP/1.1\r\nHost: x\r".utf8)[0...]) == .incomplete)
        #expect(try scanner.scan(Array("POST / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)[0...]) == .complete(count: 28))
        var early = HeadScanner()
        #expect(throws: ServiceError.self) { try early.scan(Array("POST / HTTP/1.1\r\nX: a\rb".utf8)[0...]) }
    }

    @Test("RequestFraming: one length, chunked alone, or none; the rest refused")
    func framing() throws {
        #expect(try RequestFraming(contentLengths: ["12"], transferEncodings: [], version: .http11) == .length(12))
        #expect(try RequestFraming(contentLengths: [], transferEncodings: ["chunked"], version: .http11) == .chunked)
        #expect(try RequestFraming(contentLengths: [], transferEncodings: [], version: .http10) == .none)
        #expect(RequestFraming.length(0).hasBody == false && RequestFraming.none.hasBody == false && RequestFraming.chunked.hasBody)
        #expect(throws: ServiceError.self) { try RequestFraming(contentLengths: ["12", "12"], transferEncodings: [], version: .http11) }
        #expect(throws: ServiceError.self) { try RequestFraming(contentLengths: ["40"], transferEncodings: ["chunked"], version: .http11) }
    }
}
