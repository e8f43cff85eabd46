/// The byte limit per kind (Apple: 10 MB images, 5 MB audio, 50 MB video; iOS says 102, "invalid
/// file size"), and a warning above the profile's recommended size.
struct SizeRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        let info = subject.info
        let limit: Int64
        let recommended: Int64?
        switch info.kind {
        case .image: (limit, recommended) = (profile.image.maxBytes, profile.image.recommendedBytes)
        case .audio: (limit, recommended) = (profile.audio.maxBytes, profile.audio.recommendedBytes)
        case .video: (limit, recommended) = (profile.video.maxBytes, profile.video.recommendedBytes)
        case .unknown: return []
        }
        if info.bytes > limit {
            let how = info.kind == .image ? "re-encode or downscale" : "transcode at a lower bitrate or trim"
            return [Diagnostic(.fileTooLarge, "\(info.bytes) bytes, over the \(info.kind.rawValue) limit of \(limit) bytes",
                               fix: "\(how) to ≤ \(ByteCount.limit(limit))")]
        }
        if let recommended, info.bytes > recommended {
            return [Diagnostic(.largerThanRecommended,
                               "\(info.bytes) bytes: legal, but over the recommended \(ByteCount.limit(recommended)) for a quick download in the ~30 s service-extension budget",
                               fix: "re-encode to ≤ \(ByteCount.limit(recommended))", severity: .warning)]
        }
        return []
    }
}
