#if canImport(Glibc)
import Glibc
#endif

/// Where `attachkit http` writes one JSON line per answered request (`--access-log FILE|-|off`,
/// default `-`: standard error): `time` (UTC, milliseconds), `requestId` (echoed as
/// `X-Request-Id`), `method`, `path` (without the query, which may carry a signature), `status`,
/// `code` (the error code, absent when ok), `bytesIn`, `bytesOut`, `durationMs`, `outcome` (`ok`,
/// an error code, `client-gone`, `timed-out`, `shut-down`) and `client` (its address). Each line
/// is one `write(2)` under a lock, so lines from many connections never interleave.
package final class AccessLog: Sendable {
    /// The descriptor written to; `nil` when the log is off.
    private let descriptor: Int32?
    private let owned: Bool
    private let lock = Locked<Void>(())

    /// Standard error (`-`), nothing (`off`) or the file at `path`, appended to (created 0644).
    /// - Throws: ``ServiceError`` `write-failed` naming the file and the OS's reason when it
    ///   cannot be opened.
    package init(_ destination: String) throws(ServiceError) {
        switch destination {
        case "-":
            (descriptor, owned) = (2, false)
        case "off":
            (descriptor, owned) = (nil, false)
        default:
            let fd = open(destination, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard fd >= 0 else {
                throw ServiceError(code: .writeFailed, message: "cannot open the access log \(destination): \(String(cString: strerror(errno)))")
            }
            (descriptor, owned) = (fd, true)
        }
    }

    private init(descriptor: Int32?) {
        self.descriptor = descriptor
        owned = false
    }

    /// The log on standard error (the default).
    package static let standardError = AccessLog(descriptor: 2)

    deinit {
        if owned, let descriptor { close(descriptor) }
    }

    /// Whether lines are written at all.
    package var isOn: Bool { descriptor != nil }

    /// Writes one entry as a JSON line.
    package func write(_ entry: JSONValue) {
        guard let descriptor else { return }
        let line = Array((entry.serialized + "\n").utf8)
        lock.withLock { _ in
            var offset = 0
            while offset < line.count {
                let written = line.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// The line `attachkit serve` logs for one answered request: `time`, `id` (the request's),
    /// `op`, `ok`, `code` (when not ok) and `durationMs`.
    package static func serveEntry(request: String, response: String, seconds: Double) -> JSONValue {
        let asked = try? JSONValue.parse(request)
        let answered = try? JSONValue.parse(response)
        var entry: [(String, JSONValue)] = [("time", .string(timestamp(now))), ("id", answered?["id"] ?? .null),
                                            ("op", asked?["op"] ?? .null), ("ok", answered?["ok"] ?? .bool(false))]
        if let code = answered?["error"]?["code"] { entry.append(("code", code)) }
        entry.append(("durationMs", .number((seconds * 1000 * 10).rounded() / 10)))
        return .object(entry)
    }

    /// `2026-12-02T07:20:31.123Z` for `seconds` since the epoch.
    static func timestamp(_ seconds: Double) -> String {
        var whole = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&whole, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int((seconds - seconds.rounded(.down)) * 1000)
        let ms = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
    }

    /// Now, seconds since the epoch (wall clock, for the log's `time`).
    package static var now: Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
