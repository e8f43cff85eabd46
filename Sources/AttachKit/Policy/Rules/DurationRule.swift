/// Duration caps for audio and video.
struct DurationRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        let info = subject.info
        guard let duration = info.duration else { return [] }
        let cap: Double?
        switch info.kind {
        case .audio: cap = profile.audio.maxDuration
        case .video: cap = profile.video.maxDuration
        default: cap = nil
        }
        guard let cap, duration > cap + 0.05 else { return [] }
        let estimate = info.durationIsEstimate == true ? " (estimated from the bitrate)" : ""
        return [Diagnostic(.durationTooLong, "\(Fix.seconds(duration))\(estimate), over \(Fix.seconds(cap))",
                           fix: "trim to \(Fix.seconds(cap))")]
    }
}
