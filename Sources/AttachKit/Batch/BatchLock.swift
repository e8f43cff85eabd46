#if canImport(Glibc)
import Glibc
#endif

/// The exclusive hold a batch run has on its manifest: `MANIFEST.lock` beside it (e.g.
/// `OUT/manifest.jsonl.lock`), locked with `flock(2)` and holding the holder's pid.
///
/// Two runs of the same shard on one output folder would each compact the manifest to their own
/// lines and lose the other's work; with the lock the second refuses at once, before it touches
/// the folder. Shards write different manifests, so they lock different files and still run side
/// by side. The kernel drops a `flock` when its descriptor closes, which happens however the
/// process ends (SIGKILL included), so a killed run never blocks the next one. The file itself is
/// never removed: a run that unlinked it could let the next two runs lock two different files.
struct BatchLock: ~Copyable, Sendable {
    /// The lock file's path.
    let path: String
    private let fd: Int32

    /// Takes the lock of the manifest at `manifestPath` without waiting, and writes this process's pid into it.
    /// - Throws: ``BatchError/busy(manifest:pid:)`` when another run (in any process, this one
    ///   included) holds it; ``BatchError/manifest(_:)`` when the lock file cannot be created.
    init(manifestPath: String) throws(BatchError) {
        let path = manifestPath + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .manifest("cannot open the lock \(path): \(String(cString: strerror(errno)))") }
        var status: Int32
        repeat { status = flock(fd, LOCK_EX | LOCK_NB) } while status != 0 && errno == EINTR
        guard status == 0 else {
            let code = errno
            let reason = String(cString: strerror(code))
            let held = code == EWOULDBLOCK
            let holder = held ? Self.holder(fd) : nil
            close(fd)
            throw held ? .busy(manifest: manifestPath, pid: holder) : .manifest("cannot lock \(path): \(reason)")
        }
        let text = Array("\(getpid())\n".utf8)
        // The pid is only a hint for the message of a run that finds the lock taken: failing to
        // write it (a full disk) does not stop this run.
        if ftruncate(fd, 0) == 0 { _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// The pid written by the run holding the lock. It writes it just after locking, so an empty
    /// file is read again for up to 0.5 s; `nil` when none shows up.
    private static func holder(_ fd: Int32) -> Int32? {
        for _ in 0..<50 {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            if count > 0, let line = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first,
               let pid = Int32(line), pid > 0 {
                return pid
            }
            usleep(10_000)
        }
        return nil
    }
}
