/// Watches one encode against the deadline: once ``Rule/warmUp`` seconds have passed and
/// ``Rule/minimumShare`` of the window has been read, a mark is set; from ``Rule/window`` seconds
/// after it, the pace since the mark projects the whole encode's time (the start's cost, opening
/// the codecs and filling x264's lookahead, is behind the mark and is not extrapolated); when the
/// projection ends past the deadline the encode is stopped there, with
/// ``PrepareError/deadlineExceeded(step:budget:)``, instead of when the time has run out.
/// ``projected`` then tells the caller (``PacedEncode``) what the projection was.
final class EncodePace {
    /// When and how the pace is judged.
    struct Rule: Sendable {
        /// Wall seconds before the first projection (x264's lookahead and threads fill up first). Default 1.
        var warmUp = 1.0
        /// Share of the window read before the mark. Default 5 %.
        var minimumShare = 0.05
        /// Wall seconds between the mark and the first projection. Default 0.5.
        var window = 0.5
        /// The whole encode's seconds from the seconds spent and the share of the window read, now
        /// and at the mark. Default: the time spent plus the rest at the pace since the mark.
        var project: @Sendable (_ spent: Double, _ share: Double, _ mark: Mark) -> Double = { spent, share, mark in
            spent + (1 - share) * (spent - mark.spent) / max(share - mark.share, 1e-9)
        }
    }

    /// Seconds spent and share of the window read when the pace began to be measured.
    struct Mark: Sendable {
        var spent: Double
        var share: Double
    }

    let deadline: Deadline
    /// Seconds of media the encode covers.
    let span: Double
    /// ``Deadline/elapsed`` when the encode started.
    let startedAt: Double
    let rule: Rule
    /// What is encoded, for the message (e.g. "x264 veryfast, estimated 12.5 s"); `nil` says nothing.
    let encoding: String?

    /// The whole encode's projected seconds, set when the watch stopped it.
    private(set) var projected: Double?
    private var mark: Mark?

    init(deadline: Deadline, span: Double, startedAt: Double, rule: Rule = Rule(), encoding: String? = nil) {
        self.deadline = deadline
        self.span = span
        self.startedAt = startedAt
        self.rule = rule
        self.encoding = encoding
    }

    /// Judges the pace after `media` seconds of the window were read.
    /// - Throws: ``PrepareError/deadlineExceeded(step:budget:)`` when the projection overruns.
    func observe(media: Double) throws(PrepareError) {
        guard let budget = deadline.budget, projected == nil, span > 0 else { return }
        let spent = deadline.elapsed - startedAt
        let share = media / span
        guard spent >= rule.warmUp, share >= rule.minimumShare, share < 1 else { return }
        guard let mark else {
            mark = Mark(spent: spent, share: share)
            return
        }
        guard spent - mark.spent >= rule.window, share > mark.share else { return }
        let total = rule.project(spent, share, mark)
        guard startedAt + total > budget else { return }
        projected = total
        throw .deadlineExceeded(step: "transcoding\(encoding.map { " at \($0)" } ?? "") (stopped after \(ClipText.seconds(spent)): at that pace it needs "
                                + "\(ClipText.seconds(total)), \(ClipText.seconds(budget - startedAt)) were left)", budget: budget)
    }
}
