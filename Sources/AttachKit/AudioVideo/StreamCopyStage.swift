/// Copies one stream's packets unchanged (no decoding) over the clip's window.
///
/// Video starts at its first keyframe at or after ``ClipTimeline/start`` (the caller has snapped
/// the start to a keyframe), drops leading frames that show before the base (open-GOP B-frames
/// that need the previous group), and stops at the first packet, in decode order, that would end
/// after the window: later packets could only be B-frames leaning on that one, so the cut stays
/// decodable. Audio keeps the packets that lie wholly inside the window. With ``framesOnly``
/// (MPEG audio read by FFmpeg's parser, which hands junk between or after frames on as packets of
/// its own) a packet that is not one whole frame is left out: the copy is clean.
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
    /// The output's sample-entry FourCC (the plan's choice); `nil` = the muxer's own.
    private let tag: String?
    /// Keep only packets that are one whole MPEG audio frame each.
    private let framesOnly: Bool

    init(inputIndex: Int, isVideo: Bool, input: borrowing AVInput, frameRate: Rational?, tag: String?, timeline: ClipTimeline,
         framesOnly: Bool = false) {
        self.inputIndex = inputIndex
        self.tag = tag
        self.framesOnly = framesOnly
        self.isVideo = isVideo
        self.inputTimeBase = input.timeBase(of: inputIndex)
        self.timeline = timeline
        if let rate = frameRate, rate.numerator > 0 {
            fallbackDuration = rate.inverse
        } else {
            fallbackDuration = isVideo ? 1.0 / 30 : 1024.0 / 48_000
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
        guard !finished, let t = packet.seconds(in: inputTimeBase) else { return }
        if framesOnly, !packet.isWholeMPEGAudioFrame { return }
        let epsilon = ClipTimeline.epsilon
        let duration = packet.duration > 0 ? inputTimeBase.seconds(packet.duration) : fallbackDuration
        if !started {
            if isVideo {
                guard packet.isKeyframe, timeline.keepsPreroll || t >= timeline.start - epsilon else { return }
            } else if timeline.base == nil {
                // Audio anchors the clip: the packet nearest the start.
                guard t + duration / 2 >= timeline.start - epsilon else { return }
            }
            if timeline.base == nil { timeline.base = t }
        }
        guard let base = timeline.base, timeline.keepsPreroll || t >= base - epsilon else { return }
        if t + duration > timeline.end + epsilon {
            finished = true
            return
        }
        started = true
        packet.fillDuration(inputTimeBase.timestamp(duration))
        // Containers that store decoding times only (AVI): MP4 needs a presentation time.
        packet.fillPresentationTime()
        packet.retime(minus: inputTimeBase.timestamp(base), from: inputTimeBase, to: outputTimeBase, stream: outputIndex)
        try mux(packet, output: output, timeBase: outputTimeBase, tally: &tally)
    }

    func finish(output: borrowing AVOutput) throws(PrepareError) { finished = true }
}
