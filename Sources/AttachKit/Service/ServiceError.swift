/// Why a service request failed, with a stable code.
public struct ServiceError: CodedError, Equatable, CustomStringConvertible {
    /// `malformed-request` (not JSON, not an object, missing or mistyped fields), `unknown-op`,
    /// `bad-options` (an unknown or invalid option), `access-denied` (outside the allowed roots),
    /// or the operation's own code (`not-found`, `corrupt`, `cannot-fit`...).
    public let code: ErrorCode
    public let message: String

    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    /// Any coded error as the service answers it: its code and message.
    public init(_ error: some CodedError) {
        self.init(code: error.code, message: error.message)
    }

    public var description: String { "\(code): \(message)" }
}
