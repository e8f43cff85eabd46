/// The exclusive hold a batch run has on its manifest: `MANIFEST.lock` beside it (e.g.
/// `OUT/manifest.jsonl.lock`), locked with `flock(2)` and holding the holder's pid.
///
/// Two runs of the same shard on one output folder would each compact the manifest to their own
/// lines and lose the other's work; with the lock the second refuses at once, before it touches
/// the folder. Shards write different manifests, so they lock different files and still run side
/// by side. The kernel drops a `flock` when the last descriptor of it closes, which happens
/// however the processes end (SIGKILL included), so a killed run never blocks the next one. The
/// run's worker processes inherit the descriptor (``descriptor``): a worker still busy after its
/// batch was killed holds the lock until it ends, so a new run never writes beside it. A new run
/// that finds the lock held while the pid in it is gone waits for those workers (they die with
/// their parent, see ``WorkerProcessPool``) up to ``survivorWait``. The file itself is never
/// removed: a run that unlinked it could let the next two runs lock two different files.
struct BatchLock: ~Copyable, Sendable {
    /// What the lock file's name adds to the manifest's.
    static let suffix = ".lock"
    /// How long a new run waits for the worker processes of a dead run to end. Default 10 s.
    static let survivorWait: Duration = .seconds(10)
    /// The lock file's path.
    let path: String
    /// The locked descriptor, for the run's worker processes to inherit.
    let descriptor: FileDescriptor

    /// Takes the lock of the manifest at `manifestPath` without waiting (except for the workers of
    /// a dead run), and writes this process's pid into it.
    /// - Throws: ``BatchError/busy(manifest:pid:)`` when another run (in any process, this one
    ///   included) holds it; ``BatchError/survivors(manifest:pid:)`` when the workers of a dead run
    ///   still hold it after ``survivorWait``; ``BatchError/manifest(_:)`` when the lock file
    ///   cannot be created or is not a file of its own (a symbolic or hard link).
    init(manifestPath: String, survivorWait: Duration = BatchLock.survivorWait) throws(BatchError) {
        let path = manifestPath + Self.suffix
        let fd: FileDescriptor
        do { fd = try FileSystem.openOwnFile(path, flags: [.readWrite, .create]) } catch { throw .manifest("cannot use the lock: \(error.description)") }
        if let refusal = Self.take(fd, path: path, manifest: manifestPath, survivorWait: survivorWait) {
            throw refusal
        }
        let text = Array("\(SystemProcess.id)\n".utf8)
        // The pid is only a hint for the message of a run that finds the lock taken: failing to
        // write it (a full disk) does not stop this run.
        if (try? fd.truncate(to: 0)) != nil { try? fd.writeAll(text, toAbsoluteOffset: 0) }
        self.path = path
        self.descriptor = fd
    }

    /// Locks `fd` exclusively; `nil` when locked, else why not.
    private static func take(_ fd: borrowing FileDescriptor, path: String, manifest: String, survivorWait: Duration) -> BatchError? {
        guard let failure = tryLock(fd) else { return nil }
        guard failure == .wouldBlock else { return .manifest("cannot lock \(path): \(failure)") }
        let holder = Self.holder(fd)
        guard let holder, Processes.isGone(holder) else { return .busy(manifest: manifest, pid: holder) }
        // The run that wrote its pid is gone: its workers are ending with it.
        let deadline = ContinuousClock.now + survivorWait
        while ContinuousClock.now < deadline {
            SystemProcess.sleep(microseconds: 20_000)
            if tryLock(fd) == nil { return nil }
        }
        return .survivors(manifest: manifest, pid: holder)
    }

    /// `flock(LOCK_EX | LOCK_NB)`: `nil` when locked, else `errno`.
    private static func tryLock(_ fd: borrowing FileDescriptor) -> SystemError? {
        do { try fd.lock(.exclusive, wait: false) } catch { return error }
        return nil
    }

    /// The pid written by the run holding the lock. It writes it just after locking, so an empty
    /// file is read again for up to 0.5 s; `nil` when none shows up.
    private static func holder(_ fd: borrowing FileDescriptor) -> Int32? {
        for _ in 0..<50 {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = buffer.withUnsafeMutableBytes { (try? fd.read(fromAbsoluteOffset: 0, into: $0)) ?? -1 }
            if count > 0, let line = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first,
               let pid = Int32(line), pid > 0 {
                return pid
            }
            SystemProcess.sleep(microseconds: 10_000)
        }
        return nil
    }
}
