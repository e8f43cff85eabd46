import AttachKit

/// Batch progress on stderr: a redrawn bar on a terminal (files done/total, bytes in/out, rate,
/// ETA, failures), one plain line per file otherwise.
final class ProgressRenderer: Sendable {
    private struct State {
        var total = 0
        var done = 0
        var failed = 0
        var bytesIn: Int64 = 0
        var bytesOut: Int64 = 0
        var start = ContinuousClock.now
    }

    private let terminal: Bool
    private let state = Locked(State())

    init(terminal: Bool) { self.terminal = terminal }

    func handle(_ event: BatchEvent) {
        let line: HumanText? = state.withLock { s -> HumanText? in
            switch event {
            case .planned(let total, let skipped, _, let isolation):
                s.total = total
                s.start = .now
                let place = isolation == "in-process" ? "in-process" : "in \(isolation)"
                // A plain line even on a terminal: the bar is drawn below it.
                Output.error("batch: \(total) file(s), \(skipped) already done; work runs \(place)")
                return nil
            case .finished(let item):
                s.done += 1
                if !item.ok { s.failed += 1 }
                s.bytesIn += item.inputBytes
                s.bytesOut += item.outputBytes
                if terminal { return "\(rendered: bar(s))" }
                let status = item.skipped ? "skip" : item.ok ? "ok" : "FAIL"
                let what = item.outcome?.error.map { "\($0.code): \($0.message)" } ?? item.outcome?.action ?? "done earlier"
                let ms = item.skipped ? "" : " (\(item.elapsedMilliseconds.clampedInteger(in: 0...Int.max)) ms)"
                return "[\(s.done)/\(s.total)] \(status) \(item.relativePath): \(what)\(ms)"
            }
        }
        if let line { Output.error(terminal ? "\r\u{1B}[2K\(rendered: line.description)\u{1B}[1A" : line) }
    }

    /// Progress of a sequence of runs that are not files of a batch (`attachkit budget`): `done`
    /// of `total`, working on `label` now.
    func step(_ done: Int, of total: Int, _ label: String) {
        let line: HumanText = "\(rendered: Self.gauge(total == 0 ? 1 : Double(done) / Double(total))) \(done)/\(total)  \(label)"
        Output.error(terminal ? "\r\u{1B}[2K\(rendered: line.description)\u{1B}[1A" : line)
    }

    func finish() {
        if terminal { Output.error("") }
    }

    /// `[######..................]`: `fraction` of 24 cells.
    private static func gauge(_ fraction: Double) -> String {
        let width = 24
        let filled = (fraction * Double(width)).clampedInteger(in: 0...width, rounding: .down)
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }

    private func bar(_ s: State) -> String {
        let fraction = s.total == 0 ? 1 : Double(s.done) / Double(s.total)
        let elapsed = ContinuousClock.now - s.start
        let seconds = max(0.001, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let rate = Double(s.done) / seconds
        let eta = rate > 0 ? (Double(s.total - s.done) / rate).clampedInteger(in: 0...Int.max) : 0
        return Self.gauge(fraction) + " "
            + "\(s.done)/\(s.total) files  in \(Format.bytes(s.bytesIn)) out \(Format.bytes(s.bytesOut))  "
            + "\((rate * 10).rounded() / 10) files/s  ETA \(eta) s  failures \(s.failed)"
    }
}

/// The closing table of a batch.
enum BatchSummaryTable {
    static func render(_ summary: BatchSummary, manifest: String) -> HumanText {
        var lines: [HumanText] = []
        let before = summary.failedBefore > 0 ? " (\(summary.failedBefore) of them failed in an earlier run: --retry-failed prepares them again)" : ""
        lines.append("batch: \(summary.total) file(s): \(summary.prepared) prepared, \(summary.skipped) already done\(before), \(summary.failed) failed\(rendered: summary.interrupted ? ", INTERRUPTED" : "") in \((summary.elapsedSeconds * 10).rounded() / 10) s")
        lines.append("\(summary.bytesLine)")
        var table = Table(["ACTION", "FILES"])
        for (action, count) in summary.actions.sorted(by: { $0.key < $1.key }) { table.add([action, String(count)]) }
        if !summary.actions.isEmpty { lines.append(table.render()) }
        var kinds = Table(["KIND", "FILES"])
        for (kind, count) in summary.kinds.sorted(by: { $0.key < $1.key }) { kinds.add([kind, String(count)]) }
        if !summary.kinds.isEmpty { lines.append(kinds.render()) }
        if !summary.failures.isEmpty {
            var failures = Table(["FAILED", "CODE", "REASON"])
            for failure in summary.failures { failures.add([failure.path, failure.code.rawValue, failure.message]) }
            lines.append(failures.render())
        }
        if !summary.slowest.isEmpty {
            var slow = Table(["SLOWEST", "MS"])
            for item in summary.slowest { slow.add([item.path, String(item.milliseconds.clampedInteger(in: 0...Int.max))]) }
            lines.append(slow.render())
        }
        lines.append("manifest: \(manifest)")
        return "\(rendered: lines.map(\.description).joined(separator: "\n"))"
    }
}
