/// Copies one stream's packets unchanged (no decoding) over the clip's window.
///
/// Video starts at its first keyframe at or after ``ClipTimeline/start`` (the caller has snapped
/// the start to a keyframe), drops leading frames that show before the base (open-GOP B-frames
/// that need the previous group), and stops at the first packet, in decode order, that would end
/// after the window: later packets could only be B-frames leaning on that one, so the cut stays
/// decodable. Audio keeps the packets that lie wholly inside the window; packets without a time
/// after a timed one (a Matroska block's laced frames) are timed evenly up to the next. With ``framesOnly``
/// (MPEG audio read by FFmpeg's parser, which hands junk between or after frames on as packets of
/// its own) a packet that is not one whole frame is left out: the copy is clean. With
/// ``dropsSilentADTS`` (raw ADTS) a frame that decodes to nothing is left out and each frame of
/// sound is timed by the sound before it, not by libavformat's timestamps: those count the frames
/// of nothing as time, and leave a frame after many of them untimed (49 at 44.1 kHz). The window
/// is then in the sound's time, as the probe's duration is, and the copy lasts as long as its
/// sound.
final class StreamCopyStage: ClipStage {
    let inputIndex: Int
    private(set) var outputIndex = -1
    private(set) var finished = false
    private(set) var tally = StreamTally()
    private let isVideo: Bool
    private let inputTimeBase: Rational
    /// Seconds one frame lasts, for packets that carry no duration (MPEG-TS).
    private let fallbackDuration: Double
    private let timeline: ClipTimeline
    private var outputTimeBase = Rational(1, 1)
    private var started = false
    /// The time of the first packet copied (input seconds).
    private var firstKept: Double?
    /// The output's sample-entry FourCC (the plan's choice); `nil` = the muxer's own.
    private let tag: String?
    /// Keep only packets that are one whole MPEG audio frame each.
    private let framesOnly: Bool
    /// Leave out ADTS frames that decode to nothing (``AVPacketBuffer/isSilentADTSFrame``) and
    /// time the rest by ``soundTime``.
    private let dropsSilentADTS: Bool
    /// Raw ADTS: where the next frame of sound starts, in input time-base units (the first
    /// packet's time, then the durations of the frames of sound read since).
    private var soundTime: Int64?
    /// Sound packets read but not yet copied: the last timed one and the untimed ones after it.
    private let held = AVPacketQueue()
    /// The time of the first packet held (input time base).
    private var block: Int64?
    /// The spacing of the last block of laced frames, for one the input ends on.
    private var lacedSpacing: Int64?
    /// Seconds the first packet inside the window lasts when it alone runs past the window's end
    /// (the window is shorter than one frame); `nil` otherwise.
    private(set) var frameOverWindow: Double?

    init(inputIndex: Int, isVideo: Bool, input: borrowing AVInput, frameRate: Rational?, tag: String?, timeline: ClipTimeline,
         framesOnly: Bool = false, dropsSilentADTS: Bool = false) {
        self.inputIndex = inputIndex
        self.dropsSilentADTS = dropsSilentADTS
        self.tag = tag
        self.framesOnly = framesOnly
        self.isVideo = isVideo
        self.inputTimeBase = input.timeBase(of: inputIndex)
        self.timeline = timeline
        if let rate = frameRate, rate.numerator > 0 {
            fallbackDuration = rate.inverse
        } else {
            fallbackDuration = isVideo ? 1.0 / 30 : input.audioFrameSeconds(of: inputIndex) ?? 1024.0 / 48_000
        }
    }

    func attach(to output: borrowing AVOutput, input: borrowing AVInput) throws(PrepareError) {
        do {
            outputIndex = try output.addStream(copying: inputIndex, of: input, tag: tag)
        } catch {
            throw ClipErrors.processing("adding a copied stream", error)
        }
    }

    func ready(output: borrowing AVOutput) { outputTimeBase = output.timeBase(of: outputIndex) }

    func accept(_ packet: borrowing AVPacketBuffer, output: borrowing AVOutput) throws(PrepareError) {
        guard !finished else { return }
        guard !isVideo else { return try copy(packet, output: output) }
        if dropsSilentADTS { return try copyADTSFrame(packet, output: output) }
        // Sound is held back one timed packet: a Matroska block that laces several frames times
        // only its first, and the frames after it (dropped before: a fraction of the sound was
        // kept) share the span to the next timed packet evenly.
        if let time = packet.timestamp {
            try release(until: time, output: output)
            block = time
        } else if held.count == 0 {
            return  // no time to count from
        }
        try ClipErrors.attempt("holding a packet") { () throws(FFmpegError) in try held.append(packet) }
    }

