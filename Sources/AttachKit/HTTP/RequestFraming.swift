/// How a request's body is delimited, read from all its raw `Content-Length` and
/// `Transfer-Encoding` headers before any of the body is read. A message that two parsers could
/// delimit differently (RFC 9112 §6.3: differing `Content-Length` values, or `Content-Length`
/// with `Transfer-Encoding`) is refused: behind a proxy that reads the other value it would
/// smuggle a request.
package enum RequestFraming {
    /// The body's declared length (`nil`: none declared, or chunked).
    /// - Parameters:
    ///   - contentLengths: every `Content-Length` header's value, in order (as libmicrohttpd
    ///     gives them: spaces trimmed).
    ///   - transferEncodings: every `Transfer-Encoding` header's value.
    /// - Throws: ``ServiceError`` `malformed-request` (400; the connection is then closed) for
    ///   differing `Content-Length` values, or `Content-Length` with `Transfer-Encoding`.
    package static func contentLength(_ contentLengths: [String], transferEncodings: [String]) throws(ServiceError) -> Int64? {
        guard Set(contentLengths).count <= 1 else {
            throw ServiceError(code: .malformedRequest, message: "conflicting Content-Length headers (\(contentLengths.joined(separator: ", "))): the body's length is ambiguous")
        }
        guard contentLengths.isEmpty || transferEncodings.isEmpty else {
            throw ServiceError(code: .malformedRequest, message: "Content-Length and Transfer-Encoding together: the body's length is ambiguous")
        }
        return contentLengths.first.flatMap { Int64($0) }
    }
}
