#if canImport(Glibc)
import Glibc
#endif

/// Where access may be granted: a folder (everything below it) or one explicitly granted file.
/// The iOS analogue is a security-scoped URL: a handle is only ever granted inside one.
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

    /// A folder scope.
    /// - Throws: ``AccessError/notFound(path:)`` when the folder does not exist.
    public static func folder(_ path: String) throws(AccessError) -> AccessScope {
        guard let resolved = PathResolver.realPath(PathResolver.absolute(path)) else { throw .notFound(path: path) }
        return AccessScope(root: resolved, kind: .folder)
    }

    /// A scope granting exactly one existing file.
    /// - Throws: ``AccessError/notFound(path:)`` when the file does not exist.
    public static func file(_ path: String) throws(AccessError) -> AccessScope {
        guard let resolved = PathResolver.realPath(PathResolver.absolute(path)) else { throw .notFound(path: path) }
        return AccessScope(root: resolved, kind: .file)
    }

    /// Whether a resolved absolute path lies inside this scope.
    public func contains(resolvedPath path: String) -> Bool {
        switch kind {
        case .file: return path == root
        case .folder: return path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
        }
    }

    public var description: String { kind == .folder ? "\(root)/" : root }
}

/// Path arithmetic without touching the file system, and `realpath(3)` where links must be followed.
enum PathResolver {
    /// `path` made absolute against the working directory (no normalisation).
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" + path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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

    /// `realpath(3)`: the absolute path with every symbolic link resolved, `nil` when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
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
