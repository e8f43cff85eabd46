/// The standard process metrics Prometheus' client libraries export, read from `/proc` when
/// `/metrics` is asked: `process_resident_memory_bytes`, `process_cpu_seconds_total`,
/// `process_open_fds`, `process_max_fds`, `process_start_time_seconds`; and
/// `attachkit_worker_resident_memory_bytes`, the worker processes' (this process's children)
/// resident memory summed.
enum ProcessMetrics {
    /// The exposition lines, with their `# HELP` and `# TYPE`.
    static func lines() -> [String] {
        var lines: [String] = []
        func gauge(_ name: String, _ type: String, _ help: String, _ value: String) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)", "\(name) \(value)"]
        }
        let me = SystemProcess.id
        gauge("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", String(WorkerProcess.residentBytes(of: me)))
        let ticks = Double(SystemProcess.clockTicksPerSecond)
        if let stat = statFields(of: me), stat.count > 21, ticks > 0 {
            // utime and stime are fields 14 and 15, starttime 22 (1-based, after the command name).
            let cpu = ((Double(stat[13]) ?? 0) + (Double(stat[14]) ?? 0)) / ticks
            gauge("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", String(cpu))
            if let boot = bootTime(), let start = Double(stat[21]) {
                gauge("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", String(Double(boot) + start / ticks))
            }
        }
        gauge("process_open_fds", "gauge", "Number of open file descriptors.", String(max(0, FileSystem.names(in: "/proc/self/fd").count)))
        if let limit = SystemProcess.openFileLimit {
            gauge("process_max_fds", "gauge", "Maximum number of open file descriptors.", String(limit))
        }
        let workers = children(of: me).reduce(Int64(0)) { $0 + WorkerProcess.residentBytes(of: $1) }
        gauge("attachkit_worker_resident_memory_bytes", "gauge", "Resident memory of the worker processes, summed.", String(workers))
        return lines
    }

    /// The fields of `/proc/PID/stat` after the command name (which may hold spaces): field 3 first.
    private static func statFields(of pid: Int32) -> [String]? {
        guard let text = read("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        // Fields 1 and 2 (pid, comm) stand for the two dropped: index 13 is field 14.
        return ["", ""] + text[text.index(after: close)...].split(separator: " ").map(String.init)
    }

    /// `btime` of `/proc/stat`: when the machine booted, seconds since the epoch.
    private static func bootTime() -> Int? {
        read("/proc/stat")?.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap { Int($0.dropFirst(6)) }
    }

    /// The children of `pid`, over all its threads (each thread's `children` lists those it spawned).
    private static func children(of pid: Int32) -> [Int32] {
        FileSystem.names(in: "/proc/\(pid)/task").flatMap { task in
            (read("/proc/\(pid)/task/\(task)/children") ?? "").split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// A small `/proc` file's text (at most 64 KiB).
    private static func read(_ path: String) -> String? {
        guard let fd = try? FileDescriptor.open(path, .readOnly) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = (try? fd.read(into: &buffer, retryOnInterrupt: false)) ?? -1
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }
}
