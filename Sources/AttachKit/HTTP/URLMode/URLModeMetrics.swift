/// URL mode's share of `GET /metrics`: the result cache's hits, misses, evictions and bytes, and
/// the fetches from the origin by outcome (`ok`, `not-modified`, or the error: `not-found`,
/// `origin-failed`, `timed-out`, `over-cap`, `access-denied`...) with their durations.
package final class URLModeMetrics: Sendable {
    private struct State {
        var hits = 0, misses = 0, evictions = 0, evictedBytes: Int64 = 0, bytes: Int64 = 0
        var fetches: [String: Int] = [:]
        var fetchCounts = [Int](repeating: 0, count: HTTPMetrics.buckets.count)
        var fetchSum = 0.0, fetchCount = 0
    }

    private let state = Locked(State())

    package init() {}

    /// A request answered from the cache (`stale`: past its age, served as the origin was down).
    package func hit() { state.withLock { $0.hits += 1 } }
    /// A request the cache could not answer.
    package func miss() { state.withLock { $0.misses += 1 } }
    func evicted(_ size: Int64) { state.withLock { $0.evictions += 1; $0.evictedBytes += size; $0.bytes -= size } }
    func addBytes(_ size: Int64) { state.withLock { $0.bytes += size } }
    func setBytes(_ size: Int64) { state.withLock { $0.bytes = size } }

    /// One fetch from the origin (redirects included) that ended with `outcome` after `seconds`.
    package func fetched(_ outcome: String, seconds: Double) {
        state.withLock { s in
            s.fetches[outcome, default: 0] += 1
            for (index, bound) in HTTPMetrics.buckets.enumerated() where seconds <= bound { s.fetchCounts[index] += 1 }
            s.fetchSum += seconds
            s.fetchCount += 1
        }
    }

    /// Fetches counted so far with `outcome`.
    package func fetches(_ outcome: String) -> Int { state.withLock { $0.fetches[outcome] ?? 0 } }

    /// The exposition lines.
    package func render() -> String {
        let s = state.withLock { $0 }
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String, _ samples: [String]) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)"] + samples
        }
        family("attachkit_cache_hits_total", "counter", "URL-mode requests answered from the result cache.", ["attachkit_cache_hits_total \(s.hits)"])
        family("attachkit_cache_misses_total", "counter", "URL-mode requests the result cache could not answer.", ["attachkit_cache_misses_total \(s.misses)"])
        family("attachkit_cache_evictions_total", "counter", "Answers evicted from the result cache (least recently used).", ["attachkit_cache_evictions_total \(s.evictions)"])
        family("attachkit_cache_bytes", "gauge", "Bytes of answers in the result cache.", ["attachkit_cache_bytes \(s.bytes)"])
        family("attachkit_origin_fetches_total", "counter", "Fetches from the media origin, by outcome.",
               s.fetches.sorted { $0.key < $1.key }.map { "attachkit_origin_fetches_total{outcome=\"\($0.key)\"} \($0.value)" })
        family("attachkit_origin_fetch_duration_seconds", "histogram", "Time of a fetch from the media origin, redirects included.",
               zip(HTTPMetrics.buckets, s.fetchCounts).map { "attachkit_origin_fetch_duration_seconds_bucket{le=\"\($0)\"} \($1)" }
               + ["attachkit_origin_fetch_duration_seconds_bucket{le=\"+Inf\"} \(s.fetchCount)",
                  "attachkit_origin_fetch_duration_seconds_sum \(s.fetchSum)", "attachkit_origin_fetch_duration_seconds_count \(s.fetchCount)"])
        return lines.joined(separator: "\n") + "\n"
    }
}
