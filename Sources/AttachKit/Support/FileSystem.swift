/// File-system helpers on plain POSIX calls.
public enum FileSystem {
    /// Whether `path` is a folder (symbolic links followed).
    public static func isDirectory(_ path: String) -> Bool {
        FileNames.statusIfPresent(path)?.kind == .directory
    }

    /// Whether anything exists at `path` (symbolic links followed).
    public static func exists(_ path: String) -> Bool {
        FileNames.statusIfPresent(path) != nil
    }

    /// Size in bytes of the file at `path`, 0 when it cannot be read.
    public static func size(_ path: String) -> Int64 {
        FileNames.statusIfPresent(path)?.size ?? 0
    }

    /// Creates `path` and any missing parents (mode 0755); `true` when it exists as a folder afterwards.
    @discardableResult
    public static func makeFolders(_ path: String) -> Bool { folderFailure(path) == nil }

    /// ``makeFolders(_:)``, saying why it failed: `nil` when `path` exists as a folder afterwards,
    /// else the `errno` of the call that failed.
    static func folderFailure(_ path: String) -> SystemError? {
        if isDirectory(path) { return nil }
        let absolute = PathResolver.absolute(path)
        var current = ""
        for part in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            current += "/" + part
            if !isDirectory(current) {
                do { try FileNames.makeFolder(current, mode: 0o755) } catch where error != .exists { return error } catch {}
            }
        }
        do { return try FileNames.status(path).kind == .directory ? nil : .notDirectory } catch { return error }
    }

    /// A new folder (mode 0700) named `prefix` and six random characters (`mkdtemp(3)`).
    public static func makeTemporaryFolder(prefix: String) throws(SystemError) -> String {
        try FileNames.makeTemporaryFolder(prefix: prefix)
    }

    /// Removes `path` and everything under it, without following symbolic links.
    public static func removeTree(_ path: String) {
        guard let status = FileNames.statusIfPresent(path, followingLinks: false) else { return }
        if status.kind == .directory, let names = DirectoryStream.names(in: path) {
            for name in names { removeTree(path + "/" + name) }
            try? FileNames.removeFolder(path)
        } else {
            try? FileNames.remove(path)
        }
    }

    /// The folder part of a path (`.` when there is none, `/` for a file at the root).
    public static func parent(of path: String) -> String { PathResolver.directory(path) }

    /// The exact names of the entries of `folder` itself (not descended; `.` and `..` included),
    /// empty when it cannot be listed.
    static func names(in folder: String) -> [String] {
        DirectoryStream.names(in: folder, includingDots: true) ?? []
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
        try? FileNames.remove(path)
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
        guard let status = FileNames.statusIfPresent(path, followingLinks: false) else { return }
        switch status.kind {
        case .symbolicLink:
            throw .system(operation: "open", path: path, reason: "it is a symbolic link, which a run never writes through")
        case .regular where status.linkCount <= 1:
            return
        default:
            throw .system(operation: "open", path: path, reason: "it is not a file of its own (a folder, a device, or a hard link to another file), which a run never writes")
        }
    }

    static func openOwnFile(_ path: String, flags: FileDescriptor.OpenOptions, mode: UInt32 = 0o644) throws(OutputError) -> FileDescriptor {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, flags.union(.noFollow), mode: mode) } catch {
            let reason = error == .tooManySymbolicLinks ? "it is a symbolic link, which a run never writes through" : error.description
            throw .system(operation: "open", path: path, reason: reason)
        }
        guard let status = try? fd.status(), status.kind == .regular, status.linkCount <= 1 else {
            throw .system(operation: "open", path: path, reason: "it is not a file of its own (a folder, a device, or a hard link to another file), which a run never writes")
        }
        return fd
    }
}

private extension String {
    var dropLastComponentIfDot: String { hasSuffix("/.") ? String(dropLast(2)) : self }
}
