/// The x264 preset a transcode uses, chosen against the deadline by ``TranscodeEstimator``:
/// `veryfast` by default (good quality per bit at about real time for 720p on two cores),
/// `superfast` or `ultrafast` when the estimate says `veryfast` would not finish in the time left.
public enum EncoderSpeed: String, Sendable, Equatable, Hashable, CaseIterable {
    case veryfast
    case superfast
    case ultrafast

    /// The fallback model, used only without a calibration: output pixels per second one core
    /// encodes at this preset, decoding and scaling the source included. Measured here (Debian 12,
    /// x86-64, FFmpeg 5.1 / x264 164, two busy cores): a 1080p → 1080p `veryfast` encode ran at
    /// ~15 Mpx per core-second; `superfast` is ~1.6× and `ultrafast` ~2.5× that. Deliberately on
    /// the slow side (about 3× on an idle 2-core EPYC, issue 16), so a deadline is met rather than
    /// missed.
    var pixelsPerCoreSecond: Double {
        switch self {
        case .veryfast: return 15_000_000
        case .superfast: return 24_000_000
        case .ultrafast: return 37_000_000
        }
    }

    /// The next faster preset, `nil` for `ultrafast`.
    public var faster: EncoderSpeed? {
        let all = Self.allCases
        let index = all.firstIndex(of: self)!
        return index + 1 < all.count ? all[index + 1] : nil
    }

    /// Seconds the fallback model gives an encode of `frames` frames of `width`×`height` output
    /// on `cores` cores.
    func fallbackSeconds(frames: Double, width: Int, height: Int, cores: Int) -> Double {
        frames * Double(width * height) / (pixelsPerCoreSecond * Double(max(1, min(16, cores))))
    }
}
