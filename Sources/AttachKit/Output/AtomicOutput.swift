/// An output file under construction: written under a temporary name (`.STEM.PID.XXXXXX.tmp`,
/// PID the creating process) in the destination folder, then flushed to disk and renamed into
/// place by ``commit(named:)``, so a reader never sees a partial file and a crash leaves at most a
/// `*.tmp` behind. Dropping the value without committing deletes the temporary file.
///
/// The folder is opened once, beneath its access scope, and everything happens relative to that
/// descriptor: the temporary file is created in it (`O_CREAT | O_EXCL | O_NOFOLLOW`), renamed in
/// it (`renameat`) and the folder is flushed through it. Writers (FFmpeg muxers, byte writes) get
/// ``temporaryPath``, a path through the temporary file's own descriptor, so neither a folder
/// swapped for a link nor a temporary name swapped for a link can send a byte elsewhere.
struct AtomicOutput: ~Copyable {
    /// Where bytes go until ``commit(named:)``: `/proc/self/fd/N`, the temporary file itself.
    let temporaryPath: String
    /// The temporary file's name in the folder.
    let temporaryName: String
    /// The folder's real path (symbolic links resolved when it was opened), for final paths and
    /// reports.
    let folder: String
    private let directory: FileDescriptor
    private let file: FileDescriptor
    /// Files the rename must never replace: the run's inputs (``WritePlan/protected``).
    private let protected: Set<FileIdentity>
    /// The files already on disk the rename may replace (``OutputGuard/replaceable``).
    private let replaceable: Set<FileVersion>
    private var committed = false

    /// Creates an empty temporary file in `folder` (which must be inside a folder scope of `ledger`).
    /// - Parameters:
    ///   - stem: used in the temporary name, for people looking at the folder.
    ///   - guarding: what ``commit(named:)`` must not replace. Default: nothing protected.
    /// - Throws: ``OutputError``: folder out of scope or missing, cannot create.
    init(folder: String, stem: String, ledger: AccessLedger, guarding rule: OutputGuard = OutputGuard()) throws(OutputError) {
        self.protected = rule.protected
        self.replaceable = rule.replaceable
        let handle: AccessHandle
        do {
            handle = try ledger.acquire(PathResolver.absolute(folder) + "/." + Self.safe(stem) + ".tmp", mode: .write)
        } catch {
            throw .access(error)
        }
        let resolvedFolder = PathResolver.directory(handle.resolvedPath)
        let directory = FileDescriptor(adopting: handle.releaseTakingDescriptor())
        switch Self.create(in: directory.rawValue, stem: stem) {
        case .success(let made):
            self.directory = directory
            self.file = FileDescriptor(adopting: made.descriptor)
            self.temporaryName = made.name
            self.temporaryPath = Descriptors.path(of: made.descriptor)
            self.folder = resolvedFolder
        case .failure(let error):
            throw .system(operation: "create", path: resolvedFolder + "/" + Self.name(stem: stem, random: "XXXXXX"), reason: error.description)
        }
    }

    deinit {
        if !committed, FileIdentity(named: temporaryName, in: directory.rawValue, followingLinks: false) == FileIdentity(descriptor: file.rawValue) {
            try? FileNames.remove(temporaryName, in: directory.rawValue)
        }
    }

    /// The stem as it appears in temporary names (at most 128 bytes, no `/`).
    static func safe(_ stem: String) -> String {
        // At most 128 bytes, cut at a character's edge (64 characters of emoji or flags passed the
        // 255-byte file-name limit once the process id and the random part were added).
        String(WritePlan.fitted(stem, then: "", within: 128).map { $0 == "/" ? "_" : $0 })
    }

    /// `.STEM.PID.RANDOM.tmp`, PID this process; RANDOM is ``hostToken`` and 6 random characters.
    static func name(stem: String, random: String) -> String {
        "." + safe(stem) + "." + String(SystemProcess.id) + "." + hostToken + random + ".tmp"
    }

    /// Four hexadecimal digits naming this machine and process-id namespace (a hash of
    /// `/etc/machine-id` and `/proc/self/ns/pid`), at the head of every temporary's random part.
    /// A temporary is judged stale (its process gone) only when it carries this token: a process
    /// id means nothing on another host or in another container sharing the folder, and a user's
    /// file that merely looks like a temporary (`.photo.3999999.AbCdEf.tmp`) was deleted once.
    static let hostToken: String = {
        var machine = ""
        if let reader = try? FileReader(path: "/etc/machine-id") { machine = String(decoding: reader.read(at: 0, count: 64), as: UTF8.self) }
        let namespace = (try? FileNames.linkTarget("/proc/self/ns/pid")) ?? ""
        return String(SHA256.hex(Array((machine + "|" + namespace).utf8)).prefix(4))
    }()

