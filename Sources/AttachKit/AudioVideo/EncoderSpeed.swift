#if canImport(Glibc)
import Glibc
#endif

/// The x264 preset a transcode uses, chosen against the deadline: `veryfast` by default (good
/// quality per bit at about real time for 720p on two cores), `superfast` or `ultrafast` when the
/// estimated encode of the input (duration × pixels) would not finish in the time left.
enum EncoderSpeed: String, Sendable, Equatable, CaseIterable {
    case veryfast
    case superfast
    case ultrafast

    /// Output pixels per second one core encodes at this preset, decoding and scaling the source
    /// included. Measured here (Debian 12, x86-64, FFmpeg 5.1 / x264 164, two busy cores): a
    /// 1080p → 1080p `veryfast` encode ran at ~15 Mpx per core-second; `superfast` is ~1.6× and
    /// `ultrafast` ~2.5× that (then decoding the source dominates). Deliberately on the slow side,
    /// so a deadline is met rather than missed.
    var pixelsPerCoreSecond: Double {
        switch self {
        case .veryfast: return 15_000_000
        case .superfast: return 24_000_000
        case .ultrafast: return 37_000_000
        }
    }

    /// Seconds an encode of `frames` frames of `width`×`height` output should take on this
    /// machine (the cores libavcodec's threads can use).
    func estimatedSeconds(frames: Double, width: Int, height: Int) -> Double {
        let cores = Double(max(1, min(16, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))))
        return frames * Double(width * height) / (pixelsPerCoreSecond * cores)
    }

    /// The slowest (best) preset whose estimate fits 80 % of `remaining` seconds; `ultrafast` when
    /// none does (the encode then runs and stops at the deadline if the estimate was right);
    /// `veryfast` without a deadline.
    static func choose(frames: Double, width: Int, height: Int, remaining: Double?) -> EncoderSpeed {
        guard let remaining else { return .veryfast }
        return allCases.first { $0.estimatedSeconds(frames: frames, width: width, height: height) <= remaining * 0.8 } ?? .ultrafast
    }
}
