/// The batch report's totals: what its summary shows, from every entry.
struct ReportSummary: Sendable {
    var inputs = 0
    var prepared = 0
    var refused = 0
    /// Every input's bytes, as recorded (an input whose line has no size counts 0).
    var bytesBefore: Int64 = 0
    /// The prepared inputs' bytes, and their outputs'.
    var bytesBeforePrepared: Int64 = 0
    var bytesAfter: Int64 = 0
    /// The preparations' own times, summed (`elapsedMs` of every line), seconds.
    var workSeconds = 0.0
    /// The run's wall-clock time, when the report is drawn at the end of one (`batch --report`).
    var runSeconds: Double?
    /// Headline action → prepared inputs, most first.
    var actions: [(name: String, count: Int)] = []
    /// Refusal code → inputs, most first.
    var refusals: [(name: String, count: Int)] = []

    init(_ entries: [ReportEntry], runSeconds: Double?) {
        self.runSeconds = runSeconds
        var actions: [String: Int] = [:], refusals: [String: Int] = [:]
        for entry in entries {
            inputs += 1
            bytesBefore = bytesBefore.saturatingAdd(entry.bytesBefore ?? 0)
            workSeconds += entry.elapsedMilliseconds / 1000
            if entry.ok {
                prepared += 1
                bytesBeforePrepared = bytesBeforePrepared.saturatingAdd(entry.bytesBefore ?? 0)
                bytesAfter = bytesAfter.saturatingAdd(entry.bytesAfter ?? 0)
                actions[entry.action ?? "none", default: 0] += 1
            } else {
                refused += 1
                refusals[entry.errorCode ?? "unknown", default: 0] += 1
            }
        }
        let ranked = { (counts: [String: Int]) in
            counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { (name: $0.key, count: $0.value) }
        }
        self.actions = ranked(actions)
        self.refusals = ranked(refusals)
    }

    /// `12.3 s`, `4 min 05 s`, `2 h 03 min`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return ReportEntry.Media.seconds(seconds) }
        let whole = seconds.clampedInteger(in: 0...Int(Int32.max))
        if whole < 3600 { return "\(whole / 60) min \(String(format2: whole % 60)) s" }
        return "\(whole / 3600) h \(String(format2: whole % 3600 / 60)) min"
    }

    /// Now, as `2026-12-01 04:55 UTC`.
    static func now() -> String {
        SystemClock.utc(SystemClock.wall().seconds, format: "%Y-%m-%d %H:%M UTC")
    }
}

private extension String {
    /// Two digits: `05`.
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
}
