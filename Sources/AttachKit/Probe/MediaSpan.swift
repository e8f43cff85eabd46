/// How long a file's sound and pictures last, as its container declares them. libavformat's
/// container duration spans every stream, and a data or subtitle stream may start before the media
/// or end after them (it lets such a stream widen the span by up to a second on each side): a
/// transport stream's SCTE-35 cues are timed by the program clock, timed ID3 metadata by its own
/// PES timestamps. Held against what decodes (`validate --deep`), against the duration cap, and
/// shown, that span is not the file's: 2 s of sound with cues 0.7 s before them "decoded to 2.0 s
/// but the container declares 2.6 s (data missing)".
enum MediaSpan {
    /// The container's `duration` less what only its other streams cover: the part before the
    /// first sound or picture (not for a timeline that starts at 0 by definition, an MP4's, whose
    /// empty edit before the media is the movie's), and the part after the last one ends.
    /// - Parameters:
    ///   - start: when the container's timeline starts (libavformat's `start_time`); `nil`: at the media.
    ///   - timelineFromZero: the container's timeline starts at 0 whatever its streams' times
    ///     (ISO base media): nothing before the media is taken off.
    /// - Returns: `duration` as it is when no other stream has a known start and duration, or
    ///   some audio or video stream's start or duration is unknown.
    static func duration(container duration: Double?, start: Double?, streams: [AVStreamInfo], timelineFromZero: Bool) -> Double? {
        guard let duration else { return nil }
        let isMedia: (AVStreamInfo) -> Bool = { ($0.kind == .audio || $0.kind == .video) && !$0.isAttachedPicture }
        let media = streams.filter(isMedia)
        let others = streams.filter { !isMedia($0) && !$0.isAttachedPicture }
        guard let mediaExtent = extent(of: media),
              let otherExtent = extent(of: others.filter { $0.startTime != nil && $0.duration != nil }) else { return duration }
        let containerStart = start ?? mediaExtent.lowerBound
        let containerEnd = containerStart + duration
        let before = timelineFromZero ? 0 : max(0, mediaExtent.lowerBound - max(containerStart, otherExtent.lowerBound))
        let after = max(0, min(containerEnd, otherExtent.upperBound) - mediaExtent.upperBound)
        guard before + after > 0, duration - before - after > 0 else { return duration }
        return duration - before - after
    }

    /// From the earliest start to the latest end of `streams`; `nil` when there is none or any
    /// start or duration is unknown.
    private static func extent(of streams: [AVStreamInfo]) -> ClosedRange<Double>? {
        var range: ClosedRange<Double>?
        for stream in streams {
            guard let start = stream.startTime, let length = stream.duration, length >= 0, start.isFinite, length.isFinite else { return nil }
            range = min(range?.lowerBound ?? start, start)...max(range?.upperBound ?? start + length, start + length)
        }
        return range
    }
}
