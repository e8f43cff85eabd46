/// A request's head (request line and header fields, RFC 9112 §2-§6) as `attachkit http` reads it
/// before anything else sees the request: the one authority on what the request is and how its
/// body is framed. libmicrohttpd is handed only heads this parser accepts, and those it reads the
/// same way (one request line, token field names, one `Host`, at most one framing header).
///
/// Strict, because two parsers that read one message differently smuggle requests: whitespace
/// between a field name and its colon, a line folded onto the previous one (obs-fold), a CR or LF
/// on its own, a NUL, a field name with a character outside `token`, a missing or repeated `Host`
/// and every framing the RFC calls faulty (``RequestFraming``) are refused, never repaired.
package struct RequestHead: Sendable, Equatable {
    /// The HTTP versions served.
    package enum Version: String, Sendable {
        case http10 = "HTTP/1.0"
        case http11 = "HTTP/1.1"
    }

    /// The method, as sent (`POST`; methods are case-sensitive).
    package let method: String
    /// The request target, as sent (`/v1/prepare?maxBytes=5MB`); ``RequestTarget`` splits it.
    package let target: String
    package let version: Version
    /// How the body is delimited.
    package let framing: RequestFraming
    /// The client's `X-Request-Id`, when it sent exactly one that is sane (``saneRequestID(_:)``);
    /// `nil` otherwise (the server makes one up).
    package var requestID: String? = nil
    /// Bytes of the head, its final empty line included: where the body starts.
    package let byteCount: Int
    /// The client's `If-None-Match` and `If-Modified-Since` (each when sent once), for URL mode's 304.
    package var ifNoneMatch: String? = nil
    package var ifModifiedSince: String? = nil

    /// The longest head accepted, bytes (16 KiB; libmicrohttpd is given 256 KiB per connection, so
    /// it never refuses a head this parser accepted). Longer: 431 `header-too-large`.
    package static let maxBytes = 16_384
    /// The most header fields accepted (Apache's `LimitRequestFields`). Each field costs
    /// libmicrohttpd a record in the connection's memory: 4,000 two-byte fields fit in 16 KiB but
    /// not in its pool, and got its HTML 431. More: 431 `header-too-large`.
    package static let maxFields = 100

    /// Reads a complete head: `bytes` up to and including its empty line (``HeadScanner``).
    /// - Throws: ``ServiceError`` `malformed-request` (400) naming what is wrong,
    ///   `unsupported-version` (505), `unsupported-coding` (501, ``RequestFraming``),
    ///   `header-too-large` (431) past ``maxFields`` fields.
    package static func parse(_ bytes: ArraySlice<UInt8>) throws(ServiceError) -> RequestHead {
        let lines = Self.lines(of: bytes)
        guard let first = lines.first, !first.isEmpty else { throw malformed("the request does not start with a request line") }
        // The request line, then the fields.
        guard lines.count <= maxFields + 1 else {
            throw ServiceError(code: .headerTooLarge, message: "the request's head has \(lines.count - 1) header fields; at most \(maxFields) are read")
        }
        let line = try RequestLine(first)
        var fields: [HeaderField] = []
        for text in lines.dropFirst() { fields.append(try HeaderField(text)) }
        try checkHost(fields, version: line.version)
        if let field = fields.first(where: { $0.endsInBlank && Self.framingFields.contains($0.name) }) {
            throw malformed("whitespace after the value of \(field.name) \(field.value.debugDescription): refused, as libmicrohttpd would not read it as this server does")
        }
        let framing = try RequestFraming(contentLengths: fields.values(of: "content-length"),
                                         transferEncodings: fields.values(of: "transfer-encoding"), version: line.version)
        let ids = fields.values(of: "x-request-id")
        let tags = fields.values(of: "if-none-match"), since = fields.values(of: "if-modified-since")
        return RequestHead(method: line.method, target: line.target, version: line.version, framing: framing,
                           requestID: ids.count == 1 ? saneRequestID(ids[0]) : nil, byteCount: bytes.count,
                           ifNoneMatch: tags.count == 1 ? tags[0] : nil, ifModifiedSince: since.count == 1 ? since[0] : nil)
    }

    /// `value` when it can be echoed and logged as it is: 1 to 128 visible ASCII characters
    /// (`!`...`~`, no space, no quote or backslash); `nil` otherwise.
    package static func saneRequestID(_ value: String) -> String? {
        let bytes = value.utf8
        guard (1...128).contains(bytes.count), bytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }) else { return nil }
        return value
    }

    /// The lines between the CRLFs, the final empty line left out (``HeadScanner`` has checked
    /// that every CR is followed by LF and every LF follows a CR).
    private static func lines(of bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if bytes[index] == HTTPBytes.cr && bytes[index + 1] == HTTPBytes.lf {
                lines.append(bytes[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        return Array(lines.dropLast())
    }

    /// RFC 9112 §3.2: HTTP/1.1 needs exactly one `Host`, HTTP/1.0 at most one, and its value must
    /// be a host with an optional port.
    private static func checkHost(_ fields: [HeaderField], version: Version) throws(ServiceError) {
        let hosts = fields.values(of: "host")
        guard hosts.count <= 1 else { throw malformed("\(hosts.count) Host header fields; a request has one") }
        guard let host = hosts.first else {
            if version == .http11 { throw malformed("an HTTP/1.1 request without a Host header field") }
            return
        }
        guard HTTPBytes.isHost(host) else { throw malformed("the Host \(host.debugDescription) is not a host with an optional port") }
    }

    /// The fields that frame the body: libmicrohttpd reads their values without trimming the
    /// whitespace after them (`Content-Length: 5 ` is a 400 of its own, `Transfer-Encoding:
    /// chunked ` is not chunked to it), so such a value is refused rather than read another way.
    private static let framingFields: Set<String> = ["content-length", "transfer-encoding"]

    static func malformed(_ message: String) -> ServiceError { ServiceError(code: .malformedRequest, message: message) }
}

/// `method SP request-target SP HTTP-version` (RFC 9112 §3), single spaces, nothing else.
struct RequestLine {
    let method: String
    let target: String
    let version: RequestHead.Version

    init(_ line: ArraySlice<UInt8>) throws(ServiceError) {
        let parts = line.split(separator: HTTPBytes.space, omittingEmptySubsequences: false)
        guard parts.count == 3, let methodBytes = parts.first, !methodBytes.isEmpty, methodBytes.allSatisfy(HTTPBytes.isTokenByte) else {
            throw RequestHead.malformed("the request line \(HTTPBytes.shown(line)) is not METHOD SP TARGET SP HTTP/1.1")
        }
        guard !parts[1].isEmpty, parts[1].allSatisfy(HTTPBytes.isVisible) else {
            throw RequestHead.malformed("the request target \(HTTPBytes.shown(parts[1])) is empty or holds a byte that is not visible ASCII")
        }
        method = String(decoding: methodBytes, as: UTF8.self)
        target = String(decoding: parts[1], as: UTF8.self)
        version = try Self.version(parts[2])
    }

    /// `HTTP/1.0` or `HTTP/1.1`; another `HTTP/d.d` is 505, anything else 400.
    private static func version(_ bytes: ArraySlice<UInt8>) throws(ServiceError) -> RequestHead.Version {
        let text = String(decoding: bytes, as: UTF8.self)
        if let version = RequestHead.Version(rawValue: text) { return version }
        let digits = Array(bytes.dropFirst(5))
        if text.hasPrefix("HTTP/"), digits.count == 3, digits[1] == UInt8(ascii: "."),
           HTTPBytes.isDigit(digits[0]), HTTPBytes.isDigit(digits[2]) {
            throw ServiceError(code: .unsupportedVersion, message: "\(text) is not served; send HTTP/1.1 (or HTTP/1.0)")
        }
        throw RequestHead.malformed("the request line ends in \(HTTPBytes.shown(bytes)), not an HTTP version")
    }
}

/// One field line, `field-name ":" OWS field-value OWS` (RFC 9112 §5): the name a token right
/// before the colon, the value visible bytes, spaces and tabs (obs-text allowed, no control byte).
struct HeaderField {
    /// Lowercased.
    let name: String
    /// Without the spaces and tabs around it.
    let value: String
    /// Whether spaces or tabs followed the value.
    let endsInBlank: Bool

    init(_ line: ArraySlice<UInt8>) throws(ServiceError) {
        guard let first = line.first, !HTTPBytes.isBlank(first) else {
            throw RequestHead.malformed("a header line starts with a space or tab (obs-fold, RFC 9112 §5.2): line folding is refused")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw RequestHead.malformed("the header line \(HTTPBytes.shown(line)) has no colon")
        }
        let nameBytes = line[..<colon]
        if let last = nameBytes.last, HTTPBytes.isBlank(last) {
            throw RequestHead.malformed("whitespace between the field name \(HTTPBytes.shown(nameBytes)) and its colon (RFC 9112 §5.1)")
        }
        guard !nameBytes.isEmpty, nameBytes.allSatisfy(HTTPBytes.isTokenByte) else {
            throw RequestHead.malformed("the field name \(HTTPBytes.shown(nameBytes)) is empty or holds a character outside token (RFC 9110 §5.1)")
        }
        let valueBytes = HTTPBytes.trimmingBlanks(line[(colon + 1)...])
        guard valueBytes.allSatisfy(HTTPBytes.isFieldValueByte) else {
            throw RequestHead.malformed("the value of \(HTTPBytes.shown(nameBytes)) holds a control byte")
        }
        name = HTTPBytes.asciiLowercased(String(decoding: nameBytes, as: UTF8.self))
        value = String(decoding: valueBytes, as: UTF8.self)
        endsInBlank = line.last.map(HTTPBytes.isBlank) ?? false
    }
}

extension [HeaderField] {
    /// The values of every field named `name` (lowercase), in order.
    func values(of name: String) -> [String] { filter { $0.name == name }.map(\.value) }
}
