/// Why an output could not be written. Every case leaves no partial file behind.
public enum OutputError: CodedError, Equatable, CustomStringConvertible {
    /// The output folder is outside the allowed scopes, or missing.
    case access(AccessError)
    /// A system call failed: `operation` (create, write, fsync, rename), the path and `errno`'s text
    /// (e.g. "No space left on device", "Permission denied").
    case system(operation: String, path: String, reason: String)

    /// Stable code: the access error's, or `write-failed`.
    public var code: ErrorCode {
        switch self {
        case .access(let error): return error.code
        case .system: return .writeFailed
        }
    }

    public var message: String { description }

    public var description: String {
        switch self {
        case .access(let error): return error.description
        case .system(let operation, let path, let reason): return "\(operation) \(path): \(reason)"
        }
    }
}
