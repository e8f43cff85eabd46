/// Duration caps for audio and video, with ``slack`` to spare.
struct DurationRule: ValidationRule {
    /// How far past a duration cap a file still passes: 0.05 s. Containers declare durations that
    /// run a little past the media (an AAC encoder's 1024-sample priming is 23 ms at 44.1 kHz; MP4
    /// rounds to its timescale; the last frame's duration is a guess), so a clip cut at the cap
    /// measures a few milliseconds over it. Cutting (``ClipWindow``) leaves alone what is within it.
    static let slack = 0.05

    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        let info = subject.info
        guard let duration = info.duration else { return [] }
        let cap: Double?
        switch info.kind {
        case .audio: cap = profile.audio.maxDuration
        case .video: cap = profile.video.maxDuration
        default: cap = nil
        }
        guard let cap, duration > cap + Self.slack else { return [] }
        let estimate = info.durationIsEstimate == true ? " (estimated from the bitrate)" : ""
        return [Diagnostic(.durationTooLong, "\(Fix.seconds(duration))\(estimate), over \(Fix.seconds(cap))",
                           fix: "trim to \(Fix.seconds(cap))")]
    }
}