    /// Copies the sound packets held: when they are a block's laced frames (more than one), they
    /// are timed evenly over the block, up to `end` (the next timed packet; at the end of the
    /// input, the spacing of the block before).
    private func release(until end: Int64?, output: borrowing AVOutput) throws(PrepareError) {
        let count = held.count
        guard count > 0 else { return }
        var spacing: Int64?
        if count > 1 {
            if let end, let block, end > block { lacedSpacing = (end - block) / Int64(count) }
            spacing = lacedSpacing
        }
        let buffer = try ClipErrors.attempt("holding a packet") { () throws(FFmpegError) in try AVPacketBuffer() }
        let start = block
        try held.drain(into: buffer) { (index: Int, packet: borrowing AVPacketBuffer) throws(PrepareError) in
            if let spacing, spacing > 0, let start {
                packet.fillTimestamp(start + Int64(index) * spacing)
                packet.fillDuration(spacing)
            }
            try copy(packet, output: output)
        }
    }

    /// Copies `packet` when it lies in the window (the description above).
    private func copy(_ packet: borrowing AVPacketBuffer, output: borrowing AVOutput) throws(PrepareError) {
        guard !finished, let t = packet.seconds(in: inputTimeBase) else { return }
        if framesOnly, !packet.isWholeMPEGAudioFrame { return }
        let epsilon = ClipTimeline.epsilon
        let duration = packet.duration > 0 ? inputTimeBase.seconds(packet.duration) : fallbackDuration
        if !started {
            if isVideo {
                guard packet.isKeyframe, timeline.keepsPreroll || t >= timeline.start - epsilon else { return }
            } else if timeline.base == nil {
                // Audio anchors the clip: the frame at or before the start (``holdsStart``).
                guard Self.holdsStart(t, duration, timeline) else { return }
            }
            if timeline.base == nil { timeline.base = t }
        }
        guard let base = timeline.base, timeline.keepsPreroll || t >= base - epsilon else { return }
        // An MP3 written from MP3 frames lasts from its first frame: the encoder delay before the
        // base, kept with the pre-roll, counts against the budget too (no edit list hides it, so
        // 30 s of a LAME file declared 30.015 s).
        let origin = framesOnly ? min(firstKept ?? t, base) : base
        if t + duration > timeline.end + epsilon || t + duration - origin > (timeline.duration ?? .infinity) + epsilon {
            finish(before: duration)
            return
        }
        if firstKept == nil { firstKept = t }
        if framesOnly { packet.raiseLeadingSkip() }
        started = true
        packet.fillDuration(inputTimeBase.timestamp(duration))
        // Containers that store decoding times only (AVI): MP4 needs a presentation time.
        packet.fillPresentationTime()
        packet.retime(minus: inputTimeBase.timestamp(base), from: inputTimeBase, to: outputTimeBase, stream: outputIndex)
        try mux(packet, output: output, timeBase: outputTimeBase, tally: &tally)
    }

    /// Whether a sound frame at `t` lasting `duration` seconds may begin the clip: it ends after
    /// the window's start, so the first such frame is the one at or before the start (the
    /// keyframe at or before it, every sound frame being one), as for a picture.
    private static func holdsStart(_ t: Double, _ duration: Double, _ timeline: ClipTimeline) -> Bool {
        t + duration > timeline.start + ClipTimeline.epsilon
    }

    /// Ends the copy at a packet that would end past the window; when it is the first packet of
    /// the window, remembers how long it lasts (``frameOverWindow``).
    private func finish(before duration: Double) {
        if !started { frameOverWindow = duration }
        finished = true
    }

    /// Copies one raw ADTS frame (``dropsSilentADTS``, read from the start of the file) when it
    /// holds sound and lies in the window, timed by ``soundTime``; the window's start anchors
    /// ``ClipTimeline/base`` at the first frame of sound whose middle is past it, as for any sound.
    private func copyADTSFrame(_ packet: borrowing AVPacketBuffer, output: borrowing AVOutput) throws(PrepareError) {
        if soundTime == nil { soundTime = packet.timestamp ?? 0 }
        guard !packet.isSilentADTSFrame, let start = soundTime else { return }
        let length = packet.duration > 0 ? packet.duration : inputTimeBase.timestamp(fallbackDuration)
        soundTime = start + length
        let t = inputTimeBase.seconds(start), duration = inputTimeBase.seconds(length)
        let epsilon = ClipTimeline.epsilon
        if timeline.base == nil {
            guard Self.holdsStart(t, duration, timeline) else { return }
            timeline.base = t
        }
        guard let base = timeline.base, t >= base - epsilon else { return }
        if t + duration > timeline.end + epsilon {
            finish(before: duration)
            return
        }
        started = true
        packet.place(at: start, stream: packet.streamIndex)
        packet.fillDuration(length)
        packet.retime(minus: inputTimeBase.timestamp(base), from: inputTimeBase, to: outputTimeBase, stream: outputIndex)
        try mux(packet, output: output, timeBase: outputTimeBase, tally: &tally)
    }

    func finish(output: borrowing AVOutput) throws(PrepareError) {
        try release(until: nil, output: output)
        finished = true
    }
}
