/// Why access to a path was refused or misused. Each case names the path and, for ledger
/// problems, where the handle was acquired.
public enum AccessError: CodedError, Equatable, CustomStringConvertible {
    /// The path does not exist (for reading) or its folder does not exist (for writing).
    case notFound(path: String)
    /// The path resolves (through `..` or a symbolic link) outside every allowed scope.
    case outsideScope(path: String, resolved: String)
    /// No scope was given at all.
    case noScope(path: String)
    /// The path kept changing while it was being opened (a symbolic link in it swapped back and
    /// forth), so the file checked could not be pinned down.
    case changed(path: String)
    /// The path is inside a scope but is not something that can be granted: a folder, a FIFO or a
    /// device where a file is read, a file where a folder is written into, or an `open` that failed.
    case unusable(path: String, reason: String)
    /// A handle was released a second time.
    case doubleRelease(path: String, acquiredAt: String)
    /// A handle went away without being released.
    case leaked(path: String, acquiredAt: String)

    /// Stable code: `not-found`, `access-denied`, `unreadable`, `double-release`, `handle-leak`.
    public var code: ErrorCode {
        switch self {
        case .notFound: return .notFound
        case .outsideScope, .noScope, .changed: return .accessDenied
        case .unusable: return .unreadable
        case .doubleRelease: return .doubleRelease
        case .leaked: return .handleLeak
        }
    }

    public var message: String { description }

    public var description: String {
        switch self {
        case .notFound(let path): return "\(path): no such file or folder"
        case .outsideScope(let path, let resolved):
            return "\(path) resolves to \(resolved), which escapes every allowed scope"
        case .noScope(let path): return "\(path): no access scope was granted"
        case .changed(let path): return "\(path) changed while it was being opened (the file was replaced, or a symbolic link on its path swapped), refused"
        case .unusable(let path, let reason): return "\(path): \(reason)"
        case .doubleRelease(let path, let site): return "access handle for \(path) (acquired at \(site)) released twice"
        case .leaked(let path, let site): return "access handle for \(path) (acquired at \(site)) was never released"
        }
    }
}
