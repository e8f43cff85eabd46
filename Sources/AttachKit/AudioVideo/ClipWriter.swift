/// What writing one clip produced.
struct ClipOutcome: Sendable, Equatable {
    /// Size of the file written.
    var bytes: Int64
    /// Where the clip really starts, seconds from the start of the input's timeline (a fast trim
    /// snaps to a keyframe).
    var start: Double
    /// How long the clip really is (the longest stream), seconds.
    var duration: Double
    var video: StreamTally?
    var audio: StreamTally?
}

/// Writes one ``ClipPlan``: reads the input once from where the window starts, hands each packet
/// of a kept stream to its stage (stream copy or decode → encode), muxes the stages' packets and
/// finishes the file (MP4/M4A: `moov` moved before `mdat`).
///
/// Checks the deadline every few packets; on any failure the partial file is left for the caller
/// to delete (the pipeline writes only into ``AtomicOutput/temporaryPath`` or a ``ScratchFile``).
struct ClipWriter {
    let inputPath: String
    let demuxer: String
    let plan: ClipPlan
    let deadline: Deadline
    /// Watches the picture's progress against the deadline (``PacedEncode``); `nil` = none.
    var pace: EncodePace? = nil

    /// - Throws: ``PrepareError``: ``PrepareError/deadlineExceeded(step:budget:)``,
    ///   ``PrepareError/corrupt(reason:)`` when the input does not decode,
    ///   ``PrepareError/unsupported(reason:)`` when FFmpeg has no decoder,
    ///   ``PrepareError/processing(step:reason:)`` when encoding or writing fails.
    func write(to path: String) throws(PrepareError) -> ClipOutcome {
        let input = try openInput()
        let kept = [plan.video?.index, plan.audio?.index].compactMap { $0 }
        input.discardAllStreams(except: Set(kept))

        // The input's timeline starts at the earliest stream start; the window counts from there.
        let zero = kept.map { input.startTime(of: $0) }.min() ?? 0
        let anchor = plan.video?.index ?? plan.audio!.index
        let (timeline, seekTo) = try makeTimeline(zero: zero, anchor: anchor)
        try deadline.check("opening the clip")

        var output = try ClipErrors.attempt("creating the output") { () throws(FFmpegError) in
            try AVOutput(path: path, muxer: plan.container.muxer)
        }
        let stages = try makeStages(input: input, globalHeader: output.wantsGlobalHeader, timeline: timeline)
        for stage in stages { try stage.attach(to: output, input: input) }
        do {
            try output.writeHeader(options: plan.container.muxerOptions)
        } catch {
            throw ClipErrors.processing("writing the header", error)
        }
        for stage in stages {
            stage.ready(output: output)
            try stage.begin(output: output, input: input)
        }

        if let seekTo {
            do {
                try input.seek(stream: anchor, toKeyframeBefore: seekTo)
            } catch {
                throw .corrupt(reason: "cannot seek to \(ClipText.seconds(seekTo - zero)): \(error.message)")
            }
        }
        try pump(input: input, output: output, stages: stages, from: timeline.start, span: plan.window.span(total: input.duration), anchor: anchor)
        for stage in stages { try stage.finish(output: output) }
        try deadline.check("finishing the output")
        do {
            try output.finish()
        } catch {
            throw ClipErrors.processing("finishing the output", error)
        }

        let videoTally = stages.first { $0.inputIndex == plan.video?.index }?.tally
        let audioTally = stages.first { $0.inputIndex == plan.audio?.index }?.tally
        // A movie's picture is never dropped in silence: a video stream that gives no packet to
        // the clip (samples its container declares but cannot locate) fails it, rather than an
        // output of sound alone described as a movie.
        if let video = plan.video, (videoTally?.packets ?? 0) == 0 {
            // A clip that starts where the picture has ended (its last frame, or a picture shorter
            // than the sound) is asked wrongly, not damaged: the stream's own end says which.
            let picture = input.stream(video.index)
            if let span = plan.window.duration, let first = picture.startTime, first >= zero + plan.window.start + span - ClipTimeline.epsilon {
                throw .cannotFit(reason: "the picture starts at \(ClipText.seconds(first - zero)), after the clip ends (\(ClipText.seconds(plan.window.start + span))): allow a longer clip")
            }
            if let span = plan.window.duration, let rate = picture.frameRate, rate > 0, span < 1 / rate - ClipTimeline.epsilon {
                throw .cannotFit(reason: "one frame of the picture lasts \(ClipText.seconds(1 / rate)), longer than the \(ClipText.seconds(span)) clip (allow a longer clip)")
            }
            // Matroska gives a stream no duration of its own: the container's stands in.
            if plan.window.start > 0, let duration = picture.duration ?? input.duration {
                let end = (picture.startTime ?? zero) + duration
                let frame = picture.frameRate.map { 1 / $0 } ?? 0
                if zero + plan.window.start >= end - frame {
                    throw .cannotFit(reason: "the picture ends at \(ClipText.seconds(end - zero)): a clip from \(ClipText.seconds(plan.window.start)) holds no whole frame of it (start earlier)")
                }
            }
            throw .corrupt(reason: "the picture (stream \(video.index)) gives no packet inside the clip: its frames cannot be read, and the output would be sound alone")
        }
        guard (videoTally?.packets ?? 0) + (audioTally?.packets ?? 0) > 0 else {
            if let frame = stages.lazy.compactMap({ ($0 as? StreamCopyStage)?.frameOverWindow }).first, let span = plan.window.duration {
                throw .cannotFit(reason: "one frame of the input lasts \(ClipText.seconds(frame)), longer than the \(ClipText.seconds(span)) clip: a stream copy keeps whole frames (allow a longer clip)")
            }
            // After a start, no packet means the start is in the input's last instants (past its
            // last frame's start, or a few samples before the end): asked wrongly, not damaged.
            if plan.window.start > 0 {
                throw .cannotFit(reason: "a clip from \(ClipText.seconds(plan.window.start)) holds no whole frame of the input: it ends first (start earlier)")
            }
            throw .corrupt(reason: "no packet of the input falls inside the clip")
        }
        let duration = max(videoTally?.end ?? 0, audioTally?.end ?? 0)
        if let video = plan.video, video.encode == nil, plan.window.start > 0, let base = timeline.base,
           base + duration <= zero + plan.window.start + ClipTimeline.epsilon {
            // A stream copy stops at the first packet in decode order past the window, so the
            // pictures after the keyframe may all fall away before the start asked is reached.
            throw .cannotFit(reason: "the stream copy from the keyframe at \(ClipText.seconds(base - zero)) ends at \(ClipText.seconds(base - zero + duration)), before the start asked (\(ClipText.seconds(plan.window.start))): use --trim exact, or a longer clip")
        }
        if plan.window.start > 0, duration < Self.shortestClip {
            throw .cannotFit(reason: "a clip from \(ClipText.seconds(plan.window.start)) keeps \(ClipText.seconds(duration)) of the input, less than a frame of any sound: it ends first (start earlier)")
        }
        return ClipOutcome(bytes: Self.fileSize(path), start: (timeline.base ?? timeline.start) - zero, duration: duration,
                           video: videoTally, audio: audioTally)
    }

