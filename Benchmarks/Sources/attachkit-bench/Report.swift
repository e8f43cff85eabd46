import Foundation

/// Writes the results as Markdown and CSV; `Benchmarks/chart.py` draws the chart from the CSV.
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
            if let reference = result.scenario.reference {
                for (kind, value) in Self.targets(of: result.scenario) {
                    lines.append("target,\(result.scenario.name),\(reference),\(value.map { fmt($0, 4) } ?? ""),\(kind),,,,,,")
                }
            }
        }
        for row in budget {
            lines.append("budget,\(row.operation),\(row.inputClass),\(row.amount),\(row.unit),\(fmt(row.stats.wall, 4)),\(fmt(row.stats.wallMin, 4)),\(fmt(row.stats.wallMax, 4)),\(fmt(row.stats.cpu, 4)),\(fmt(row.stats.peakMB, 1)),\(row.stats.failed ? "failed" : "ok")")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A scenario's targets as CSV kinds: `wall-ratio-max`, `rss-ratio-max` (AttachKit ÷ reference
    /// at most), `speedup-min` (reference ÷ AttachKit at least); `none` with no value when the
    /// scenario names a reference and states no target.
    static func targets(of scenario: Scenario) -> [(kind: String, value: Double?)] {
        let stated: [(String, Double?)] = [("wall-ratio-max", scenario.wallTarget), ("rss-ratio-max", scenario.rssTarget),
                                           ("speedup-min", scenario.speedupTarget)].filter { $0.1 != nil }
        return stated.isEmpty ? [("none", nil)] : stated
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
}
