import Foundation

/// One tool doing the scenario's work.
struct Contender {
    let name: String
    let command: [String]
    /// Run before every measured run (e.g. empty the output folder) and not timed.
    var reset: () -> Void = {}
}

/// The same work done by AttachKit and by the tools a user would otherwise pick.
struct Scenario {
    let name: String
    let summary: String
    /// AttachKit first; the others are compared with it.
    let contenders: [Contender]
    /// The contender the target is stated against, and the target ratio (AttachKit ÷ reference).
    var reference: String?
    var wallTarget: Double?
    var rssTarget: Double?
    /// For scenarios where the target is "at least N× faster" (probe): reference ÷ AttachKit.
    var speedupTarget: Double?
    /// Extra figures measured once after the timed runs (sizes, SSIM, attempts...).
    var extra: () -> [(String, String)] = { [] }
}

/// Timed results of one scenario.
struct ScenarioResult {
    let scenario: Scenario
    let stats: [(name: String, stats: Stats)]
    let extra: [(String, String)]

    var attachkit: Stats { stats[0].stats }

    func stats(of name: String) -> Stats? { stats.first { $0.name == name }?.stats }

    /// AttachKit ÷ reference for wall time and peak RSS.
    var wallRatio: Double? {
        guard let reference = scenario.reference, let other = stats(of: reference), other.wall > 0 else { return nil }
        return attachkit.wall / other.wall
    }

    var rssRatio: Double? {
        guard let reference = scenario.reference, let other = stats(of: reference), other.peakMB > 0 else { return nil }
        return attachkit.peakMB / other.peakMB
    }

    var speedup: Double? {
        guard let reference = scenario.reference, let other = stats(of: reference), attachkit.wall > 0 else { return nil }
        return other.wall / attachkit.wall
    }

    /// "met", "MISSED" or "" when the scenario states no target.
    var verdict: String {
        var checks: [Bool] = []
        if let target = scenario.wallTarget, let ratio = wallRatio { checks.append(ratio <= target) }
        if let target = scenario.rssTarget, let ratio = rssRatio { checks.append(ratio <= target) }
        if let target = scenario.speedupTarget, let ratio = speedup { checks.append(ratio >= target) }
        if stats.contains(where: { $0.stats.failed }) { return "FAILED RUN" }
        guard !checks.isEmpty else { return "" }
        return checks.allSatisfy { $0 } ? "met" : "MISSED"
    }
}

enum Runner {
    /// Rounds a scenario gets at most: sub-second scenarios get more rounds than `repetitions`
    /// (enough for about ``roundSeconds`` of work per contender), because their medians move
    /// by ±10 % between runs on a shared two-core machine.
    static let maximumRounds = 15
    static let roundSeconds = 4.0

    /// One untimed warm-up per contender, then `repetitions` rounds (more for sub-second work, see
    /// ``maximumRounds``) in rotating order (A B C, B C A, ...) so slow drift on a shared machine
    /// hits every contender alike.
    static func run(_ scenario: Scenario, repetitions requested: Int, log: (String) -> Void) -> ScenarioResult {
        log("▶ \(scenario.name): \(scenario.summary)")
        var slowest = 0.0
        for contender in scenario.contenders {
            contender.reset()
            let warm = Measure.run(contender.command)
            slowest = max(slowest, warm.wall)
            if warm.status != 0 { log("  warning: \(contender.name) failed (\(warm.failure ?? "exit \(warm.status)")): \(contender.command.prefix(6).joined(separator: " "))") }
        }
        var repetitions = requested
        if requested >= 3, slowest > 0 {
            repetitions = max(requested, min(maximumRounds, Int(roundSeconds / slowest)))
        }
        var samples = Array(repeating: [Sample](), count: scenario.contenders.count)
        for round in 0..<repetitions {
            for offset in 0..<scenario.contenders.count {
                let index = (round + offset) % scenario.contenders.count
                let contender = scenario.contenders[index]
                contender.reset()
                samples[index].append(Measure.run(contender.command))
            }
        }
        let stats = zip(scenario.contenders, samples).map { ($0.name, Stats(samples: $1)) }
        for (name, s) in stats {
            log("  \(name.padding(toLength: 16, withPad: " ", startingAt: 0)) wall \(fmt(s.wall)) s [\(fmt(s.wallMin))–\(fmt(s.wallMax))]  cpu \(fmt(s.cpu)) s  peak \(fmt(s.peakMB)) MB" + (s.failure.map { "  FAILED: \($0)" } ?? ""))
        }
        return ScenarioResult(scenario: scenario, stats: stats, extra: scenario.extra())
    }
}

func fmt(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}
