#if canImport(Glibc)
import Glibc
#endif

/// An output file under construction: written under a temporary name (`.NAME.XXXXXX.tmp`) in the
/// destination folder, then flushed to disk and renamed into place by ``commit(as:)``, so a reader
/// never sees a partial file and a crash leaves at most a `*.tmp` behind. Dropping the value
/// without committing deletes the temporary file.
///
/// Writers (libvips savers, FFmpeg muxers, plain byte writes) write to ``temporaryPath``.
struct AtomicOutput: ~Copyable {
    /// Where bytes go until ``commit(as:)``.
    let temporaryPath: String
    let folder: String
    private var committed = false

    /// Creates an empty temporary file in `folder` (which must be inside a scope of `ledger`).
    /// - Parameter stem: used in the temporary name, for people looking at the folder.
    /// - Throws: ``OutputError``: folder out of scope or missing, cannot create.
    init(folder: String, stem: String, ledger: AccessLedger) throws(OutputError) {
        let template = PathResolver.absolute(folder) + "/." + Self.safe(stem) + ".XXXXXX.tmp"
        let handle: AccessHandle
        do {
            handle = try ledger.acquire(template, mode: .write)
        } catch {
            throw .access(error)
        }
        var bytes = Array(handle.path.utf8CString)
        handle.release()
        let fd = bytes.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard fd >= 0 else {
            throw .system(operation: "create", path: template, reason: String(cString: strerror(errno)))
        }
        close(fd)
        let path = String(cString: bytes)
        chmod(path, 0o644)
        self.temporaryPath = path
        self.folder = PathResolver.directory(path)
    }

    deinit {
        if !committed { unlink(temporaryPath) }
    }

    /// The stem as it appears in temporary names (at most 64 characters, no `/`).
    static func safe(_ stem: String) -> String {
        String(stem.prefix(64).map { $0 == "/" ? "_" : $0 })
    }

    /// Whether `name` is a temporary file an ``AtomicOutput`` with this stem creates (or a retry
    /// scratch file beside one): `.STEM.XXXXXX.tmp` or `.STEM.XXXXXX.retry.tmp`. Exact, so that a
    /// batch cleaning up after a killed run never touches another input's (or shard's) files.
    static func isTemporary(_ name: String, stem: String) -> Bool {
        let prefix = "." + safe(stem) + "."
        guard name.hasPrefix(prefix) else { return false }
        var rest = name.dropFirst(prefix.count)
        if rest.hasSuffix(".retry.tmp") { rest = rest.dropLast(".retry.tmp".count) } else if rest.hasSuffix(".tmp") { rest = rest.dropLast(4) } else { return false }
        return rest.count == 6 && rest.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// Writes `bytes` as the whole content of the temporary file.
    /// - Throws: ``OutputError/system(operation:path:reason:)`` (disk full, I/O error).
    func write(_ bytes: [UInt8]) throws(OutputError) {
        let fd = open(temporaryPath, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw .system(operation: "open", path: temporaryPath, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(operation: "write", path: temporaryPath, reason: String(cString: strerror(errno)))
            }
            written += n
        }
    }

    /// Copies the file at `source` (read through its own handle) as the whole content.
    func copy(from source: String) throws(OutputError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .system(operation: "open", path: source, reason: String(cString: strerror(errno))) }
        defer { close(input) }
        let output = open(temporaryPath, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard output >= 0 else { throw .system(operation: "open", path: temporaryPath, reason: String(cString: strerror(errno))) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
            if n == 0 { return }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(operation: "read", path: source, reason: String(cString: strerror(errno)))
            }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { Glibc.write(output, $0.baseAddress! + done, n - done) }
                if w < 0 {
                    if errno == EINTR { continue }
                    throw .system(operation: "write", path: temporaryPath, reason: String(cString: strerror(errno)))
                }
                done += w
            }
        }
    }

    /// Size of what has been written so far.
    var size: Int64 {
        var status = stat()
        return stat(temporaryPath, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Flushes the file to disk, renames it to `finalPath` (replacing what is there) and flushes
    /// the folder, so the new name survives a power cut. Consumes the output.
    /// - Throws: ``OutputError``; the temporary file is removed on failure.
    consuming func commit(as finalPath: String, ledger: AccessLedger) throws(OutputError) {
        let handle: AccessHandle
        do {
            handle = try ledger.acquire(finalPath, mode: .write)
        } catch {
            throw .access(error)
        }
        let destination = handle.path
        handle.release()
        let fd = open(temporaryPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(operation: "open", path: temporaryPath, reason: String(cString: strerror(errno))) }
        let synced = fsync(fd) == 0
        let syncError = errno
        close(fd)
        guard synced else { throw .system(operation: "fsync", path: temporaryPath, reason: String(cString: strerror(syncError))) }
        guard rename(temporaryPath, destination) == 0 else {
            throw .system(operation: "rename", path: destination, reason: String(cString: strerror(errno)))
        }
        committed = true
        let directory = open(PathResolver.directory(destination), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
