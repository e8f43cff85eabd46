/// What ``Sandbox/confine(readOnly:readWrite:)`` achieved.
public enum SandboxStatus: Sendable, Equatable {
    /// The process is confined by Landlock, at this ABI version of the running kernel.
    case landlock(abi: Int)
    /// Nothing was restricted, and why: the kernel has no Landlock (`ENOSYS`), it is disabled at
    /// boot (`EOPNOTSUPP`), or a Landlock call failed before anything was applied.
    case none(reason: String)

    /// `"landlock"` or `"none"`, for logs and reports.
    public var name: String {
        switch self {
        case .landlock: return "landlock"
        case .none: return "none"
        }
    }
}

/// Confines the process that parses hostile media with Landlock (Linux 5.13 and later), so that
/// a decoder bug cannot read or write beyond what the job needs, whatever paths it is tricked into.
public enum Sandbox {
    /// Restricts the calling thread, and every thread and process it creates afterwards, to:
    ///
    /// * read beneath the system folders libvips, GLib and FFmpeg use after start-up (`/usr`,
    ///   `/lib`, `/lib64`, with execute, for their modules and libraries; `/etc`, `/proc`, `/sys`,
    ///   `/dev`), and write `/dev/null`;
    /// * read beneath each of `readOnly` (the input roots);
    /// * read, create, write, truncate, rename and remove beneath each of `readWrite` (the output
    ///   roots) — but never make links, devices, FIFOs or sockets, nor execute;
    /// * the same beneath a private temporary folder made for this process
    ///   (`$TMPDIR/attachkit-PID-XXXXXX`, or under `/tmp`), which becomes `$TMPDIR` (libvips
    ///   spills large random-access images there; liborc maps its compiled code from there). It is
    ///   removed at exit when empty; those of processes that are gone (a worker killed before it
    ///   could exit) are removed by the next call, in any process.
    ///
    /// With Landlock ABI 4 and later, TCP `bind` and `connect` are denied as well (FFmpeg inputs
    /// are held to the `file` protocol anyway). Access rights the running kernel does not know are
    /// left out, as the kernel documentation's sample does, so the same call works from ABI 1 on.
    /// Paths that do not exist are skipped.
    ///
    /// Call it at start-up, before `vips_init`, before any input is touched and before other
    /// threads start: threads that already run are not confined. Confinement cannot be undone;
    /// calling again only narrows it. Descriptors opened before the call keep working.
    /// - Returns: `.landlock(abi:)` when confined; `.none(reason:)` when nothing was restricted
    ///   (no Landlock here, or a call failed): the caller decides whether to run unconfined.
    public static func confine(readOnly: [String], readWrite: [String]) -> SandboxStatus {
        let abi: Int32
        switch SystemCall.result(retryOnInterrupt: false, { Landlock.abiVersion() }) {
        case .success(let version): abi = version
        case .failure(let error): return .none(reason: unavailable(error))
        }
        guard abi > 0 else { return .none(reason: unavailable(.current)) }
        let rights = LandlockRights(abi: Int(abi))
        let temporary = PrivateTemporary.make()
        let rules = systemRules(rights) + readOnly.map { ($0, rights.read) } + (readWrite + [temporary].compactMap { $0 }).map { ($0, rights.readWrite) }
        if let failure = restrict(handling: rights, rules: rules) {
            if let temporary { try? FileNames.removeFolder(temporary) }
            return .none(reason: failure)
        }
        if let temporary {
            SystemProcess.setEnvironment("TMPDIR", temporary)
            PrivateTemporary.removeAtExit(temporary)
        }
        return .landlock(abi: Int(abi))
    }

    /// The Landlock ABI version of the running kernel, `nil` without Landlock.
    static var availableABI: Int? {
        let abi = Landlock.abiVersion()
        return abi > 0 ? Int(abi) : nil
    }

    /// The folders every confined process may use.
    static func systemRules(_ rights: LandlockRights) -> [(String, UInt64)] {
        ["/usr", "/lib", "/lib64"].map { ($0, rights.read | rights.execute) }
            + ["/etc", "/proc", "/sys", "/dev"].map { ($0, rights.read) }
            + [("/dev/null", rights.read | rights.writeFile)]
    }

    /// Builds the ruleset, sets `no_new_privs` and restricts the calling thread.
    /// - Returns: `nil` when confined; otherwise why not (nothing was applied).
    private static func restrict(handling rights: LandlockRights, rules: [(String, UInt64)]) -> String? {
        let ruleset: FileDescriptor
        switch SystemCall.result(retryOnInterrupt: false, { Landlock.createRuleset(fileSystem: rights.handledFileSystem, network: rights.handledNetwork) }) {
        case .success(let descriptor): ruleset = FileDescriptor(adopting: descriptor)
        case .failure(let error): return "landlock_create_ruleset: \(error)"
        }
        let rulesetNumber = ruleset.rawValue
        for (path, allowed) in rules {
            guard let folder = try? FileDescriptor.open(path, Descriptors.pathOnly) else { continue }
            let access = allowed & rights.handledFileSystem & (Descriptors.isFolder(folder.rawValue) ? ~0 : rights.fileOnly)
            guard access != 0 else { continue }
            let folderNumber = folder.rawValue
            if case .failure(let error) = SystemCall.result(retryOnInterrupt: false, { Landlock.allowBeneath(ruleset: rulesetNumber, folder: folderNumber, allowed: access) }) {
                return "landlock_add_rule \(path): \(error)"
            }
        }
        if case .failure(let error) = SystemCall.result(retryOnInterrupt: false, { LinuxCalls.setNoNewPrivileges() }) {
            return "prctl(PR_SET_NO_NEW_PRIVS): \(error)"
        }
        if case .failure(let error) = SystemCall.result(retryOnInterrupt: false, { Landlock.restrictSelf(ruleset: rulesetNumber) }) {
            return "landlock_restrict_self: \(error)"
        }
        return nil
    }

