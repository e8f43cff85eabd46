/// Why a fetch from the media origin gave no original, with the HTTP status to answer: the
/// code's own (``ErrorCode/httpStatus``), except a timeout, `origin-failed` with 504.
package struct OriginError: Error, Sendable {
    package let error: ServiceError
    package let status: Int

    package init(_ code: ErrorCode, _ message: String, status: Int? = nil) {
        error = ServiceError(code: code, message: message)
        self.status = status ?? code.httpStatus
    }

    package init(_ error: ServiceError) {
        self.error = error
        status = error.code.httpStatus
    }

    /// The outcome label of the origin-fetch metrics (`not-found`, `timed-out`, ...).
    package var outcome: String { status == 504 ? "timed-out" : error.code.rawValue }

    /// The answer to the request.
    package var response: HTTPResponse { .error(error, status: status) }
}
