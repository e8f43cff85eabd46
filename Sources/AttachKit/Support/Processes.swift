#if canImport(Glibc)
import Glibc
#endif

/// Whether the process that left something behind is still there.
enum Processes {
    /// Whether no process `pid` exists any more (`kill(pid, 0)` fails with `ESRCH`). One that
    /// exists but belongs to another user answers `EPERM`: it is alive. This process is alive. A
    /// process killed but not yet reaped by its parent still exists.
    static func isGone(_ pid: pid_t) -> Bool {
        pid > 0 && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
    }
}
