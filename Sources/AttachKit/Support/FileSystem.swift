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

    /// The working directory.
    public static var currentDirectory: String { PathResolver.absolute(".").dropLastComponentIfDot }

    /// Every file under `folder` (relative paths, sorted), hidden entries skipped, linked folders
    /// not descended: the walk batches use.
    public static func files(under folder: String) -> [String] { InputWalker.files(under: folder) }

    /// The same walk, with what it could not list or look at (``FolderListing/unlistable``).
    public static func listing(under folder: String) -> FolderListing { InputWalker.listing(under: folder) }
}

private extension String {
    var dropLastComponentIfDot: String { hasSuffix("/.") ? String(dropLast(2)) : self }
}