    /// Creates a new, empty file named `.STEM.PID.RANDOM.tmp` (mode 0644) in `directory`, never
    /// following or reusing an existing name.
    private static func create(in directory: Int32, stem: String) -> Result<(descriptor: Int32, name: String), SystemError> {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        for _ in 0..<100 {
            let name = Self.name(stem: stem, random: String((0..<6).map { _ in letters.randomElement()! }))
            do {
                let descriptor = try FileDescriptor.open(name, [.readWrite, .create, .exclusive, .noFollow], mode: 0o600, in: directory)
                try? descriptor.setPermissions(0o644)
                return .success((descriptor.release(), name))
            } catch where error != .exists {
                return .failure(error)
            } catch {}
        }
        return .failure(.exists)
    }

    /// Whether `name` is a temporary file an ``AtomicOutput`` with this stem creates on this host
    /// (or a retry scratch file beside one): `.STEM.PID.TTTTXXXXXX.tmp` or
    /// `.STEM.PID.TTTTXXXXXX.retry.tmp`, TTTT the ``hostToken``. Exact, so that a batch cleaning up
    /// after a killed run never touches another input's (or shard's, or host's) files.
    static func isTemporary(_ name: String, stem: String) -> Bool {
        owner(ofTemporary: name, stem: stem) != nil
    }

    /// The process id in a temporary file's name, when `name` is one of `stem`'s temporaries.
    static func owner(ofTemporary name: String, stem: String) -> Int32? {
        let prefix = "." + safe(stem) + "."
        guard name.hasPrefix(prefix) else { return nil }
        var rest = name.dropFirst(prefix.count)
        if rest.hasSuffix(".retry.tmp") { rest = rest.dropLast(".retry.tmp".count) } else if rest.hasSuffix(".tmp") { rest = rest.dropLast(4) } else { return nil }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 10, parts[1].hasPrefix(hostToken),
              parts[1].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
              !parts[0].isEmpty, parts[0].count <= 10, parts[0].allSatisfy({ $0.isASCII && $0.isNumber }),
              let pid = Int32(parts[0]), pid > 0 else { return nil }
        return pid
    }

    /// Removes, in `folder`, the temporaries of `stems` (exact names, see ``isTemporary(_:stem:)``)
    /// whose creating process is gone (`kill(pid, 0)` fails with `ESRCH`). A live run's in-flight
    /// temporaries, this process's included, are never touched; neither is any other file.
    /// - Returns: how many were removed.
    @discardableResult
    static func removeStaleTemporaries(in folder: String, stems: Set<String>) -> Int {
        sweep(folder) { name in
            stems.lazy.compactMap { owner(ofTemporary: name, stem: $0) }.first.map(Processes.isGone) ?? false
        }
    }

