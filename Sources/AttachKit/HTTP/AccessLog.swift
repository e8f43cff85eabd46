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
            let fd: FileDescriptor
            do { fd = try FileDescriptor.open(destination, [.writeOnly, .append, .create, .noFollow], mode: 0o644) } catch {
                throw ServiceError(code: .writeFailed, message: "cannot open the access log \(destination): \(error)")
            }
            (descriptor, owned) = (fd.release(), true)
        }
    }

    private init(descriptor: Int32?) {
        self.descriptor = descriptor
        owned = false
    }

    /// The log on standard error (the default).
    package static let standardError = AccessLog(descriptor: 2)

    deinit {
        if owned, let descriptor { FileDescriptor(adopting: descriptor).close() }
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
                let written = line.withUnsafeBytes { (try? FileDescriptor.write(descriptor, UnsafeRawBufferPointer(rebasing: $0[offset...]))) ?? -1 }
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
        let parts = SystemClock.calendar(Int(seconds.rounded(.down)))
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int((seconds - seconds.rounded(.down)) * 1000)
        let ms = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.year)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)).\(ms)Z"
    }

    /// Now, seconds since the epoch (wall clock, for the log's `time`).
    package static var now: Double {
        let wall = SystemClock.wall()
        return Double(wall.seconds) + Double(wall.nanoseconds) / 1e9
    }
}
