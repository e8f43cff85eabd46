/// Where access may be granted: a folder (everything below it) or one explicitly granted file.
/// The iOS analogue is a security-scoped URL: a handle is only ever granted inside one.
///
/// A folder scope holds its root open (an `O_PATH` descriptor, shared by the copies of the value
/// and closed when the last one goes away): every handle is opened beneath that descriptor, so a
/// root renamed or replaced after the scope was made changes nothing. A file scope remembers the
/// file's identity (device and inode) and grants only that file.
public struct AccessScope: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Everything under a folder, following no symbolic link out of it.
        case folder
        /// One file, named explicitly (as a command-line argument names a file).
        case file
    }

    /// The scope's root with symbolic links resolved (absolute).
    public let root: String
    public let kind: Kind
    /// The root held open (folders) or its identity (files).
    let anchor: Anchor

    /// A folder scope.
    /// - Throws: ``AccessError/notFound(path:)`` when the folder does not exist.
    public static func folder(_ path: String) throws(AccessError) -> AccessScope {
        let resolved = try AccessError.resolving(path)
        guard let descriptor = try? FileDescriptor.open(resolved, [.pathOnly, .directory]) else { throw .notFound(path: path) }
        guard let identity = FileIdentity(descriptor: descriptor.rawValue) else { throw .notFound(path: path) }
        return AccessScope(root: resolved, kind: .folder, anchor: Anchor(descriptor: descriptor.release(), identity: identity))
    }

    /// A scope granting exactly one existing file.
    /// - Throws: ``AccessError/notFound(path:)`` when the file does not exist.
    public static func file(_ path: String) throws(AccessError) -> AccessScope {
        let resolved = try AccessError.resolving(path)
        // Only the identity is kept: a command line may name thousands of files.
        guard let descriptor = try? FileDescriptor.open(resolved, [.pathOnly, .noFollow]) else { throw .notFound(path: path) }
        guard let identity = FileIdentity(descriptor: descriptor.rawValue) else { throw .notFound(path: path) }
        return AccessScope(root: resolved, kind: .file, anchor: Anchor(descriptor: -1, identity: identity))
    }

    /// Whether a resolved absolute path lies inside this scope.
    public func contains(resolvedPath path: String) -> Bool {
        switch kind {
        case .file: return path == root
        case .folder: return path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
        }
    }

    /// `path` (resolved, inside the scope) relative to the root: "" for the root itself.
    func relative(_ path: String) -> String {
        path == root ? "" : String(path.dropFirst(root == "/" ? 1 : root.count + 1))
    }

    public var description: String { kind == .folder ? "\(root)/" : root }

    public static func == (lhs: AccessScope, rhs: AccessScope) -> Bool {
        lhs.root == rhs.root && lhs.kind == rhs.kind && lhs.anchor.identity == rhs.anchor.identity
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(root)
        hasher.combine(kind)
    }

    /// The open root of a folder scope (descriptor -1 for a file scope) and the root's identity.
    final class Anchor: Sendable {
        let descriptor: Int32
        let identity: FileIdentity

        init(descriptor: Int32, identity: FileIdentity) {
            self.descriptor = descriptor
            self.identity = identity
        }

        deinit {
            if descriptor >= 0 { FileDescriptor(adopting: descriptor).close() }
        }
    }
}

/// Path arithmetic without touching the file system, and `realpath(3)` where links must be followed.
enum PathResolver {
    /// `path` made absolute against the working directory (no normalisation).
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = FileNames.workingDirectoryPath() else { return "/" + path }
        return cwd == "/" ? "/" + path : cwd + "/" + path
    }

    /// Removes `.` and empty components and applies `..` textually (never above `/`).
    static func normalized(_ absolutePath: String) -> String {
        var parts: [Substring] = []
        for part in absolutePath.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `realpath(3)`: the absolute path with every symbolic link resolved, `nil` when it does not
    /// exist or cannot be resolved (``resolve(_:)`` says why).
    static func realPath(_ path: String) -> String? {
        try? resolve(path).get()
    }

    /// `realpath(3)`, or its `errno`: `ENOENT` (nothing there), `ELOOP` (a symbolic link loop),
    /// `EACCES` (a folder on the way cannot be searched), `ENAMETOOLONG`...
    static func resolve(_ path: String) -> Result<String, SystemError> {
        FileNames.realPath(path)
    }

    /// Longest path a file can have (Linux's `PATH_MAX`, in bytes, the terminating NUL included).
    static let maxPathBytes = 4096

    /// The absolute, normalized `path` with its links resolved as far as it exists: the real path
    /// of its longest existing ancestor, then the missing components (`missing`, outermost first).
    /// `nil` for a path over ``maxPathBytes``, which no file can have (and whose walk, one
    /// `realpath` per component, would cost a client's choosing).
    static func resolvedAsFarAsItExists(_ path: String) -> (existing: String, missing: [String])? {
        let absolute = normalized(absolute(path))
        guard absolute.utf8.count < maxPathBytes else { return nil }
        var existing = absolute
        var missing: [String] = []
        while realPath(existing) == nil, existing != "/" {
            missing.insert(fileName(existing), at: 0)
            existing = directory(existing)
        }
        return (realPath(existing) ?? existing, missing)
    }

    /// The last path component.
    static func fileName(_ path: String) -> String {
        String(path.split(separator: "/", omittingEmptySubsequences: true).last ?? "")
    }

    /// The folder part of a path (`.` when there is none).
    static func directory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The lower-cased extension of the last component without the dot, "" when there is none.
    static func fileExtension(_ path: String) -> String {
        let name = fileName(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }
}
