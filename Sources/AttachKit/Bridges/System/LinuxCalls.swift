import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// The Linux calls glibc reaches only through `syscall(2)` or not at all (the CSystem shim), with
/// Swift names. Each returns what the call returns (`-1` with `errno` set on failure); what to do
/// about a failure is the caller's policy (``Sandbox``, ``Descriptors``, ``WorkerHousekeeping``).
enum LinuxCalls {
    /// `O_PATH`: opens a location without reading it.
    static let openPathOnly = Int32(AK_O_PATH)

    /// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`, retried on `EAGAIN`
    /// (a rename elsewhere raced with its `..` check: a test saw it under load), falling back to
    /// ``openBeneathWalk(_:_:flags:mode:)`` on kernels without `openat2` or after 64 such races.
    /// `O_CLOEXEC` is added.
    static func openBeneath(_ directory: Int32, _ relative: String, flags: Int32, mode: mode_t) -> Int32 {
        ak_open_beneath(directory, relative, flags, UInt32(mode))
    }

    /// A component-by-component `O_NOFOLLOW` walk beneath `directory` (`..` refused).
    static func openBeneathWalk(_ directory: Int32, _ relative: String, flags: Int32, mode: mode_t) -> Int32 {
        ak_open_beneath_walk(directory, relative, flags, UInt32(mode))
    }

    /// `prctl(PR_SET_NO_NEW_PRIVS, 1)`.
    static func setNoNewPrivileges() -> Int32 { ak_set_no_new_privs() }

    /// `prctl(PR_SET_PDEATHSIG, signal)`: `signal` comes when the thread that created this process ends.
    static func setParentDeathSignal(_ signal: Int32) -> Int32 { ak_set_parent_death_signal(signal) }

    /// `renameat2(RENAME_NOREPLACE)` (a hard link and an unlink where the file system lacks it):
    /// `-1` with `errno` `EEXIST` when `new` exists, which is left as it is.
    static func renameWithoutReplacing(_ oldDirectory: Int32, _ old: String, _ newDirectory: Int32, _ new: String) -> Int32 {
        ak_rename_noreplace(oldDirectory, old, newDirectory, new)
    }

    /// `socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)`: the two connected ends, or `nil` with
    /// `errno` set.
    static func streamSocketPair() -> (Int32, Int32)? {
        var fds: [Int32] = [-1, -1]
        guard ak_stream_socket_pair(&fds) == 0 else { return nil }
        return (fds[0], fds[1])
    }

    /// `MSG_NOSIGNAL`, for `send(2)`: a closed peer gives `EPIPE`, never `SIGPIPE`.
    static let sendWithoutSignal = ak_msg_nosignal()

    /// glibc's `malloc_trim(0)`: hands freed heap memory back to the kernel.
    static func trimHeap() { _ = ak_malloc_trim() }
}

/// Landlock's system calls and access bits (`linux/landlock.h`), with Swift names.
enum Landlock {
    /// File-system access bits.
    enum FileAccess {
        /// The 13 rights of ABI 1 (`EXECUTE` ... `MAKE_SYM`).
        static let abi1 = UInt64((1 << 13) - 1)
        static let execute = UInt64(AK_LANDLOCK_ACCESS_FS_EXECUTE)
        static let writeFile = UInt64(AK_LANDLOCK_ACCESS_FS_WRITE_FILE)
        static let readFile = UInt64(AK_LANDLOCK_ACCESS_FS_READ_FILE)
        static let readDir = UInt64(AK_LANDLOCK_ACCESS_FS_READ_DIR)
        static let removeDir = UInt64(AK_LANDLOCK_ACCESS_FS_REMOVE_DIR)
        static let removeFile = UInt64(AK_LANDLOCK_ACCESS_FS_REMOVE_FILE)
        static let makeDir = UInt64(AK_LANDLOCK_ACCESS_FS_MAKE_DIR)
        static let makeRegular = UInt64(AK_LANDLOCK_ACCESS_FS_MAKE_REG)
        /// ABI 2.
        static let refer = UInt64(AK_LANDLOCK_ACCESS_FS_REFER)
        /// ABI 3.
        static let truncate = UInt64(AK_LANDLOCK_ACCESS_FS_TRUNCATE)
        /// ABI 5.
        static let ioctlDevice = UInt64(AK_LANDLOCK_ACCESS_FS_IOCTL_DEV)
    }

    /// Network access bits (ABI 4).
    enum NetworkAccess {
        static let bindTCP = UInt64(AK_LANDLOCK_ACCESS_NET_BIND_TCP)
        static let connectTCP = UInt64(AK_LANDLOCK_ACCESS_NET_CONNECT_TCP)
    }

    /// The running kernel's Landlock ABI version; `-1` (with `errno`) without Landlock.
    static func abiVersion() -> Int32 { ak_landlock_abi_version() }

    /// `landlock_create_ruleset` handling these rights: a ruleset descriptor, or `-1`.
    static func createRuleset(fileSystem: UInt64, network: UInt64) -> Int32 {
        ak_landlock_create_ruleset(fileSystem, network)
    }

    /// `landlock_add_rule(LANDLOCK_RULE_PATH_BENEATH)`: `allowed` beneath the open `folder`.
    static func allowBeneath(ruleset: Int32, folder: Int32, allowed: UInt64) -> Int32 {
        ak_landlock_allow_beneath(ruleset, folder, allowed)
    }

    /// `landlock_restrict_self`: confines the calling thread (and what it starts).
    static func restrictSelf(ruleset: Int32) -> Int32 { ak_landlock_restrict_self(ruleset) }
}