    /// The clip's clock, and where to seek (`nil` = read from the beginning).
    ///
    /// Nothing cut at the start: base and start at the timeline's zero, pre-roll kept. A cut with
    /// the picture copied: start and base at the keyframe at or before the start (the cut snaps).
    /// A cut that encodes: start and base exactly at the start. A cut of copied sound alone: the
    /// first packet kept sets the base.
    private func makeTimeline(zero: Double, anchor: Int) throws(PrepareError) -> (ClipTimeline, seekTo: Double?) {
        guard plan.window.start > 0 else {
            return (ClipTimeline(start: zero, base: zero, duration: plan.window.duration, keepsPreroll: true), nil)
        }
        let wanted = zero + plan.window.start
        let finder = KeyframeFinder(path: inputPath, demuxer: demuxer, anchor: anchor, everyPacketIsKey: plan.video == nil)
        let found = try finder.find(start: wanted, deadline: deadline)
        let seekTo = found.seek ? wanted : nil
        if let video = plan.video, video.encode == nil {
            // The copy keeps the budget from the keyframe: when that ends before the start asked,
            // none of what was asked would be in the clip.
            if let duration = plan.window.duration, found.keyframe + duration <= wanted + ClipTimeline.epsilon {
                throw .cannotFit(reason: "the keyframe at or before \(ClipText.seconds(plan.window.start)) is at \(ClipText.seconds(found.keyframe - zero)), and a stream copy of \(ClipText.seconds(duration)) from it ends before the start asked: use --trim exact, or a longer clip")
            }
            return (ClipTimeline(start: found.keyframe, base: found.keyframe, duration: plan.window.duration), seekTo)
        }
        if plan.video == nil && plan.audio?.encode == nil {
            // Raw ADTS is copied from its first frame: its frames of sound are timed by counting
            // them (``StreamCopyStage``), which a seek would cut short.
            let isADTS = demuxer == Demuxers.name(for: .aacADTS)
            return (ClipTimeline(start: wanted, base: nil, duration: plan.window.duration), isADTS ? nil : seekTo)
        }
        return (ClipTimeline(start: wanted, base: wanted, duration: plan.window.duration), seekTo)
    }

    private func openInput() throws(PrepareError) -> AVInput {
        do {
            return try AVInput(path: inputPath, demuxer: demuxer, readStreamInfo: ClipInput.needsStreamInfo(demuxer))
        } catch {
            throw .corrupt(reason: "libavformat cannot read the input: \(error.message)")
        }
    }

