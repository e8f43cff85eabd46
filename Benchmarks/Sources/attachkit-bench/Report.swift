import Foundation

/// Writes the results as Markdown, CSV and an SVG chart, all drawn from the same numbers.
struct Report {
    let results: [ScenarioResult]
    let budget: [BudgetRow]
    let deadline: Double
    let machine: String
    let command: String

    func markdown() -> String {
        var lines = ["# AttachKit benchmarks", "",
                     "Machine: \(machine). Regenerate with `\(command)`.",
                     "Medians of whole-process runs (wall time, user+system CPU, peak RSS from `wait4`), after one warm-up, contenders alternating; at least 5 runs each, up to 15 for sub-second work (about 4 s per contender).", "",
                     "## Side by side", "",
                     "| scenario | tool | wall (s) | range | CPU (s) | peak RSS (MB) | ratio | target |",
                     "|---|---|---|---|---|---|---|---|"]
        for result in results {
            for (index, (name, stats)) in result.stats.enumerated() {
                var ratio = ""
                var target = ""
                if index == 0 {
                    if let wall = result.wallRatio { ratio = "wall \(fmt(wall))×" + (result.rssRatio.map { ", RSS \(fmt($0))×" } ?? "") }
                    if result.scenario.speedupTarget != nil, let speedup = result.speedup { ratio = "\(fmt(speedup, 1))× faster" }
                    let parts = [result.scenario.wallTarget.map { "wall ≤ \(fmt($0, 1))×" },
                                 result.scenario.rssTarget.map { "RSS ≤ \(fmt($0, 1))×" },
                                 result.scenario.speedupTarget.map { "≥ \(fmt($0, 1))× faster" }].compactMap { $0 }
                    target = parts.isEmpty ? "" : parts.joined(separator: ", ") + " vs \(result.scenario.reference ?? ""): **\(result.verdict)**"
                }
                let label = index == 0 ? "\(result.scenario.name): \(result.scenario.summary)" : ""
                lines.append("| \(label) | \(name) | \(fmt(stats.wall)) | \(fmt(stats.wallMin))–\(fmt(stats.wallMax)) | \(fmt(stats.cpu)) | \(fmt(stats.peakMB, 0)) | \(ratio) | \(target) |")
            }
            for (key, value) in result.extra { lines.append("| | \(key) | \(value) | | | | | |") }
        }
        lines += ["", "## Transcoding budget (deadline \(fmt(deadline, 0)) s)", "",
                  "| operation | input | wall (s) | CPU (s) | wall per unit | CPU per unit | longest within \(fmt(deadline, 0)) s |",
                  "|---|---|---|---|---|---|---|"]
        for (operation, rows) in groupedBudget() {
            let longest = Budget.longestWithin(deadline, rows: rows)
            for (index, row) in rows.enumerated() {
                if let refusal = row.refusal {
                    lines.append("| \(index == 0 ? operation : "") | \(row.inputClass) | no output | | | | \(refusal) |")
                    continue
                }
                if let failure = row.stats.failure {
                    lines.append("| \(index == 0 ? operation : "") | \(row.inputClass) | **failed** | | | | \(failure.replacingOccurrences(of: "|", with: "/")) |")
                    continue
                }
                var fits = index == rows.count - 1 ? longest.map { $0.isInfinite ? "any (constant time)" : "≈ \(fmt($0, 0)) \(row.unit)" } ?? "" : ""
                if row.deadlineMisses > 0 { fits = "deadline ran out in \(row.deadlineMisses) of \(row.stats.samples.count) runs" }
                lines.append("| \(index == 0 ? operation : "") | \(row.inputClass) | \(fmt(row.stats.wall)) | \(fmt(row.stats.cpu)) | \(fmt(row.perUnit, 3)) s/\(row.unit) | \(fmt(row.cpuPerUnit, 3)) s/\(row.unit) | \(fits) |")
            }
        }
        lines += ["", "![ratios and budget](chart.svg)", ""]
        return lines.joined(separator: "\n")
    }

