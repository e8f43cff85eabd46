/// How much of an audio/video file a job reads and decodes: what the duration cap
/// (``SafetyLimits/maxDuration``) is held against, rather than the length the header declares. A
/// 4.4-hour audiobook trimmed to its first 30 s reads 30 s; checking it whole decodes 4.4 hours.
public enum WorkSpan: Sendable, Equatable {
    /// All of it: a deep check, or a prepare that keeps the whole length (a passthrough is decoded
    /// whole to verify it; a re-encode decodes every sample).
    case whole
    /// At most this many seconds from where the work starts (a prepare trimming to the profile's
    /// duration cap: a stream copy or a re-encode of the window, after a seek). `nil` for a kind:
    /// that kind is kept whole.
    case window(audio: Double?, video: Double?)
    /// One picture (a thumbnail's poster frame): the duration cap does not apply.
    case picture

    /// The seconds of `info` this work reads and decodes; `nil` when no duration applies (no
    /// duration known, an image, or ``picture``).
    public func seconds(of info: MediaInfo) -> Double? {
        guard info.kind == .audio || info.kind == .video, let duration = info.duration else { return nil }
        switch self {
        case .whole: return duration
        case .window(let audio, let video): return min(duration, (info.kind == .audio ? audio : video) ?? duration)
        case .picture: return nil
        }
    }
}