    private func makeStages(input: borrowing AVInput, globalHeader: Bool, timeline: ClipTimeline) throws(PrepareError) -> [any ClipStage] {
        var stages: [any ClipStage] = []
        if let video = plan.video {
            if let encode = video.encode {
                stages.append(try VideoEncodeStage(plan: video, encode: encode, input: input, globalHeader: globalHeader,
                                                   timeline: timeline, decoding: plan.decoding))
            } else {
                stages.append(StreamCopyStage(inputIndex: video.index, isVideo: true, input: input, frameRate: video.frameRate,
                                               tag: video.tag, timeline: timeline))
            }
        }
        if let audio = plan.audio {
            if let encode = audio.encode {
                if input.formatName == Demuxers.name(for: .aacADTS), let silent = Self.silentADTSFrames(inputPath), silent > 0 {
                    throw .unsupported(reason: "\(silent) of its ADTS frames before the last sound decode to nothing (only fill, data or END elements): FFmpeg 5.1 times them as sound, so a cut or re-encode would start late and run short; a copy into an M4A, without them, is made when no byte budget or exact cut asks for a re-encode")
                }
                let audioEnd = Self.trailingTagsStart(inputPath)
                stages.append(try AudioEncodeStage(plan: audio, encode: encode, input: input, globalHeader: globalHeader,
                                                   timeline: timeline, decoding: plan.decoding, audioEnd: audioEnd))
            } else {
                stages.append(StreamCopyStage(inputIndex: audio.index, isVideo: false, input: input, frameRate: nil, tag: nil, timeline: timeline,
                                              framesOnly: plan.container == .mp3, dropsSilentADTS: input.formatName == "aac"))
            }
        }
        if let cover = plan.cover { stages.append(CoverArtStage(inputIndex: cover, decoding: plan.decoding)) }
        return stages
    }

    /// Reads packets until every stage has what it needs or the input ends; ``pace`` sees each
    /// picture packet's time from `start`; whoever watches (``PrepareProgress``) is told the share
    /// of `span` (the clip's seconds) the `anchor` stream's packets have reached.
    private func pump(input: borrowing AVInput, output: borrowing AVOutput, stages: [any ClipStage], from start: Double,
                      span: Double?, anchor: Int) throws(PrepareError) {
        let packet = try ClipErrors.attempt("reading the input") { () throws(FFmpegError) in try AVPacketBuffer() }
        let progress = span.flatMap { $0 > 0 ? PrepareProgress.sink : nil }
        var count = 0
        while !stages.allSatisfy(\.finished) {
            let more: Bool
            do {
                more = try input.read(into: packet)
            } catch {
                throw .corrupt(reason: "the input cannot be read past packet \(count): \(error.message)")
            }
            guard more else { return }
            defer { packet.unref() }
            count += 1
            if count % 16 == 0 { try deadline.check(plan.isStreamCopy ? "copying streams" : "transcoding") }
            if let pace, packet.streamIndex == plan.video?.index, let time = packet.seconds(in: input.timeBase(of: packet.streamIndex)) {
                try pace.observe(media: time - start)
            }
            if let progress, let span, packet.streamIndex == anchor, let time = packet.seconds(in: input.timeBase(of: packet.streamIndex)) {
                progress.update((time - start) / span)
            }
            guard let stage = stages.first(where: { $0.inputIndex == packet.streamIndex }) else { continue }
            try stage.accept(packet, output: output)
        }
    }

    /// Where the tags after an input's last audio frame start (its size without them; `.max`
    /// when it cannot be read): see ``AudioEncodeStage``.
    static func trailingTagsStart(_ path: String) -> Int64 {
        guard let reader = try? FileReader(path: path) else { return .max }
        return AudioTagStructure.trailingTagsStart(reader, floor: 0)
    }

    /// How many frames of the raw ADTS file at `path` that decode to nothing come before its
    /// last frame of sound (``ADTSStructure/Walk/silentFrames``, over a walk from the first frame
    /// the sniffer found; those after it move no sound in time); `nil` when it cannot be read.
    static func silentADTSFrames(_ path: String) -> Int64? {
        guard let reader = try? FileReader(path: path) else { return nil }
        let walked = ADTSStructure.walk(reader, from: FormatSniffer.sniff(reader).audioOffset)
        return walked.silentFrames - walked.trailingSilentFrames
    }

    /// Seconds under which a clip after a start keeps nothing playable: 5 ms, under one frame of
    /// any sound (AAC at 96 kHz: 10.7 ms) or picture.
    static let shortestClip = 0.005

    static func fileSize(_ path: String) -> Int64 {
        FileNames.statusIfPresent(path)?.size ?? 0
    }
}