    /// A second temporary file beside this one (`.STEM.PID.XXXXXX.retry.tmp`, the same random
    /// part), for an encode attempt that may or may not replace the first.
    /// - Throws: ``OutputError/system(operation:path:reason:)`` when it cannot be created.
    func makeScratch() throws(OutputError) -> ScratchFile {
        let base = String(temporaryName.dropLast(4))
        let name = base + ".retry.tmp"
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(name, [.readWrite, .create, .exclusive, .noFollow], mode: 0o600, in: directory.rawValue)
        } catch {
            throw .system(operation: "create", path: folder + "/" + name, reason: error.description)
        }
        let folderCopy: FileDescriptor
        do { folderCopy = try directory.duplicate() } catch {
            try? FileNames.remove(name, in: directory.rawValue)
            throw .system(operation: "create", path: folder + "/" + name, reason: error.description)
        }
        return ScratchFile(directory: folderCopy, name: name, descriptor: descriptor)
    }

    /// Writes `bytes` as the whole content of the temporary file.
    /// - Throws: ``OutputError/system(operation:path:reason:)`` (disk full, I/O error).
    func write(_ bytes: [UInt8]) throws(OutputError) {
        do {
            try file.truncate(to: 0)
            try file.writeAll(bytes, toAbsoluteOffset: 0)
        } catch {
            throw failure("write", error)
        }
    }

    /// Appends `bytes` to what the temporary file holds: an output written piece by piece (the
    /// batch report, row by row, so its size never has to fit in memory).
    /// - Throws: ``OutputError/system(operation:path:reason:)`` (disk full, I/O error).
    func append(_ bytes: [UInt8]) throws(OutputError) {
        do {
            try file.writeAll(bytes, toAbsoluteOffset: try file.seekToEnd())
        } catch {
            throw failure("write", error)
        }
    }

    /// Copies the file at `source` (an input handle's path, or a scratch file's) as the whole content.
    func copy(from source: String) throws(OutputError) {
        let input: FileDescriptor
        do { input = try FileDescriptor.open(source, .readOnly) } catch {
            throw .system(operation: "open", path: source, reason: error.description)
        }
        do { try file.truncate(to: 0) } catch { throw failure("write", error) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: Int64 = 0
        while true {
            let n: Int
            do { n = try input.read(into: &buffer) } catch {
                throw .system(operation: "read", path: source, reason: error.description)
            }
            if n == 0 { return }
            do {
                try file.writeAll(buffer, count: n, toAbsoluteOffset: offset)
            } catch {
                throw failure("write", error)
            }
            offset += Int64(n)
        }
    }

    /// The identity of what `name` names in the folder now (links followed), `nil` when nothing.
    func identity(ofExisting name: String) -> FileIdentity? {
        FileIdentity(named: name, in: directory.rawValue, followingLinks: true)
    }

    /// Flushes the file to disk, renames it to `name` in the same folder and flushes the folder,
    /// so the new name survives a power cut. Consumes the output. What is already at `name` is
    /// replaced only when the guard lists it (``OutputGuard/replaceable``: a symbolic link is
    /// judged as itself, never followed).
    /// - Returns: the final path (the folder's real path and `name`).
    /// - Throws: ``OutputError``; ``OutputError/collision(path:with:)`` when `name` is (or links
    ///   to) a protected file; ``OutputError/taken(path:)`` when anything else the guard does not
    ///   list is there. What is there is left as it is, and the temporary file is removed on failure.
    consuming func commit(named name: String) throws(OutputError) -> String {
        let destination = (folder == "/" ? "" : folder) + "/" + name
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
            throw .system(operation: "rename", path: destination, reason: "not a file name")
        }
        let there = [FileIdentity(named: name, in: directory.rawValue, followingLinks: false), FileIdentity(named: name, in: directory.rawValue, followingLinks: true)]
        guard there.allSatisfy({ $0.map { !protected.contains($0) } ?? true }) else {
            throw .collision(path: destination, with: "\(name) is an input of this run (or a link to one)")
        }
        do { try file.sync() } catch { throw failure("fsync", error) }
        // Someone who can write in the folder could have replaced the temporary name: rename only
        // the file this output wrote.
        guard FileIdentity(named: temporaryName, in: directory.rawValue, followingLinks: false) == FileIdentity(descriptor: file.rawValue) else {
            throw .system(operation: "rename", path: destination, reason: "the temporary file \(temporaryName) was replaced")
        }
        // Only a file the plan listed as this run's own is replaced; anything else at the name (a
        // user's file, one that appeared since the plan, a device, a FIFO, a link) stays, and the
        // rename fails with `taken` so the caller plans the next name (or refuses).
        if let existing = FileVersion(named: name, in: directory.rawValue), replaceable.contains(existing) {
            do { try FileNames.rename(temporaryName, in: directory.rawValue, to: name, in: directory.rawValue) } catch {
                throw .system(operation: "rename", path: destination, reason: error.description)
            }
        } else {
            do { try FileNames.renameWithoutReplacing(temporaryName, in: directory.rawValue, to: name, in: directory.rawValue) } catch {
                if error == .exists { throw .taken(path: destination) }
                throw .system(operation: "rename", path: destination, reason: error.description)
            }
        }
        committed = true
        try? directory.sync()
        return destination
    }

    private func failure(_ operation: String, _ error: SystemError) -> OutputError {
        .system(operation: operation, path: folder + "/" + temporaryName, reason: error.description)
    }
}

/// What an output's final rename may and must not replace.
struct OutputGuard: Sendable {
    /// Files never replaced: the run's inputs (``WritePlan/protected``).
    var protected: Set<FileIdentity> = []
    /// The files already on disk the rename may replace (device, inode, size and modification
    /// time, taken when the run was planned): outputs earlier runs of the same batch recorded writing
    /// (``WritePlan/replaceable``). Any other file at the final name is left as it is: the rename
    /// (`RENAME_NOREPLACE`) fails with ``OutputError/taken(path:)``. Default: none, so a file
    /// AttachKit did not write (a user's photo, one that appeared during the run, `/dev/null`) is
    /// never replaced by any verb.
    var replaceable: Set<FileVersion> = []

    init(protected: Set<FileIdentity> = [], replaceable: Set<FileVersion> = []) {
        self.protected = protected
        self.replaceable = replaceable
    }
}
