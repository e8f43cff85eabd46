/// The shared clock of one clip being written, in seconds of the input's timestamps.
///
/// ``start`` is the first instant kept (frames and samples before it are dropped), ``base`` the
/// instant that becomes time 0 of the output, ``end`` the first instant not kept. A fast
/// (stream-copy) trim starts and bases the clip at the keyframe it snapped to; an exact trim at
/// the time asked; an audio-only stream copy at its first packet, which sets ``base`` itself.
final class ClipTimeline {
    let start: Double
    /// `nil` until the first kept packet sets it (audio-only stream copy).
    var base: Double?
    /// Seconds kept from ``base``; `nil` = to the end.
    let duration: Double?

    /// Whether packets before ``start`` are kept too: when nothing is cut at the start, a stream
    /// copy keeps the pre-roll an edit list hides (a keyframe decoded but not shown, AAC priming),
    /// as the input had it; the muxer writes the edit list again.
    let keepsPreroll: Bool

    init(start: Double, base: Double?, duration: Double?, keepsPreroll: Bool = false) {
        self.start = start
        self.base = base
        self.duration = duration
        self.keepsPreroll = keepsPreroll
    }

    var end: Double { duration.map { (base ?? start) + $0 } ?? .infinity }

    /// Tolerance for comparing timestamps that went through different time bases: a microsecond,
    /// far more than their rounding (a tick of 1/90000 s converted to seconds is off by ~1e-17 s)
    /// and far less than a frame. It was a millisecond, which let a clip end up to 1 ms past its
    /// duration budget, moved a start up to 1 ms before a frame to that frame, and left a start
    /// within 1 ms of the end with no frame at all (outside tester, round 52).
    static let epsilon = 0.000_001
}

/// What one output stream received.
struct StreamTally: Sendable, Equatable {
    var packets = 0
    var bytes: Int64 = 0
    /// First and last instant covered, output seconds.
    var first: Double?
    var end: Double = 0
    /// The HDR format of the pictures tone-mapped to SDR (``ToneMapper/mapped``); `nil` = none were.
    var toneMapped: HDRInfo.Format?

    mutating func add(bytes: Int, at time: Double, duration: Double) {
        packets += 1
        self.bytes += Int64(bytes)
        if first == nil { first = time }
        end = max(end, time + duration)
    }
}
