/// Why an output could not be written. Every case leaves no partial file behind.
public enum OutputError: CodedError, Equatable, CustomStringConvertible {
    /// The output folder is outside the allowed scopes, or missing.
    case access(AccessError)
    /// A system call failed: `operation` (create, write, fsync, rename), the path and `errno`'s text
    /// (e.g. "No space left on device", "Permission denied").
    case system(operation: String, path: String, reason: String)
    /// The planned path is an input of the run (by name, or the same file through a link) or
    /// another path the run writes (``WritePlan``); `with` says which. Nothing was written.
    case collision(path: String, with: String)
    /// A file the run did not write is at the final name (another request wrote it meanwhile, a
    /// user put it there during the run, or it was there and is not the run's own); nothing was
    /// replaced. ``Preparer`` plans such a request again.
    case taken(path: String)

    /// Stable code: the access error's, `write-failed`, or `output-collision`.
    public var code: ErrorCode {
        switch self {
        case .access(let error): return error.code
        case .system: return .writeFailed
        case .collision, .taken: return .outputCollision
        }
    }

    public var message: String { description }

    public var description: String {
        switch self {
        case .access(let error): return error.description
        case .system(let operation, let path, let reason): return "\(operation) \(path): \(reason)"
        case .collision(let path, let with):
            return "\(path) would collide: \(with); inputs are never replaced and no two outputs share a name, so choose another path"
        case .taken(let path):
            return "\(path) is a file this run did not write (there before, or put there while this output was made) and is never replaced"
        }
    }
}
