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
    let descriptor: FileDescriptor

    /// - Throws: ``BatchError/busy(manifest:pid:)``-like ``BatchError/otherSplit(folder:shards:)``
    ///   when runs with another split hold the folder; ``BatchError/manifest(_:)`` when the lock
    ///   files cannot be created.
    init(outputRoot: String, shards: Int) throws(BatchError) {
        let path = outputRoot + "/" + Self.fileNames[0]
        let guardPath = outputRoot + "/" + Self.fileNames[1]
        let guardFD: FileDescriptor
        do { guardFD = try FileSystem.openOwnFile(guardPath, flags: [.readWrite, .create]) } catch { throw .manifest("cannot use the lock: \(error.description)") }
        do { try guardFD.lock(.exclusive) } catch { throw .manifest("cannot lock \(guardPath): \(error)") }
        let fd: FileDescriptor
        do { fd = try FileSystem.openOwnFile(path, flags: [.readWrite, .create]) } catch { throw .manifest("cannot use the lock: \(error.description)") }
        if Self.lock(fd, .exclusive, wait: false) {
            // Alone: this run sets the split (and keeps the lock exclusive when unsharded).
            let text = Array("\(shards)\n".utf8)
            if (try? fd.truncate(to: 0)) != nil { try? fd.writeAll(text, toAbsoluteOffset: 0) }
            if shards > 1 { _ = Self.lock(fd, .shared) }
        } else {
            let held = Self.shards(fd)
            guard shards > 1, held == shards, Self.lock(fd, .shared, wait: false) else {
                throw .otherSplit(folder: outputRoot, shards: held)
            }
        }
        self.descriptor = fd
        _ = consume guardFD
    }

    private static func lock(_ fd: borrowing FileDescriptor, _ lock: FileDescriptor.Lock, wait: Bool = true) -> Bool {
        (try? fd.lock(lock, wait: wait)) != nil
    }

    /// The shard count the holders wrote (1 for an unsharded run).
    private static func shards(_ fd: borrowing FileDescriptor) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { (try? fd.read(fromAbsoluteOffset: 0, into: $0)) ?? -1 }
        guard count > 0, let line = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first else { return nil }
        return Int(line)
    }
}
