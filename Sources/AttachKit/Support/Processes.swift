/// Whether the process that left something behind is still there.
enum Processes {
    /// Whether no process `pid` runs any more: `kill(pid, 0)` fails with `ESRCH`, or it is a zombie
    /// (dead, its exit status not yet collected: a worker killed with its batch stays one until
    /// its new parent reaps it, and writes nothing). One that exists but belongs to another user
    /// answers `EPERM`: it is alive. This process is alive.
    static func isGone(_ pid: Int32) -> Bool {
        guard pid > 0, pid != SystemProcess.id else { return false }
        do { try Signal.probe.send(to: pid) } catch { return error == .noSuchProcess }
        return isZombie(pid)
    }

    /// Whether `/proc/PID/stat` gives the state `Z` (zombie) or `X` (dead).
    private static func isZombie(_ pid: Int32) -> Bool {
        guard let fd = try? FileDescriptor.open("/proc/\(pid)/stat", .readOnly) else { return false }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = (try? fd.read(into: &buffer, retryOnInterrupt: false)) ?? -1
        // "PID (COMMAND) STATE ...": the command may hold spaces and parentheses, so read after the last ")".
        guard count > 0, let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return false }
        return buffer[close + 2] == UInt8(ascii: "Z") || buffer[close + 2] == UInt8(ascii: "X")
    }
}
