#if canImport(Glibc)
import Glibc
#endif

/// The hold a batch run has on how its output folder is split: `OUT/.attachkit-batch.lock`,
/// locked with `flock(2)` and holding the shard count.
///
/// Runs of one folder must agree on the split: shards `I/N` of one `N` write disjoint outputs and
/// may run side by side (each also holds its own manifest's ``BatchLock``), but an unsharded run
/// beside shards, or shards of two different `N`, would prepare the same names into the same
/// files and each record the other's output as its own. An unsharded run holds the lock
/// exclusively; shards hold it shared, after checking under a short guard lock that the holders
/// use their `N`. Like ``BatchLock``, it ends with the process however it ends.
struct BatchSplitLock: ~Copyable, Sendable {
    private let fd: Int32

    /// - Throws: ``BatchError/busy(manifest:pid:)``-like ``BatchError/otherSplit(folder:shards:)``
    ///   when runs with another split hold the folder; ``BatchError/manifest(_:)`` when the lock
    ///   files cannot be created.
    init(outputRoot: String, shards: Int) throws(BatchError) {
        let path = outputRoot + "/.attachkit-batch.lock"
        let guardPath = outputRoot + "/.attachkit-batch.guard"
        let guardFD = open(guardPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard guardFD >= 0 else { throw .manifest("cannot open the lock \(guardPath): \(String(cString: strerror(errno)))") }
        defer { close(guardFD) }
        while flock(guardFD, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .manifest("cannot lock \(guardPath): \(String(cString: strerror(errno)))") }
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .manifest("cannot open the lock \(path): \(String(cString: strerror(errno)))") }
        if Self.lock(fd, LOCK_EX | LOCK_NB) {
            // Alone: this run sets the split (and keeps the lock exclusive when unsharded).
            let text = Array("\(shards)\n".utf8)
            if ftruncate(fd, 0) == 0 { _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
            if shards > 1 { _ = Self.lock(fd, LOCK_SH) }
        } else {
            let held = Self.shards(fd)
            guard shards > 1, held == shards, Self.lock(fd, LOCK_SH | LOCK_NB) else {
                close(fd)
                throw .otherSplit(folder: outputRoot, shards: held)
            }
        }
        self.fd = fd
    }

    deinit { close(fd) }

    private static func lock(_ fd: Int32, _ operation: Int32) -> Bool {
        while flock(fd, operation) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// The shard count the holders wrote (1 for an unsharded run).
    private static func shards(_ fd: Int32) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0, let line = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first else { return nil }
        return Int(line)
    }
}
