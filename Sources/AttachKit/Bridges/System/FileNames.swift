#if canImport(Glibc)
import Glibc
#endif

/// The calls on names in a folder (swift-system's `FilePath` operations, and the `*at` family):
/// each name is relative to `directory` (an open folder's ``FileDescriptor/rawValue``) or, by
/// default, to the working directory, or absolute. Failures throw the `errno` captured straight
/// after the call; `EINTR` is retried (``SystemCall``).
enum FileNames {
    static let workingDirectory = FileDescriptor.workingDirectory

    /// `fstatat(2)`; a symbolic link is itself unless `followingLinks`.
    static func status(_ name: String, in directory: Int32 = workingDirectory, followingLinks: Bool = true) throws(SystemError) -> FileStatus {
        var status = stat()
        try SystemCall.check { fstatat(directory, name, &status, followingLinks ? 0 : AT_SYMLINK_NOFOLLOW) }
        return FileStatus(status)
    }

    /// ``status(_:in:followingLinks:)``, `nil` when it fails (nothing there, not reachable).
    static func statusIfPresent(_ name: String, in directory: Int32 = workingDirectory, followingLinks: Bool = true) -> FileStatus? {
        try? status(name, in: directory, followingLinks: followingLinks)
    }

    /// `fchmodat(2)`: sets the permission bits of `name` (links followed); returns `name`.
    @discardableResult
    static func setPermissions(_ name: String, _ mode: UInt32, in directory: Int32 = workingDirectory) throws(SystemError) -> String {
        try SystemCall.check { fchmodat(directory, name, mode_t(mode), 0) }
        return name
    }

    /// `utimensat(2)` with no times: sets `name`'s access and modification times to now.
    static func touch(_ name: String, in directory: Int32 = workingDirectory) throws(SystemError) {
        try SystemCall.check { utimensat(directory, name, nil, 0) }
    }

    /// `unlinkat(2)` of a file.
    static func remove(_ name: String, in directory: Int32 = workingDirectory) throws(SystemError) {
        try SystemCall.check { unlinkat(directory, name, 0) }
    }

    /// `unlinkat(AT_REMOVEDIR)`: removes an empty folder.
    static func removeFolder(_ name: String, in directory: Int32 = workingDirectory) throws(SystemError) {
        try SystemCall.check { unlinkat(directory, name, AT_REMOVEDIR) }
    }

    /// `mkdirat(2)`.
    static func makeFolder(_ name: String, mode: UInt32, in directory: Int32 = workingDirectory) throws(SystemError) {
        try SystemCall.check { mkdirat(directory, name, mode_t(mode)) }
    }

    /// `renameat(2)`: replaces what is at `new`.
    static func rename(_ old: String, in oldDirectory: Int32 = workingDirectory, to new: String,
                       in newDirectory: Int32 = workingDirectory) throws(SystemError) {
        try SystemCall.check { renameat(oldDirectory, old, newDirectory, new) }
    }

    /// `renameat2(RENAME_NOREPLACE)` (``LinuxCalls/renameWithoutReplacing(_:_:_:_:)``):
    /// ``SystemError/exists`` when `new` exists, which is left as it is.
    static func renameWithoutReplacing(_ old: String, in oldDirectory: Int32, to new: String, in newDirectory: Int32) throws(SystemError) {
        try SystemCall.check { LinuxCalls.renameWithoutReplacing(oldDirectory, old, newDirectory, new) }
    }

    /// `readlinkat(2)`: a symbolic link's target (`/proc/self/fd/N`'s: the open file's path).
    static func linkTarget(_ name: String, in directory: Int32 = workingDirectory) throws(SystemError) -> String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try buffer.withUnsafeMutableBytes { raw in
            SystemCall.result { readlinkat(directory, name, raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count - 1) }
        }.get()
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// `getcwd(3)`: the working directory, `nil` when it cannot be said (removed, too long).
    static func workingDirectoryPath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `realpath(3)`: the absolute path with every symbolic link resolved, or its `errno`.
    static func realPath(_ path: String) -> Result<String, SystemError> {
        guard let resolved = realpath(path, nil) else { return .failure(.current) }
        defer { free(resolved) }
        return .success(String(cString: resolved))
    }

    /// `mkdtemp(3)`: a new folder (mode 0700) named `prefix` and six random characters.
    static func makeTemporaryFolder(prefix: String) throws(SystemError) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard made else { throw SystemError.current }
        return String(cString: template)
    }

    /// A new file `mkstemp(3)` made, open for reading and writing.
    struct TemporaryFile: ~Copyable {
        let descriptor: FileDescriptor
        let path: String
    }

    /// `mkstemp(3)`: a new file (mode 0600) named `prefix` and six random characters.
    static func makeTemporaryFile(prefix: String) throws(SystemError) -> TemporaryFile {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError.current }
        return TemporaryFile(descriptor: FileDescriptor(adopting: fd), path: String(cString: template))
    }
}

/// A folder's entries, read with `readdir(3)` (`.` and `..` included, in the order the file
/// system gives). One owner: the stream (and its descriptor) is closed when it goes away.
struct DirectoryStream: ~Copyable {
    /// One entry: its exact name, and its type when the file system says (`d_type`; `nil` for `DT_UNKNOWN`).
    struct Entry {
        let name: String
        let kind: FileStatus.Kind?
        /// Whether the name's bytes are UTF-8; when not, ``name`` has U+FFFD where they were.
        let isValidUTF8: Bool

        /// Whether the name is `.` or `..`.
        var isDotOrDotDot: Bool { name == "." || name == ".." }
    }

    private let stream: OpaquePointer

    /// `opendir(path)`.
    init(path: String) throws(SystemError) {
        guard let stream = opendir(path) else { throw .current }
        self.stream = stream
    }

    /// `fdopendir`: lists the open folder `folder`, which the stream then owns.
    init?(_ folder: consuming FileDescriptor) {
        let raw = folder.rawValue
        guard let stream = fdopendir(raw) else { return nil }
        _ = folder.release()
        self.stream = stream
    }

    deinit { closedir(stream) }

    /// The folder's descriptor (`dirfd`), for `*at` calls on its entries while the stream is open.
    var descriptor: Int32 { dirfd(stream) }

    /// The next entry, `nil` at the end (or on an error).
    mutating func next() -> Entry? {
        guard let entry = readdir(stream) else { return nil }
        let (name, valid) = withUnsafePointer(to: entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: 256) { bytes in
                String(validatingCString: bytes).map { ($0, true) } ?? (String(cString: bytes), false)
            }
        }
        let kind: FileStatus.Kind?
        switch Int32(entry.pointee.d_type) {
        case Int32(DT_REG): kind = .regular
        case Int32(DT_DIR): kind = .directory
        case Int32(DT_LNK): kind = .symbolicLink
        case Int32(DT_FIFO): kind = .fifo
        case Int32(DT_CHR): kind = .characterDevice
        case Int32(DT_BLK): kind = .blockDevice
        case Int32(DT_SOCK): kind = .socket
        default: kind = nil
        }
        return Entry(name: name, kind: kind, isValidUTF8: valid)
    }

    /// The names of `path`'s entries, `.` and `..` left out unless `includingDots`; `nil` when it
    /// cannot be listed.
    static func names(in path: String, includingDots: Bool = false) -> [String]? {
        guard var stream = try? DirectoryStream(path: path) else { return nil }
        var names: [String] = []
        while let entry = stream.next() {
            if includingDots || !entry.isDotOrDotDot { names.append(entry.name) }
        }
        return names
    }
}