    private static func unavailable(_ error: SystemError) -> String {
        switch error {
        case .notImplemented: return "this kernel has no Landlock (ENOSYS)"
        case .notSupported: return "Landlock is disabled on this system (EOPNOTSUPP; see the lsm= boot parameter)"
        default: return "Landlock is unavailable: \(error)"
        }
    }
}

/// Landlock access rights, limited to those the running ABI knows (a right it does not know makes
/// `landlock_create_ruleset` fail with `EINVAL`).
struct LandlockRights: Sendable, Equatable {
    let abi: Int

    /// Every file-system right of this ABI: all of them are handled (denied unless a rule allows).
    var handledFileSystem: UInt64 {
        var rights = Landlock.FileAccess.abi1
        if abi >= 2 { rights |= Landlock.FileAccess.refer }
        if abi >= 3 { rights |= Landlock.FileAccess.truncate }
        if abi >= 5 { rights |= Landlock.FileAccess.ioctlDevice }
        return rights
    }

    /// TCP bind and connect (ABI 4 and later), handled with no rule: denied.
    var handledNetwork: UInt64 {
        abi >= 4 ? Landlock.NetworkAccess.bindTCP | Landlock.NetworkAccess.connectTCP : 0
    }

    var read: UInt64 { Landlock.FileAccess.readFile | Landlock.FileAccess.readDir }
    var execute: UInt64 { Landlock.FileAccess.execute }
    var writeFile: UInt64 { Landlock.FileAccess.writeFile }

    /// Reading plus what atomic outputs need: create, write, truncate, rename (refer), remove.
    var readWrite: UInt64 {
        read | writeFile | Landlock.FileAccess.removeFile | Landlock.FileAccess.removeDir
            | Landlock.FileAccess.makeRegular | Landlock.FileAccess.makeDir
            | Landlock.FileAccess.refer | Landlock.FileAccess.truncate
    }

    /// The rights that apply to a file (a rule on a file may grant only these).
    var fileOnly: UInt64 {
        execute | writeFile | Landlock.FileAccess.readFile | Landlock.FileAccess.truncate
            | Landlock.FileAccess.ioctlDevice
    }
}

/// The confined process's own temporary folder, `attachkit-PID-XXXXXX`.
enum PrivateTemporary {
    private static let folders = Locked<[String]>([])

    /// `$TMPDIR/attachkit-PID-XXXXXX` (mode 0700), or under `/tmp`; `nil` when neither can be made.
    /// The folders of processes that are gone (a worker killed before it could exit) are removed
    /// first.
    static func make() -> String? {
        for base in bases {
            removeStale(in: base)
            if let folder = try? FileNames.makeTemporaryFolder(prefix: base + "/attachkit-\(SystemProcess.id)-") {
                return folder
            }
        }
        return nil
    }

    /// Where the folders are made: `$TMPDIR`, then `/tmp`.
    private static var bases: [String] {
        ((SystemProcess.environment("TMPDIR").map { [$0] } ?? []) + ["/tmp"]).filter { !$0.isEmpty }
    }

    /// Removes the folders of `pid`, a process that is gone: what a pool does when it reaps a
    /// worker, which cannot remove its own (Landlock lets it remove nothing in `$TMPDIR` itself).
    static func removeFolders(of pid: Int32) {
        for base in bases { removeStale(in: base, only: pid) }
    }

    /// Removes `folder` at exit if it is empty by then.
    static func removeAtExit(_ folder: String) {
        let first = folders.withLock { folders -> Bool in
            folders.append(folder)
            return folders.count == 1
        }
        if first {
            SystemProcess.atExit {
                for folder in PrivateTemporary.folders.withLock({ $0 }) { try? FileNames.removeFolder(folder) }
            }
        }
    }

    /// The process id in `attachkit-PID-XXXXXX`, `nil` for any other name.
    static func owner(of name: String) -> Int32? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "attachkit", parts[2].count == 6,
              parts[1].count <= 10, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int32(parts[1])
    }

    /// Removes, in `base`, the private folders of processes that are gone (of `only`, when given):
    /// only folders this user owns, only the files directly in them (never followed), then the
    /// folder if it is empty.
    static func removeStale(in base: String, only: Int32? = nil) {
        guard var stream = try? DirectoryStream(path: base) else { return }
        var stale: [String] = []
        while let entry = stream.next() {
            let name = entry.name
            if let pid = owner(of: name), only.map({ $0 == pid }) ?? true, Processes.isGone(pid) { stale.append(name) }
        }
        for name in stale { removeFolder(name, in: stream.descriptor) }
    }

    private static func removeFolder(_ name: String, in base: Int32) {
        guard let folder = try? FileDescriptor.open(name, [.readOnly, .directory, .noFollow], in: base) else { return }
        guard (try? folder.status())?.owner == SystemProcess.userID, var stream = DirectoryStream(folder) else { return }
        var names: [String] = []
        while let entry = stream.next() {
            if !entry.isDotOrDotDot { names.append(entry.name) }
        }
        for entryName in names { try? FileNames.remove(entryName, in: stream.descriptor) }
        _ = consume stream
        try? FileNames.removeFolder(name, in: base)
    }
}