    func csv() -> String {
        var lines = ["section,scenario_or_operation,tool_or_input,amount,unit,wall_median_s,wall_min_s,wall_max_s,cpu_s,peak_rss_mb,status"]
        for result in results {
            for (name, stats) in result.stats {
                lines.append("compare,\(result.scenario.name),\(name),,,\(fmt(stats.wall, 4)),\(fmt(stats.wallMin, 4)),\(fmt(stats.wallMax, 4)),\(fmt(stats.cpu, 4)),\(fmt(stats.peakMB, 1)),\(stats.failed ? "failed" : "ok")")
            }
        }
        for row in budget {
            lines.append("budget,\(row.operation),\(row.inputClass),\(row.amount),\(row.unit),\(fmt(row.stats.wall, 4)),\(fmt(row.stats.wallMin, 4)),\(fmt(row.stats.wallMax, 4)),\(fmt(row.stats.cpu, 4)),\(fmt(row.stats.peakMB, 1)),\(row.stats.failed ? "failed" : "ok")")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func groupedBudget() -> [(String, [BudgetRow])] {
        var order: [String] = []
        var groups: [String: [BudgetRow]] = [:]
        for row in budget {
            let resolution = String(row.inputClass.split(separator: " ").first ?? "")
            let key = row.operation.hasPrefix("VP9") ? row.operation + ", " + resolution : row.operation
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(row)
        }
        return order.map { ($0, groups[$0]!) }
    }

    /// Two panels: AttachKit ÷ reference wall-time ratio per scenario (with each target), and
    /// wall time against media duration for the video transcodes, one line per resolution.
    func svg() -> String {
        let width = 760.0
        var body: [String] = []
        let comparable = results.filter { $0.wallRatio != nil || $0.speedup != nil }
        let barHeight = 22.0
        let left = 190.0
        let plotWidth = width - left - 40
        let maxRatio = max(2.0, comparable.map { $0.scenario.speedupTarget != nil ? 1 / max(0.001, $0.speedup ?? 1) : ($0.wallRatio ?? 1) }.max() ?? 2)
        let scale = plotWidth / maxRatio
        body.append(#"<text x="10" y="22" font-size="15" font-weight="bold">AttachKit wall time ÷ reference tool (lower is faster; line = target)</text>"#)
        for (index, result) in comparable.enumerated() {
            let y = 40 + Double(index) * (barHeight + 8)
            let ratio = result.scenario.speedupTarget != nil ? 1 / max(0.001, result.speedup ?? 1) : (result.wallRatio ?? 0)
            let target = result.scenario.wallTarget ?? result.scenario.speedupTarget.map { 1 / $0 }
            let color = result.verdict == "MISSED" || result.verdict == "FAILED RUN" ? "#d9534f" : "#4a90d9"
            body.append(#"<text x="\#(left - 8)" y="\#(y + 15)" font-size="12" text-anchor="end">\#(result.scenario.name) vs \#(result.scenario.reference ?? "")</text>"#)
            body.append(#"<rect x="\#(left)" y="\#(y)" width="\#(max(1, ratio * scale))" height="\#(barHeight)" fill="\#(color)"/>"#)
            body.append(#"<text x="\#(left + max(1, ratio * scale) + 4)" y="\#(y + 15)" font-size="12">\#(fmt(ratio))×</text>"#)
            if let target {
                body.append(#"<line x1="\#(left + target * scale)" x2="\#(left + target * scale)" y1="\#(y - 2)" y2="\#(y + barHeight + 2)" stroke="black" stroke-width="2"/>"#)
            }
        }
        let firstPanel = 40 + Double(comparable.count) * (barHeight + 8) + 20
        body.append(#"<line x1="\#(left + scale)" x2="\#(left + scale)" y1="34" y2="\#(firstPanel - 14)" stroke="gray" stroke-dasharray="4 3"/>"#)

        // Panel 2: video transcode time against duration.
        let video = budget.filter { $0.operation.hasPrefix("VP9") && $0.refusal == nil && !$0.stats.failed }
        let top = firstPanel + 20
        let plotHeight = 220.0
        body.append(#"<text x="10" y="\#(top)" font-size="15" font-weight="bold">VP9 → H.264 transcode: wall time against clip length, per resolution and x264 preset</text>"#)
        if let maxAmount = video.map(\.amount).max(), let maxTime = video.map(\.stats.wall).max(), maxAmount > 0, maxTime > 0 {
            let x0 = 70.0, y0 = top + 20 + plotHeight, w = width - 120
            body.append(#"<line x1="\#(x0)" y1="\#(y0)" x2="\#(x0 + w)" y2="\#(y0)" stroke="black"/><line x1="\#(x0)" y1="\#(y0)" x2="\#(x0)" y2="\#(y0 - plotHeight)" stroke="black"/>"#)
            body.append(#"<text x="\#(x0 + w / 2)" y="\#(y0 + 32)" font-size="12" text-anchor="middle">clip length (s)</text>"#)
            body.append(#"<text x="16" y="\#(y0 - plotHeight / 2)" font-size="12" transform="rotate(-90 16 \#(y0 - plotHeight / 2))" text-anchor="middle">wall time (s)</text>"#)
            for tick in 0...4 {
                let value = maxTime * Double(tick) / 4
                let y = y0 - plotHeight * Double(tick) / 4
                body.append(#"<text x="\#(x0 - 6)" y="\#(y + 4)" font-size="11" text-anchor="end">\#(fmt(value, 1))</text>"#)
                let amount = maxAmount * Double(tick) / 4
                body.append(#"<text x="\#(x0 + w * Double(tick) / 4)" y="\#(y0 + 16)" font-size="11" text-anchor="middle">\#(fmt(amount, 0))</text>"#)
            }
            let colors = ["#4a90d9", "#e08a1e", "#3ba55c", "#9b59b6", "#d9534f", "#17a2b8"]
            let groups = Dictionary(grouping: video) { "\($0.inputClass.split(separator: " ")[0]) \($0.operation.split(separator: " ").last ?? "")" }
            for (index, key) in groups.keys.sorted().enumerated() {
                let points = groups[key]!.sorted { $0.amount < $1.amount }
                    .map { "\(x0 + w * $0.amount / maxAmount),\(y0 - plotHeight * $0.stats.wall / maxTime)" }
                let color = colors[index % colors.count]
                body.append(#"<polyline fill="none" stroke="\#(color)" stroke-width="2" points="\#(points.joined(separator: " "))"/>"#)
                body.append(#"<text x="\#(x0 + w + 6)" y="\#(top + 40 + Double(index) * 16)" font-size="12" fill="\#(color)">\#(key)</text>"#)
            }
        }
        let height = top + 300
        return #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(height)" font-family="sans-serif">"# + "\n"
            + #"<rect width="100%" height="100%" fill="white"/>"# + "\n" + body.joined(separator: "\n") + "\n</svg>\n"
    }
}
