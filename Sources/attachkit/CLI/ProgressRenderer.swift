import AttachKit
import Dispatch

/// Batch progress on stderr. On a terminal, a block redrawn in place: the bar (files done/total,
/// bytes in/out, rate, ETA, failures) and a line per file in progress with its encode's share and
/// time, drawn by ``BatchProgressView`` (a pure function of the events and the time, cut to the
/// terminal's width, names escaped); redrawn on every event and once a second, so the time and
/// the ETA move during a long file. Otherwise one plain line per file, as before.
final class ProgressRenderer: Sendable {
    /// Only touched under ``state``'s lock (the timer too, hence unchecked).
    private struct State: @unchecked Sendable {
        var view = BatchProgressView()
        var start = ContinuousClock.now
        /// Lines of the block drawn last (the cursor is at its first line).
        var drawn = 0
        var ticker: (any DispatchSourceTimer)?

        /// Seconds since the run started.
        var elapsed: Double {
            let d = ContinuousClock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }
    }

    private let terminal: Bool
    private let state = Locked(State())

    init(terminal: Bool) { self.terminal = terminal }

    /// Whether the batch should report files as they start and their encodes' progress: only
    /// what the bar shows.
    var wantsFileProgress: Bool { terminal }

    func handle(_ event: BatchEvent) {
        state.withLock { s in
            let elapsed = s.elapsed
            switch event {
            case .planned(let total, let skipped, _, let isolation):
                s.start = .now
                s.view.apply(event, at: 0)
                let place = isolation == "in-process" ? "in-process" : "in \(isolation)"
                // A plain line even on a terminal: the bar is drawn below it.
                Output.error("batch: \(total) file(s), \(skipped) already done; work runs \(place)")
                if terminal { startTicker(&s) }
                return
            case .finished(let item):
                s.view.apply(event, at: elapsed)
                guard !terminal else { break }
                let status = item.skipped ? "skip" : item.ok ? "ok" : "FAIL"
                let what = item.outcome?.error.map { "\($0.code): \($0.message)" } ?? item.outcome?.action ?? "done earlier"
                let ms = item.skipped ? "" : " (\(item.elapsedMilliseconds.clampedInteger(in: 0...Int.max)) ms)"
                Output.error("[\(s.view.done)/\(s.view.total)] \(status) \(item.relativePath): \(what)\(ms)")
                return
            case .queued, .started, .progress:
                s.view.apply(event, at: elapsed)
                guard terminal else { return }
            }
            draw(&s)
        }
    }

    /// Redraws the block in place: each line cleared and written, what is left of a longer block
    /// before cleared, the cursor back on the first line.
    private func draw(_ s: inout State) {
        let lines = s.view.lines(elapsed: s.elapsed, width: Self.terminalWidth())
        var text = "\r" + lines.map { "\u{1B}[2K" + $0 + "\n" }.joined() + "\u{1B}[J"
        text += "\u{1B}[\(lines.count)A"
        s.drawn = lines.count
        Output.terminal(text)
    }

    private func startTicker(_ s: inout State) {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            self.state.withLock { s in if s.ticker != nil { self.draw(&s) } }
        }
        timer.resume()
        s.ticker = timer
    }

    /// The columns of the terminal on stderr; 80 when it cannot be told.
    private static func terminalWidth() -> Int {
        SystemProcess.standardErrorColumns ?? 80
    }

    /// Progress of a sequence of runs that are not files of a batch (`attachkit budget`): `done`
    /// of `total`, working on `label` now.
    func step(_ done: Int, of total: Int, _ label: String) {
        let line: HumanText = "\(rendered: BatchProgressView.gauge(total == 0 ? 1 : Double(done) / Double(total))) \(done)/\(total)  \(label)"
        Output.error(terminal ? "\r\u{1B}[2K\(rendered: line.description)\u{1B}[1A" : line)
    }

    /// Ends the progress: on a terminal, the last bar stays, the file lines go.
    func finish() {
        guard terminal else { return }
        state.withLock { s in
            s.ticker?.cancel()
            s.ticker = nil
            if s.drawn > 0 {
                s.view.running = []
                let bar = s.view.lines(elapsed: s.elapsed, width: Self.terminalWidth()).first ?? ""
                Output.terminal("\r\u{1B}[2K" + bar + "\n\u{1B}[J")
                s.drawn = 0
            } else {
                Output.error("")
            }
        }
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
