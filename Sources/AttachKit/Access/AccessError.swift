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

extension AccessError {
    /// The real path of `path` (made absolute), or why it has none, in the code that fits:
    /// `not-found` when nothing is there; `unreadable` for a symbolic link loop (`ELOOP`), a
    /// folder on the way that cannot be searched (`EACCES`), a path or name too long
    /// (`ENAMETOOLONG`), and a name that is not UTF-8 (the text has U+FFFD where its bytes were,
    /// so it names nothing).
    static func resolving(_ path: String) throws(AccessError) -> String {
        switch PathResolver.resolve(PathResolver.absolute(path)) {
        case .success(let resolved): return resolved
        case .failure(let error): throw AccessError(resolving: path, error)
        }
    }

    /// Why `path` could not be resolved (`realpath` failed with `error`).
    init(resolving path: String, _ error: SystemError) {
        let missing = error == .noEntry || error == .notDirectory
        if missing, path.contains("\u{FFFD}") {
            self = .unusable(path: path, reason: "the file name is not valid UTF-8 (shown here with U+FFFD), so it cannot be named; rename the file")
            return
        }
        switch error {
        case .noEntry, .notDirectory: self = .notFound(path: path)
        case .tooManySymbolicLinks: self = .unusable(path: path, reason: "a symbolic link loop (\(error)): the path never reaches a file")
        case .permissionDenied: self = .unusable(path: path, reason: "a folder on the way cannot be searched (\(error))")
        case .nameTooLong: self = .unusable(path: path, reason: "the path is too long (\(error))")
        default: self = .unusable(path: path, reason: "cannot be resolved (\(error))")
        }
    }
}
