#if canImport(Glibc)
import Glibc
#endif

/// A signal number, with the names AttachKit sends, ignores or reports.
public struct Signal: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let interrupt = Signal(rawValue: SIGINT)
    public static let terminate = Signal(rawValue: SIGTERM)
    public static let kill = Signal(rawValue: SIGKILL)
    public static let brokenPipe = Signal(rawValue: SIGPIPE)
    public static let fileSizeExceeded = Signal(rawValue: SIGXFSZ)
    public static let cpuTimeExceeded = Signal(rawValue: SIGXCPU)
    public static let segmentationFault = Signal(rawValue: SIGSEGV)
    public static let abort = Signal(rawValue: SIGABRT)
    /// `0`: sent with `kill`, nothing is delivered; it fails with ``SystemError/noSuchProcess``
    /// when the process is gone, ``SystemError/notPermitted`` when it is another user's.
    static let probe = Signal(rawValue: 0)

    /// `SIGSEGV`, `SIGABRT`... (`signal N` for signals without a usual name).
    public var name: String {
        let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGILL: "SIGILL", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS",
                                      SIGFPE: "SIGFPE", SIGTRAP: "SIGTRAP", SIGKILL: "SIGKILL", SIGXCPU: "SIGXCPU",
                                      SIGSYS: "SIGSYS", SIGTERM: "SIGTERM", SIGPIPE: "SIGPIPE", SIGXFSZ: "SIGXFSZ"]
        return names[rawValue] ?? "signal \(rawValue)"
    }

    /// `signal(SIG_IGN)`: the process no longer gets it (a `DispatchSource` for it still fires).
    public func ignore() { _ = Glibc.signal(rawValue, SIG_IGN) }

    /// `signal(SIG_DFL)`.
    public func restoreDefault() { _ = Glibc.signal(rawValue, SIG_DFL) }

    /// `raise(3)`: sends it to the calling thread.
    public func raise() { _ = Glibc.raise(rawValue) }

    /// `kill(2)`: sends it to process `pid`.
    func send(to pid: Int32) throws(SystemError) { try SystemCall.check { Glibc.kill(pid, rawValue) } }
}

/// This process: its id, environment, limits and end (the libc calls behind them, in one place).
public enum SystemProcess {
    /// `getpid()`.
    public static var id: Int32 { getpid() }

    /// `getppid()`.
    public static var parentID: Int32 { getppid() }

    /// `getuid()`.
    static var userID: UInt32 { getuid() }

    /// `getenv(3)`.
    public static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// `setenv(3)`, replacing.
    static func setEnvironment(_ name: String, _ value: String) { setenv(name, value, 1) }

    /// The online processors (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1.
    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The memory page size in bytes.
    static var pageSize: Int64 { Int64(sysconf(Int32(_SC_PAGESIZE))) }

    /// Clock ticks per second (`_SC_CLK_TCK`, the unit of `/proc/PID/stat`'s times).
    static var clockTicksPerSecond: Int { Int(sysconf(Int32(_SC_CLK_TCK))) }

