/// How a request's body is delimited (RFC 9112 §6), read from all its raw `Content-Length` and
/// `Transfer-Encoding` field values before any of the body is read, by ``RequestHead``. Only one
/// reading is accepted: a message two parsers could delimit differently (and so smuggle a
/// request through a proxy that reads it the other way) is refused, never repaired.
///
/// - One `Content-Length`, decimal digits only (at most 18). Two of them, even equal, or a list
///   (`5, 5`) is refused: no client needs either, and accepting them is how parsers come to
///   disagree.
/// - `Transfer-Encoding: chunked` alone, in one field (any case). `chunked` must be the final
///   coding (else 400, RFC 9112 §6.1: `gzip`, `identity`, `chunked, identity`), applied once;
///   another coding before it (`gzip, chunked`) is 501 `unsupported-coding`: the server decodes
///   none. A list that comes down to `chunked` (`, chunked`, or a second, empty field) is refused
///   too: libmicrohttpd, which reads the body, takes only the first field's whole value.
/// - Not both, and no `Transfer-Encoding` in an HTTP/1.0 request (faulty framing, §6.1).
package enum RequestFraming: Sendable, Equatable {
    /// No body.
    case none
    /// A body of this many bytes (0 is no body).
    case length(Int64)
    /// A chunked body.
    case chunked

    /// Whether a body follows the head.
    package var hasBody: Bool { self == .chunked || (self != .none && self != .length(0)) }

    /// The declared length; `nil` for none or chunked.
    package var declaredLength: Int64? {
        if case .length(let count) = self { return count }
        return nil
    }

    /// - Parameters:
    ///   - contentLengths: every `Content-Length` field's value, in order, trimmed.
    ///   - transferEncodings: every `Transfer-Encoding` field's value.
    /// - Throws: ``ServiceError`` `malformed-request` (400) for what the list above refuses,
    ///   `unsupported-coding` (501) for a coding other than `chunked`.
    package init(contentLengths: [String], transferEncodings: [String], version: RequestHead.Version) throws(ServiceError) {
        guard contentLengths.isEmpty || transferEncodings.isEmpty else {
            throw RequestHead.malformed("Content-Length and Transfer-Encoding together: the body's length is ambiguous")
        }
        if !transferEncodings.isEmpty {
            guard version == .http11 else { throw RequestHead.malformed("Transfer-Encoding in an HTTP/1.0 request (RFC 9112 §6.1)") }
            try Self.checkCodings(transferEncodings)
            self = .chunked
            return
        }
        guard let length = contentLengths.first else {
            self = .none
            return
        }
        guard contentLengths.count == 1 else {
            throw RequestHead.malformed("\(contentLengths.count) Content-Length fields (\(contentLengths.joined(separator: ", "))); send one")
        }
        self = .length(try Self.length(length))
    }

    /// `1*DIGIT`, at most 18 digits (so it is an `Int64`).
    private static func length(_ text: String) throws(ServiceError) -> Int64 {
        guard !text.isEmpty, text.utf8.allSatisfy(HTTPBytes.isDigit), text.utf8.count <= 18, let value = Int64(text) else {
            throw RequestHead.malformed("Content-Length \(text.debugDescription) is not one decimal number of at most 18 digits")
        }
        return value
    }

    /// `chunked` alone, once and last.
    private static func checkCodings(_ values: [String]) throws(ServiceError) {
        let codings = values.flatMap { $0.split(separator: ",") }.map { HTTPBytes.asciiLowercased(HTTPBytes.trimmed($0)) }.filter { !$0.isEmpty }
        let shown = values.joined(separator: ", ").debugDescription
        guard let last = codings.last, last == "chunked" else {
            throw RequestHead.malformed("Transfer-Encoding \(shown): chunked must be the final coding of a request (RFC 9112 §6.1)")
        }
        let others = codings.dropLast()
        guard !others.contains("chunked") else { throw RequestHead.malformed("Transfer-Encoding \(shown) applies chunked more than once") }
        guard others.isEmpty else {
            throw ServiceError(code: .unsupportedCoding, message: "Transfer-Encoding \(shown): only chunked is supported, not \(others.joined(separator: ", "))")
        }
        guard values.count == 1, HTTPBytes.asciiLowercased(values[0]) == "chunked" else {
            throw RequestHead.malformed("Transfer-Encoding \(shown): send chunked alone, in one field")
        }
    }
}
