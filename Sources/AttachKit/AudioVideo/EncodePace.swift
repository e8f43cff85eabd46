/// Watches one encode against the deadline: once ``Rule/warmUp`` seconds have passed and
/// ``Rule/minimumShare`` of the window has been read, the pace so far projects the whole encode's
/// time; when the projection ends past the deadline the encode is stopped there, with
/// ``PrepareError/deadlineExceeded(step:budget:)``, instead of when the time has run out.
/// ``projected`` then tells the caller (``PacedEncode``) what the projection was.
final class EncodePace {
    /// When and how the pace is judged.
    struct Rule: Sendable {
        /// Wall seconds before the first projection (x264's lookahead and threads fill up first). Default 1.
        var warmUp = 1.0
        /// Share of the window read before the first projection. Default 5 %.
        var minimumShare = 0.05
        /// The whole encode's seconds from the seconds spent and the share of the window read.
        /// Default: proportional (spent ÷ share).
        var project: @Sendable (_ spent: Double, _ share: Double) -> Double = { $0 / $1 }
    }

    let deadline: Deadline
    /// Seconds of media the encode covers.
    let span: Double
    /// ``Deadline/elapsed`` when the encode started.
    let startedAt: Double
    let rule: Rule

    /// The whole encode's projected seconds, set when the watch stopped it.
    private(set) var projected: Double?

    init(deadline: Deadline, span: Double, startedAt: Double, rule: Rule = Rule()) {
        self.deadline = deadline
        self.span = span
        self.startedAt = startedAt
        self.rule = rule
    }

    /// Judges the pace after `media` seconds of the window were read.
    /// - Throws: ``PrepareError/deadlineExceeded(step:budget:)`` when the projection overruns.
    func observe(media: Double) throws(PrepareError) {
        guard let budget = deadline.budget, projected == nil, span > 0 else { return }
        let spent = deadline.elapsed - startedAt
        let share = media / span
        guard spent >= rule.warmUp, share >= rule.minimumShare, share < 1 else { return }
        let total = rule.project(spent, share)
        guard startedAt + total > budget else { return }
        projected = total
        throw .deadlineExceeded(step: "transcoding (stopped after \(ClipText.seconds(spent)): at that pace it needs "
                                + "\(ClipText.seconds(total)), \(ClipText.seconds(budget - startedAt)) were left)", budget: budget)
    }
}
