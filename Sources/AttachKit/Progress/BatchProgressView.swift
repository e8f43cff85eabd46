/// What a batch's progress bar shows on a terminal, as a pure function of the events so far and
/// the time: the bar (files done of all, ETA, failures, bytes in and out, rate), then one line per
/// file in progress (its path, how far its encode has got, how long it has run). The CLI's
/// `ProgressRenderer` feeds it events and redraws its ``lines(elapsed:width:)``.
///
/// The ETA does not freeze while a long file runs: it is the bytes of this run's inputs left
/// (those not already done) over the rate at which bytes have been prepared so far, counting the
/// part of each file in progress that its encode reports done (``BatchEvent/progress``). Before
/// anything can be measured (1 % of the bytes, or a file finished) it says `ETA ?`.
package struct BatchProgressView: Sendable {
    /// A file being prepared.
    package struct Running: Sendable, Equatable {
        package var path: String
        package var bytes: Int64
        /// When it started, seconds since the run started.
        package var started: Double
        /// The share of its output encoded, from its encode's reports; `nil` until one comes (images,
        /// stream copies, the probe before an encode).
        package var fraction: Double?
    }

    package var total = 0
    package var done = 0
    package var failed = 0
    package var bytesIn: Int64 = 0
    package var bytesOut: Int64 = 0
    /// Files and bytes this run prepares (not already done), from ``BatchEvent/queued(files:bytes:)``.
    package var queuedFiles = 0
    package var queuedBytes: Int64 = 0
    /// Files and input bytes this run has finished (not those skipped as done earlier).
    package var finishedFiles = 0
    package var finishedBytes: Int64 = 0
    /// In the order they started.
    package var running: [Running] = []
    /// File lines shown at most; the rest are counted on one line.
    package var maxFileLines = 8

    package init() {}

    /// Takes in `event`, which came `elapsed` seconds after the run started.
    package mutating func apply(_ event: BatchEvent, at elapsed: Double) {
        switch event {
        case .planned(let total, _, _, _):
            self.total = total
        case .queued(let files, let bytes):
            queuedFiles = files
            queuedBytes = bytes
        case .started(let path, let bytes):
            running.append(Running(path: path, bytes: bytes, started: elapsed, fraction: nil))
        case .progress(let path, let fraction):
            if let index = running.firstIndex(where: { $0.path == path }) {
                running[index].fraction = min(1, max(0, fraction))
            }
        case .finished(let item):
            done += 1
            if !item.ok { failed += 1 }
            bytesIn += item.inputBytes
            bytesOut += item.outputBytes
            if let index = running.firstIndex(where: { $0.path == item.relativePath }) {
                finishedBytes += running[index].bytes
                running.remove(at: index)
            }
            if !item.skipped { finishedFiles += 1 }
        }
    }

    /// This run's work done so far, in input bytes: the files finished, and the encoded share of
    /// those in progress.
    package var preparedBytes: Double {
        Double(finishedBytes) + running.reduce(0) { $0 + Double($1.bytes) * ($1.fraction ?? 0) }
    }

    /// Seconds left, `nil` before anything could be measured: by bytes when the run's bytes are
    /// known, else by files (each file in progress counting for its encoded share).
    package func eta(elapsed: Double) -> Double? {
        guard elapsed > 0 else { return nil }
        if queuedBytes > 0 {
            // Under 1 % done and no file finished, a projection is noise.
            let prepared = preparedBytes
            guard prepared > 0, finishedFiles > 0 || prepared >= 0.01 * Double(queuedBytes) else { return nil }
            return max(0, Double(queuedBytes) - prepared) * elapsed / prepared
        }
        let files = Double(finishedFiles) + running.reduce(0) { $0 + ($1.fraction ?? 0) }
        guard files > 0 else { return nil }
        let left = Double(max(queuedFiles, total - (done - finishedFiles))) - files
        return max(0, left) * elapsed / files
    }

    /// The bar, then a line per file in progress (at most ``maxFileLines``, then `… and N more`),
    /// each at most `width - 1` columns (a line that reached the last column would wrap on some
    /// terminals). Paths are escaped (``TerminalText/escape(_:)``): a name cannot move the cursor,
    /// clear the screen or hide another.
    package func lines(elapsed: Double, width: Int) -> [String] {
        let room = max(20, width - 1)
        let shown = running.prefix(maxFileLines)
        var lines = [TerminalText.truncated(bar(elapsed: elapsed), to: room)]
        for file in shown {
            var tail = "  " + Self.duration(elapsed - file.started)
            if let fraction = file.fraction { tail = "  \(Int((fraction * 100).rounded(.down)))%" + tail }
            let lead = "  "
            let name = TerminalText.truncatedKeepingEnd(TerminalText.escape(file.path), to: max(8, room - lead.count - tail.count))
            lines.append(TerminalText.truncated(lead + name + tail, to: room))
        }
        if running.count > shown.count { lines.append("  … and \(running.count - shown.count) more") }
        return lines
    }

    /// `[#####...] 2/3 files  ETA 12 s  0 failed  106 KB → 86 KB  3.2 files/s`: what matters most
    /// first, so a narrow terminal cuts the rate, then the bytes.
    private func bar(elapsed: Double) -> String {
        let share = running.reduce(0) { $0 + ($1.fraction ?? 0) }
        let fraction = total == 0 ? 1 : (Double(done) + share) / Double(total)
        let rate = Double(done) / max(0.001, elapsed)
        let eta = eta(elapsed: elapsed).map { Self.duration($0) } ?? "?"
        return Self.gauge(fraction) + " \(done)/\(total) files  ETA \(eta)  \(failed) failed  "
            + "\(ByteCount.text(bytesIn)) → \(ByteCount.text(bytesOut))  \((rate * 10).rounded() / 10) files/s"
    }

    /// `[######..................]`: `fraction` of 24 cells.
    package static func gauge(_ fraction: Double) -> String {
        let width = 24
        let filled = (fraction * Double(width)).clampedInteger(in: 0...width, rounding: .down)
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }

    /// `42 s`, `3:05`, `2:07:09`.
    package static func duration(_ seconds: Double) -> String {
        let s = seconds.clampedInteger(in: 0...Int.max, rounding: .toNearestOrAwayFromZero)
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60):\(String(format2: s % 60))" }
        return "\(s / 3600):\(String(format2: (s % 3600) / 60)):\(String(format2: s % 60))"
    }
}

private extension String {
    /// Two digits: `05`.
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : String(value) }
}
