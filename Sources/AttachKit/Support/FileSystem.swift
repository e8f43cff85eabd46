#if canImport(Glibc)
import Glibc
#endif

/// File-system helpers on plain POSIX calls.
public enum FileSystem {
    /// Whether `path` is a folder (symbolic links followed).
    public static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether anything exists at `path` (symbolic links followed).
    public static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// Size in bytes of the file at `path`, 0 when it cannot be read.
    public static func size(_ path: String) -> Int64 {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Creates `path` and any missing parents (mode 0755); `true` when it exists as a folder afterwards.
    @discardableResult
    public static func makeFolders(_ path: String) -> Bool {
        if isDirectory(path) { return true }
        let absolute = PathResolver.absolute(path)
        var current = ""
        for part in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + part
            if !isDirectory(current) && mkdir(current, 0o755) != 0 && errno != EEXIST { return false }
        }
        return isDirectory(path)
    }

    /// The folder part of a path (`.` when there is none, `/` for a file at the root).
    public static func parent(of path: String) -> String { PathResolver.directory(path) }

    /// The exact names of the entries of `folder` itself (not descended; `.` and `..` included),
    /// empty when it cannot be listed.
    static func names(in folder: String) -> [String] {
        guard let stream = opendir(folder) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            names.append(withUnsafePointer(to: entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } })
        }
        return names
    }

    /// The working directory.
    public static var currentDirectory: String { PathResolver.absolute(".").dropLastComponentIfDot }

    /// Every file under `folder` (relative paths, sorted), hidden entries skipped, linked folders
    /// not descended: the walk batches use.
    public static func files(under folder: String) -> [String] { InputWalker.files(under: folder) }

    /// The same walk, with what it could not list or look at (``FolderListing/unlistable``).
    public static func listing(under folder: String) -> FolderListing { InputWalker.listing(under: folder) }

    /// Removes the file at `path` only while it is still `version` (the file this run just wrote
    /// there); anything else now at that name is left. `version` `nil`: nothing is removed.
    static func removeOwnFile(_ path: String, version: FileVersion?) {
        guard let version, FileVersion(path: path) == version else { return }
        unlink(path)
    }

    /// Opens (with `O_CREAT` in `flags`, creating) a file a run keeps for itself — a batch's
    /// lock, its manifest — and never one that is someone else's: a symbolic link is not followed
    /// (`O_NOFOLLOW`), and a file that is not a regular file or has another name too (a hard link:
    /// it could be an input) is refused before a byte of it is changed. `O_CLOEXEC` is added.
    /// - Throws: ``OutputError/system(operation:path:reason:)``.
    /// Checks that `path`, when something is there, is a file of the run's own as ``openOwnFile(_:flags:mode:)``
    /// requires (a regular file, not a symbolic link, with one name), before it is read or replaced.
    /// - Throws: ``OutputError/system(operation:path:reason:)`` naming what it is otherwise.
    static func checkOwnFileIfPresent(_ path: String) throws(OutputError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        switch status.st_mode & S_IFMT {
        case S_IFLNK:
            throw .system(operation: "open", path: path, reason: "it is a symbolic link, which a run never writes through")
        case S_IFREG where status.st_nlink <= 1:
            return
        default:
            throw .system(operation: "open", path: path, reason: "it is not a file of its own (a folder, a device, or a hard link to another file), which a run never writes")
        }
    }

    static func openOwnFile(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(OutputError) -> Int32 {
        let fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link, which a run never writes through" : String(cString: strerror(errno))
            throw .system(operation: "open", path: path, reason: reason)
        }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink <= 1 else {
            close(fd)
            throw .system(operation: "open", path: path, reason: "it is not a file of its own (a folder, a device, or a hard link to another file), which a run never writes")
        }
        return fd
    }
}

private extension String {
    var dropLastComponentIfDot: String { hasSuffix("/.") ? String(dropLast(2)) : self }
}