    /// Writes all of `bytes` to `descriptor` (standard output or error), going on after short
    /// writes and `EINTR`; a failure ends it silently (a reader that went away).
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        _ = bytes.withUnsafeBytes { try? FileDescriptor.writeAll(descriptor, $0) }
    }

    /// A field of `/proc/self/status` (`VmHWM`: the peak resident set size), as it is written
    /// there after the colon, blanks trimmed; `nil` when it is not there.
    public static func statusField(_ name: String) -> String? {
        guard let fd = try? FileDescriptor.open("/proc/self/status", .readOnly), let bytes = fd.readAll(limit: 1 << 20) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name + ":") {
            return String(line.dropFirst(name.count + 1).trimmingPrefix(while: { $0 == " " || $0 == "\t" }))
        }
        return nil
    }

    /// The CPU seconds (user and system, whole seconds) this process has used (`getrusage`).
    public static var cpuSecondsUsed: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
    }

    /// The resource limits a worker sets on itself (`setrlimit(2)`).
    public enum ResourceLimit: Sendable {
        /// `RLIMIT_CPU`, in seconds: `SIGXCPU` past the soft limit.
        case cpuSeconds
        /// `RLIMIT_CORE`, in bytes.
        case coreFileBytes
        /// `RLIMIT_AS`, in bytes: allocations past it fail.
        case addressSpaceBytes

        var resource: Int32 {
            switch self {
            case .cpuSeconds: return Int32(RLIMIT_CPU.rawValue)
            case .coreFileBytes: return Int32(RLIMIT_CORE.rawValue)
            case .addressSpaceBytes: return Int32(RLIMIT_AS.rawValue)
            }
        }
    }

    /// The largest limit (`RLIM_INFINITY`).
    public static let unlimited = UInt64(rlim_t.max)

    /// Sets `limit` to `soft` and `hard`, never above the hard limit already set (which an
    /// unprivileged process cannot raise).
    public static func setLimit(_ limit: ResourceLimit, soft: UInt64, hard: UInt64) {
        var wanted = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard))
        var current = rlimit()
        if getrlimit(limit.resource, &current) == 0 {
            wanted.rlim_max = min(rlim_t(hard), current.rlim_max)
            wanted.rlim_cur = min(rlim_t(soft), wanted.rlim_max)
        }
        setrlimit(limit.resource, &wanted)
    }

    /// `sleep(3)`.
    public static func sleep(seconds: UInt32) { _ = Glibc.sleep(seconds) }

    /// `abort(3)`: `SIGABRT`.
    public static func abort() -> Never { Glibc.abort() }

    /// `malloc(3)`s `bytes` and writes every byte (so they are resident), never freed: the
    /// workers' fault injection. `false` when `malloc` fails.
    public static func allocateResident(bytes: Int) -> Bool {
        guard let block = malloc(bytes) else { return false }
        memset(block, 1, bytes)
        return true
    }

    /// `isatty(3)` of standard error.
    public static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// Standard input, output and error.
    public static let standardInput: Int32 = STDIN_FILENO
    public static let standardOutput: Int32 = STDOUT_FILENO
    public static let standardError: Int32 = STDERR_FILENO

    /// Suspends the calling thread (`usleep(3)`; a signal may end it early).
    public static func sleep(microseconds: UInt32) { usleep(microseconds) }

    /// `exit(3)`: runs the exit handlers and flushes stdio.
    public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }

    /// `_exit(2)`: ends now, no handler run (async-signal-safe).
    public static func exitImmediately(_ status: Int32) -> Never { _exit(status) }

    /// `atexit(3)`.
    static func atExit(_ handler: @convention(c) () -> Void) { atexit(handler) }

    /// Whether `path` names a file this process may execute (`access(X_OK)`).
    static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// The soft limit on open descriptors (`RLIMIT_NOFILE`), `nil` when it cannot be read.
    static var openFileLimit: UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// The width of the terminal on standard error (`TIOCGWINSZ`), `nil` when it is not one.
    public static var standardErrorColumns: Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// Clocks.
enum SystemClock {
    /// `CLOCK_REALTIME`: seconds and nanoseconds since 1970.
    static func wall() -> (seconds: Int, nanoseconds: Int) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return (Int(spec.tv_sec), Int(spec.tv_nsec))
    }

    /// `CLOCK_MONOTONIC` in seconds.
    static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// A moment's calendar fields in UTC (`gmtime_r(3)`).
    struct CalendarTime {
        let year, month, day, hour, minute, second: Int32
    }

    /// `seconds` since 1970 in UTC: year (e.g. 2026), month 1...12, day, hour, minute, second.
    static func calendar(_ seconds: Int) -> CalendarTime {
        var clock = time_t(seconds)
        var parts = tm()
        gmtime_r(&clock, &parts)
        return CalendarTime(year: parts.tm_year + 1900, month: parts.tm_mon + 1, day: parts.tm_mday,
                            hour: parts.tm_hour, minute: parts.tm_min, second: parts.tm_sec)
    }

    /// `seconds` since 1970 formatted in UTC with `strftime(3)`'s `format`.
    static func utc(_ seconds: Int, format: String) -> String {
        var clock = time_t(seconds)
        var parts = tm()
        gmtime_r(&clock, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
