#if canImport(Glibc)
import Glibc
#endif

/// Whether the process that left something behind is still there.
enum Processes {
    /// Whether no process `pid` runs any more: `kill(pid, 0)` fails with `ESRCH`, or it is a zombie
    /// (dead, its exit status not yet collected: a worker killed with its batch stays one until
    /// its new parent reaps it, and writes nothing). One that exists but belongs to another user
    /// answers `EPERM`: it is alive. This process is alive.
    static func isGone(_ pid: pid_t) -> Bool {
        guard pid > 0, pid != getpid() else { return false }
        if kill(pid, 0) != 0 { return errno == ESRCH }
        return isZombie(pid)
    }

    /// Whether `/proc/PID/stat` gives the state `Z` (zombie) or `X` (dead).
    private static func isZombie(_ pid: pid_t) -> Bool {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        // "PID (COMMAND) STATE ...": the command may hold spaces and parentheses, so read after the last ")".
        guard count > 0, let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return false }
        return buffer[close + 2] == UInt8(ascii: "Z") || buffer[close + 2] == UInt8(ascii: "X")
    }
}
