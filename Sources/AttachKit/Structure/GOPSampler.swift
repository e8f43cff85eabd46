/// Which groups of pictures (a keyframe and the frames up to the next one) a bounded decode check
/// of a long video decodes, and what it covered.
///
/// Without a budget, or when the stream lasts no longer than the budget, every GOP is decoded.
/// Otherwise GOPs are chosen at their keyframe so that the decoded share of the video keeps pace
/// with the budget's share of the whole: the first GOP always, then a GOP whenever the seconds
/// decoded so far are at most `budget × (keyframe time ÷ duration)`. The chosen GOPs are spread
/// evenly over the file, each decoded whole from its keyframe (a decoder cannot start elsewhere),
/// and the rest are demuxed but not decoded. Damage inside a skipped GOP is not seen: the report
/// says how much was decoded.
struct GOPSampler {
    /// What to do at a keyframe.
    enum Step: Equatable {
        /// Go on as before (decoding, or skipping).
        case keep
        /// Start decoding at this keyframe after skipped GOPs: flush the decoder first, and do not
        /// hold damage against the frames shown before this keyframe (an open GOP's leading
        /// pictures reference the skipped GOP).
        case resume
        /// Stop decoding before this keyframe: drain the decoder (its last frames belong to the
        /// decoded GOP), then flush it.
        case pause
    }

    /// Seconds of video to decode; `nil` = all of it.
    let budget: Double?
    /// The stream's duration in seconds (declared by the container); `nil` = unknown, decode all.
    let duration: Double?
    /// Whether the packets now being read are decoded.
    private(set) var decoding = true
    private(set) var groups = 0
    private(set) var decodedGroups = 0
    /// Seconds of video in the decoded GOPs (each counted when the next keyframe ends it).
    private(set) var decodedSeconds = 0.0
    private var first: Double?
    private var groupStart: Double?

    init(budget: Double?, duration: Double?) {
        self.budget = budget
        self.duration = duration
    }

    /// Whether any GOP may be skipped (a budget shorter than a known duration).
    var samples: Bool {
        guard let budget, let duration, budget > 0, duration > 0 else { return false }
        return duration > budget
    }

    /// The decision at a keyframe shown at `time` seconds.
    mutating func keyframe(at time: Double) -> Step {
        let origin = first ?? time
        first = origin
        if decoding, let start = groupStart { decodedSeconds += max(0, time - start) }
        groupStart = time
        groups += 1
        let decode: Bool
        if samples, let budget, let duration {
            decode = decodedSeconds <= budget * max(0, time - origin) / duration
        } else {
            decode = true
        }
        if decode { decodedGroups += 1 }
        defer { decoding = decode }
        switch (decoding, decode) {
        case (false, true): return .resume
        case (true, false): return .pause
        default: return .keep
        }
    }

    /// Ends the last GOP at `time` (the end of the stream's last packet).
    mutating func finish(at time: Double?) {
        if decoding, let start = groupStart, let time { decodedSeconds += max(0, time - start) }
        groupStart = nil
    }

    /// What was decoded, for the report: `nil` when the budget covered the whole video. When GOPs
    /// were skipped, how many were decoded; when none could be (GOPs longer than the budget: a GOP
    /// is decoded whole or not at all), that the whole video was decoded anyway.
    var coverage: String? {
        guard samples, let budget, let duration, groups > 0 else { return nil }
        let seconds = (decodedSeconds * 10).rounded() / 10
        if decodedGroups < groups {
            return "\(decodedGroups) of \(groups) GOPs of the video (about \(seconds) s of \((duration * 10).rounded() / 10) s) decoded to verify the copy"
        }
        guard decodedSeconds > budget else { return nil }
        return (groups == 1 ? "the video's one GOP" : "all \(groups) GOPs of the video") + " (about \(seconds) s) decoded to verify the copy: none could be skipped"
            + " (a GOP is decoded whole, from its keyframe)"
    }
}
