/// What `GET /metrics` reports, in the Prometheus text format (version 0.0.4): requests by
/// operation and outcome, their durations as a histogram, bytes in and out, and refusals by error
/// code; the in-flight gauge and worker restarts are read when rendered. Safe to use from every
/// connection's thread.
package final class HTTPMetrics: Sendable {
    /// Upper bounds of the duration histogram's buckets, seconds (`+Inf` follows): from a probe
    /// (milliseconds) to a long transcode (a minute).
    package static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    private struct Histogram {
        var counts = [Int](repeating: 0, count: HTTPMetrics.buckets.count)
        var sum = 0.0
        var count = 0
    }

    private struct Key: Hashable, Comparable {
        let op: String
        let outcome: String
        let status: Int
        static func < (a: Key, b: Key) -> Bool { (a.op, a.outcome, a.status) < (b.op, b.outcome, b.status) }
    }

    private struct State {
        var requests: [Key: Int] = [:]
        var refusals: [ErrorCode: Int] = [:]
        var durations: [String: Histogram] = [:]
        var received: Int64 = 0
        var sent: Int64 = 0
    }

    private let state = Locked(State())

    /// The `attachkit_build_info` sample, read once (loading FFmpeg's core libraries in this process
    /// the first time `/metrics` is scraped, so the versions are those the workers load too).
    private static let buildInfo: String = {
        let libraries = RuntimeLibraries.current(filters: false)
        let labels = [("version", BuildInfo.version), ("commit", BuildInfo.commit), ("vips", libraries.vips), ("ffmpeg", libraries.ffmpeg ?? "unavailable")]
        return "attachkit_build_info{" + labels.map { "\($0)=\"\($1.replacing("\\", with: "\\\\").replacing("\"", with: "\\\""))\"" }.joined(separator: ",") + "} 1"
    }()

    package init() {}

    /// Counts one request that ended.
    /// - Parameters:
    ///   - op: the endpoint (`prepare`, `probe`, `validate`, `jobs`, `healthz`, `readyz`,
    ///     `metrics`, `unknown`).
    ///   - status: its answer's status; ignored unless `ending` is `delivered` (the ending's
    ///     own status is counted: 499, 408 or 503).
    ///   - code: the error code of an error answer; `nil` for a success (outcome `ok`).
    ///   - ending: how it ended; default `delivered` (outcome `ok` or the code). Otherwise the
    ///     outcome is the ending (`client-gone`, `timed-out`, `shut-down`) and no refusal is counted.
    package func record(op: String, status: Int, code: ErrorCode?, ending: HTTPEnding = .delivered, seconds: Double, received: Int64, sent: Int64) {
        let delivered = ending == .delivered
        let key = Key(op: op, outcome: delivered ? code?.rawValue ?? "ok" : ending.rawValue, status: ending.status ?? status)
        state.withLock { s in
            s.requests[key, default: 0] += 1
            if delivered, let code { s.refusals[code, default: 0] += 1 }
            var histogram = s.durations[op] ?? Histogram()
            for (index, bound) in Self.buckets.enumerated() where seconds <= bound { histogram.counts[index] += 1 }
            histogram.sum += seconds
            histogram.count += 1
            s.durations[op] = histogram
            s.received += received
            s.sent += sent
        }
    }

    /// The exposition text.
    package func render(inFlight: Int, workerRestarts: Int) -> String {
        let s = state.withLock { $0 }
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
        }
        family("attachkit_http_requests_total", "counter", "Requests ended, by endpoint, outcome (ok, the error code, client-gone, timed-out or shut-down) and status.")
        for (key, count) in s.requests.sorted(by: { $0.key < $1.key }) {
            lines.append("attachkit_http_requests_total{op=\"\(key.op)\",outcome=\"\(key.outcome)\",status=\"\(key.status)\"} \(count)")
        }
        family("attachkit_http_request_duration_seconds", "histogram", "Time from a request's headers to its answer, by endpoint.")
        for (op, histogram) in s.durations.sorted(by: { $0.key < $1.key }) {
            for (bound, count) in zip(Self.buckets, histogram.counts) {
                lines.append("attachkit_http_request_duration_seconds_bucket{op=\"\(op)\",le=\"\(bound)\"} \(count)")
            }
            lines.append("attachkit_http_request_duration_seconds_bucket{op=\"\(op)\",le=\"+Inf\"} \(histogram.count)")
            lines.append("attachkit_http_request_duration_seconds_sum{op=\"\(op)\"} \(histogram.sum)")
            lines.append("attachkit_http_request_duration_seconds_count{op=\"\(op)\"} \(histogram.count)")
        }
        family("attachkit_http_received_bytes_total", "counter", "Request body bytes received.")
        lines.append("attachkit_http_received_bytes_total \(s.received)")
        family("attachkit_http_sent_bytes_total", "counter", "Response body bytes sent.")
        lines.append("attachkit_http_sent_bytes_total \(s.sent)")
        family("attachkit_http_requests_in_flight", "gauge", "Requests admitted and not yet answered (working or queued).")
        lines.append("attachkit_http_requests_in_flight \(inFlight)")
        family("attachkit_worker_restarts_total", "counter", "Worker processes replaced after a crash or a broken limit.")
        lines.append("attachkit_worker_restarts_total \(workerRestarts)")
        family("attachkit_build_info", "gauge", "Always 1: the build serving (version, commit) and the libvips and FFmpeg it runs against.")
        lines.append(Self.buildInfo)
        family("attachkit_http_refusals_total", "counter", "Error answers, by error code.")
        for (code, count) in s.refusals.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            lines.append("attachkit_http_refusals_total{code=\"\(code.rawValue)\"} \(count)")
        }
        lines += ProcessMetrics.lines()
        return lines.joined(separator: "\n") + "\n"
    }
}

/// How a request of `attachkit http` ended, as libmicrohttpd and the connection watch report it.
package enum HTTPEnding: String, Sendable {
    /// Its answer was handed to the connection whole (outcome `ok` or the error code).
    case delivered
    /// The client closed the connection before its answer was sent (status 499).
    case clientGone = "client-gone"
    /// The server cut the client off: it took longer than the header or read timeout (status 408).
    case timedOut = "timed-out"
    /// The server stopped (at the end of `--drain`) before the answer was sent (status 503).
    case shutDown = "shut-down"

    /// The status counted for it; `nil` for `delivered` (the answer's own).
    var status: Int? {
        switch self {
        case .delivered: return nil
        case .clientGone: return 499
        case .timedOut: return 408
        case .shutDown: return 503
        }
    }
}
