/// Bitrates for a transcode: what fits a byte budget over a duration, shared between video and
/// audio after the container's own bytes, and the floors below which the result is not worth
/// sending.
///
/// ## Minimum acceptable bitrates
/// H.264 (x264, `veryfast`) below these shows heavy blocking at ~30 fps; when the budget gives
/// less, the picture is made smaller first (a step down the ladder), and only when the smallest
/// rung still does not fit is the clip shortened:
///
/// | long edge ≥ | 1920 | 1280 | 854 | 640 | 426 | smaller |
/// |---|---|---|---|---|---|---|
/// | video kb/s | 1000 | 500 | 250 | 150 | 90 | 60 |
///
/// AAC-LC: at least 24 kb/s per channel up to 48 kb/s (mono 24, stereo 32 — FFmpeg's encoder
/// holds up at 16 kb/s per channel in stereo), at most 64 kb/s per channel up to 128 kb/s.
enum BitrateBudget {
    /// The ladder of long edges a budget may step the picture down to.
    static let ladder = [1920, 1280, 854, 640, 426, 320]

    /// The lowest video bitrate acceptable at a long edge (table above), for 30 fps; scaled with
    /// the frame rate between ×0.5 (15 fps and less) and ×1 (30 fps and more).
    static func minimumVideoBitRate(longEdge: Int, frameRate: Double) -> Int {
        let base: Int
        switch longEdge {
        case 1920...: base = 1_000_000
        case 1280...: base = 500_000
        case 854...: base = 250_000
        case 640...: base = 150_000
        case 426...: base = 90_000
        default: base = 60_000
        }
        let rate = frameRate.isFinite && frameRate > 0 ? frameRate : 30
        // Always in range (base × 0.5...1): the clamp only spells that out.
        return (Double(base) * min(1, max(0.5, rate / 30))).clampedInteger(in: 0...base, rounding: .towardZero)
    }

    /// The bitrate a transcode aims at when the budget is not the limit: about 0.07 bits per
    /// pixel per frame, what x264 `veryfast` needs for a clean picture (720p30 ≈ 1.9 Mb/s).
    static func comfortableVideoBitRate(width: Int, height: Int, frameRate: Double) -> Int {
        let rate = frameRate.isFinite && frameRate > 0 ? min(frameRate, 60) : 30
        // Clamped: a size or rate that makes it overflow is far past any bitrate a budget allows.
        let comfortable = (Double(width) * Double(height) * rate * 0.07).clampedInteger(in: 0...Int.max, rounding: .towardZero)
        return max(minimumVideoBitRate(longEdge: max(width, height), frameRate: rate), comfortable)
    }

    /// The AAC bitrate floor for a channel count.
    static func minimumAudioBitRate(channels: Int) -> Int { channels >= 2 ? 32_000 : 24_000 }

    /// The AAC bitrate when the budget is not the limit (64 kb/s per channel, at most 128 kb/s),
    /// never above what the source carried once it is known (no bits spent re-encoding artefacts).
    static func comfortableAudioBitRate(channels: Int, sourceBitRate: Int?) -> Int {
        let ceiling = min(128_000, 64_000 * max(1, channels))
        guard let source = sourceBitRate, source > 0 else { return ceiling }
        // Clamped to the ceiling, which it may not pass anyway (a header may claim any bitrate).
        return max(minimumAudioBitRate(channels: channels), (Double(source) * 1.25).clampedInteger(in: 0...ceiling, rounding: .towardZero))
    }

    /// Bytes an MP4/M4A spends besides the media: `ftyp`, `moov` (about 12 bytes of sample tables
    /// per video frame and 5 per audio packet), the encoder's own header (x264 writes its settings,
    /// ~700 bytes) and box headers. MP3 (ID3 + Xing frame) is counted the same way, generously.
    /// Clamped: an overhead past `Int64.max / 2` bytes (a header claiming an absurd duration) is
    /// over every budget anyway, and the half leaves room to add it to other sizes.
    static func containerOverhead(duration: Double, frameRate: Double?, audioSampleRate: Int?) -> Int64 {
        let frames = frameRate.map { duration * $0 } ?? 0
        let packets = audioSampleRate.map { duration * Double($0) / 1024 } ?? 0
        return 4096 + (frames * 12 + packets * 5).clampedInteger(in: 0...Int64.max / 2, rounding: .towardZero)
    }
}
