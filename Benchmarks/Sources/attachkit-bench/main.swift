import AttachKit
import Foundation

/// `swift run -c release attachkit-bench [--quick] [--out DIR] [--repetitions N] [--deadline S] [--only NAME...]`
///
/// Runs AttachKit side by side with vipsthumbnail, ImageMagick, Pillow, ffmpeg/ffprobe on the
/// same inputs, then measures the transcoding budget table, and writes results.md, results.csv
/// and (through Benchmarks/chart.py) chart.png and chart.svg into the output folder (default Benchmarks/results; --quick writes to
/// Benchmarks/results/quick and asserts nothing about speed: it checks the harness runs).
func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    func value(_ name: String) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        defer { arguments.removeSubrange(index...(index + 1)) }
        return arguments[index + 1]
    }
    let quick = arguments.contains("--quick")
    let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let out = URL(fileURLWithPath: value("--out") ?? repoRoot.appendingPathComponent(quick ? "Benchmarks/results/quick" : "Benchmarks/results").path)
    let repetitions = Int(value("--repetitions") ?? "") ?? (quick ? 1 : 5)
    let deadline = Double(value("--deadline") ?? "") ?? 30
    var only: Set<String> = []
    while let name = value("--only") { only.insert(name) }

    let binFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let attachkit = binFolder.appendingPathComponent("attachkit").path
    guard FileManager.default.isExecutableFile(atPath: attachkit) else {
        FileHandle.standardError.write(Data("attachkit-bench: build attachkit first (swift build -c release)\n".utf8))
        return 1
    }
    let log: (String) -> Void = { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }
    let inputs = Inputs(folder: repoRoot.appendingPathComponent("Benchmarks/.inputs"), repoRoot: repoRoot, log: log)
    try? FileManager.default.createDirectory(at: inputs.folder, withIntermediateDirectories: true)
    let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("attachkit-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }

    let scenarios = Scenarios(attachkit: attachkit, inputs: inputs, scratch: scratch, quick: quick)
    var results: [ScenarioResult] = []
    for (name, make) in scenarios.all() where only.isEmpty || only.contains(name) {
        results.append(Runner.run(make(), repetitions: repetitions, log: log))
    }
    var budget: [BudgetRow] = []
    if only.isEmpty || only.contains("budget") {
        log("▶ budget table")
        budget = Budget(attachkit: attachkit, inputs: inputs, scratch: scratch, quick: quick, repetitions: max(1, repetitions / 2)).measure(log: log)
    }
    if only.isEmpty || only.contains("deadline") { DeadlineBench(attachkit: attachkit, inputs: inputs, scratch: scratch, quick: quick).write(to: out, log: log) }
    let cpuModel = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.split(separator: "\n")
        .first { $0.hasPrefix("model name") }.map { String($0.split(separator: ":").last ?? "").trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
    let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores (\(cpuModel)), \(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB"
    let command = "swift run -c release attachkit-bench" + (quick ? " --quick" : "")
    let report = Report(results: results, budget: budget, deadline: deadline, machine: machine, command: command)
    try? FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    do {
        try report.markdown().write(to: out.appendingPathComponent("results.md"), atomically: true, encoding: .utf8)
        try report.csv().write(to: out.appendingPathComponent("results.csv"), atomically: true, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("attachkit-bench: cannot write results: \(error)\n".utf8))
        return 1
    }
    // Debian's Python: scripts/bench.sh installs its matplotlib (python3-matplotlib).
    let chart = ["/usr/bin/python3", repoRoot.appendingPathComponent("Benchmarks/chart.py").path, out.appendingPathComponent("results.csv").path]
    if let failure = Measure.run(chart).failure {
        log("the chart was not drawn (\(failure)); draw it again with: \(chart.joined(separator: " "))")
        return 1
    }
    log("results: \(out.path)/results.md, results.csv, chart.png, chart.svg")
    let failedRuns = results.filter { $0.verdict == "FAILED RUN" }.map(\.scenario.name) + budget.filter { $0.refusal == nil && $0.stats.failed }.map { "\($0.operation) \($0.inputClass)" }
    if !failedRuns.isEmpty {
        log("runs that failed: \(failedRuns.joined(separator: ", "))")
        return 1
    }
    return 0
}

exit(main())
