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
    /// The lock and its guard, in the output root.
    static let fileNames = [".attachkit-batch.lock", ".attachkit-batch.guard"]
    /// The locked descriptor, for the run's worker processes to inherit (see ``BatchLock``).
    let descriptor: Int32

    /// - Throws: ``BatchError/busy(manifest:pid:)``-like ``BatchError/otherSplit(folder:shards:)``
    ///   when runs with another split hold the folder; ``BatchError/manifest(_:)`` when the lock
    ///   files cannot be created.
    init(outputRoot: String, shards: Int) throws(BatchError) {
        let path = outputRoot + "/" + Self.fileNames[0]
        let guardPath = outputRoot + "/" + Self.fileNames[1]
        let guardFD: Int32
        do { guardFD = try FileSystem.openOwnFile(guardPath, flags: O_RDWR | O_CREAT) } catch { throw .manifest("cannot use the lock: \(error.description)") }
        defer { close(guardFD) }
        while flock(guardFD, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .manifest("cannot lock \(guardPath): \(String(cString: strerror(errno)))") }
        }
        let fd: Int32
        do { fd = try FileSystem.openOwnFile(path, flags: O_RDWR | O_CREAT) } catch { throw .manifest("cannot use the lock: \(error.description)") }
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
        self.descriptor = fd
    }

    deinit { close(descriptor) }

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
