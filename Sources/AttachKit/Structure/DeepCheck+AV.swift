extension DeepCheck {
    /// How a check's decoders are bounded: one thread (parallelism comes from checking many files)
    /// and libavcodec's own frame-size cap. Error detection stays at FFmpeg's default but for JPEG
    /// (``DecoderBudget/decoderOptions(for:still:)``): an error a decoder returns, or a frame it flags as
    /// concealed, is corruption; a deviation decoders tolerate is not.
    static let decoding = DecoderBudget.singleThread(maxPixels: maximumPixels)
    /// ``decoding`` with reconstruction skipped (``DecoderBudget/skipsReconstruction``), for
    /// ``VerifyMode/fast``. One thread still: with frame threads, whether a concealed H.264 frame
    /// comes out flagged (`decode_error_flags`, `AV_FRAME_FLAG_CORRUPT`) is a race — measured
    /// with FFmpeg 5.1, a B-frame with 40 damaged bytes was flagged in 4 of 6 two-thread decodes,
    /// and a frame-threaded fast check handed a damaged copy back as ok. Cores are used instead by
    /// decoding independent segments at once (``DecoderBudget/segmentThreads``, set by `prepare`).
    static let fastDecoding: DecoderBudget = {
        var budget = decoding
        budget.skipsReconstruction = true
        return budget
    }()

    /// Decodes every packet of every audio/video stream that is not an attached picture, one stream
    /// per pass (one decoder alive at a time), then compares the longest decoded stream with the
    /// duration the container declares (not for pictures: an animation's frame timing is checked
    /// by its own structure check).
    /// - Parameter chosen: the demuxer to read with; default the container's (``Demuxers``).
    /// - Returns: ``StructureVerdict/notChecked`` when FFmpeg cannot be loaded on this machine, or
    ///   has no decoder (or a "not implemented" one) for a stream, or the stream is one of
    ///   ``MediaInfo/undecodableStreams`` (never decoded: the file may be fine); "no
    ///   samples" (corrupt) when every stream decodes to no frame at all.
    /// - Parameter videoBudget: seconds of each video stream to decode at most, GOPs spread evenly
    ///   (``GOPSampler``); `nil` = all. The coverage returned says what was decoded when GOPs were
    ///   skipped.
    /// - Parameter decoding: how the decoders run; default ``decoding``. A video stream decoded
    ///   whole (no GOP skipped) with ``DecoderBudget/segmentThreads`` over 1 is decoded segment by
    ///   segment in parallel (``decodeSegments(path:demuxer:stream:options:threads:duration:)``).
    static func decodeAudioVideo(path: String, info: MediaInfo, demuxer chosen: String? = nil, videoBudget: Double? = nil,
                                 decoding: DecoderBudget = decoding) -> (verdict: StructureVerdict, coverage: String?) {
        guard let demuxer = chosen ?? Demuxers.name(for: info.container) else { return (.notChecked, nil) }
        let streams: [AVStreamInfo]
        let total: Double?
        do {
            let input = try AVInput(path: path, demuxer: demuxer)
            streams = input.streams
            total = info.duration ?? input.duration
        } catch where error.operation == .loadLibrary {
            return (.notChecked, nil)
        } catch {
            return (.corrupt(reason: "libavformat cannot read the file: \(error)"), nil)
        }
        let media = streams.filter { ($0.kind == .audio || $0.kind == .video) && !$0.isAttachedPicture }
        // A stream FFmpeg misreads (``MediaInfo/undecodableStreams``) would fail the decoder it is handed to.
        let decodable = media.filter { !info.isUndecodable(streamID: $0.identifier) }
        guard !media.isEmpty else { return (.corrupt(reason: "no audio or video stream to decode"), nil) }
        // A picture too large to decode safely is not checked (it is not thereby corrupt).
        for stream in decodable where stream.kind == .video && Double(stream.width) * Double(stream.height) > Double(maximumPixels) {
            return (.notChecked, nil)
        }
        var longest: Double?
        var undecodable = decodable.count < media.count
        var frames = 0
        var coverage: [String] = []
        for stream in decodable {
            var duration = DecodedDuration(frameRate: stream.frameRate)
            // The pictures must be what the header says: a codec configuration that claims 8-bit 4:2:0
            // over a 4:2:2 or 10-bit stream would have an unplayable stream copied as playable.
            if stream.kind == .video, info.kind == .video, stream.index == decodable.first(where: { $0.kind == .video })?.index {
                duration.expectedPixelFormat = info.pixelFormat
            }
            // An estimated duration (a fragmented MP4's, or libavformat's when the header gave none)
            // is good enough to spread the GOPs by.
            var sampler = GOPSampler(budget: stream.kind == .video ? videoBudget : nil, duration: total)
            let options = decoding.decoderOptions(for: stream.codec, still: info.kind == .image)
            let verdict: StructureVerdict
            if stream.kind == .video, !sampler.samples, decoding.segmentThreads > 1,
               let split = decodeSegments(path: path, demuxer: demuxer, stream: stream, options: options,
                                          threads: decoding.segmentThreads, duration: &duration) {
                verdict = split
            } else {
                verdict = decode(path: path, demuxer: demuxer, stream: stream, options: options, duration: &duration, sampler: &sampler)
            }
            switch verdict {
            case .corrupt(let reason): return (.corrupt(reason: reason), nil)
            case .overCap(let violation): return (.overCap(violation), nil)
            case .encrypted, .undecodable, .notChecked: undecodable = true
            case .intact, .recoverable: break
            }
            // Each picture stream is held to its own declared length: a sound track that fills
            // the movie's span does not vouch for pictures that stopped decoding (a damaged
            // SPS: 1 of 50 frames out, the rest concealed away with no error returned).
            // (No stream declares more than the file does: the probe corrects a fragmented MP4's
            // placeholder from its fragments.)
            // Its length counts from its first frame (fragments whose timeline starts at 10 s), and
            // two frames' worth may be missing from it (a still held for the span at 1 fps).
            if info.kind == .video, stream.kind == .video, info.durationIsEstimate != true,
               let declared = stream.duration.map({ min($0, info.duration ?? $0) - max(0, stream.startTime ?? 0) }), declared > durationSlack {
                let decoded = duration.seconds ?? 0
                let frameLength = max(stream.frameRate.map { $0 > 0 ? 1 / $0 : 0 } ?? 0, duration.frames > 0 ? decoded / Double(duration.frames) : 0)
                let slack = max(durationSlack, 2 * frameLength)
                if decoded < declared * minimumDurationShare, declared - decoded > slack {
                    return (.corrupt(reason: "stream \(stream.index) (\(stream.codec)) decodes to \(rounded(decoded)) s of pictures but the container declares \(rounded(declared)) s of them (data missing)"), nil)
                }
            }
            frames += duration.frames
            if let seconds = duration.seconds { longest = max(longest ?? 0, seconds) }
            if let covered = sampler.coverage { coverage.append(covered) }
        }
        let note = coverage.isEmpty ? nil : coverage.joined(separator: "; ")
        // An MP4/MOV declares its duration on the movie's timeline from 0, an edit list's empty
        // edit (a start offset, no sample) included: the media the streams hold start after it.
        let offset = info.container.isISOBaseMedia ? max(0, decodable.compactMap(\.startTime).min() ?? 0) : 0
        let declaredMedia = info.duration.map { $0 - offset }
        if info.kind != .image, let declared = declaredMedia, info.durationIsEstimate != true, declared > 0, let decoded = longest,
           decoded < declared * minimumDurationShare, declared - decoded > durationSlack {
            return (.corrupt(reason: "the media decodes to \(rounded(decoded)) s but the container declares \(rounded(declared)) s (data missing)"), nil)
        }
        if undecodable { return (.notChecked, note) }
        // Whatever the header declares, an attachment with nothing decodable shows nothing.
        if frames == 0 { return (.noSamples("no audio or video frame decodes"), note) }
        // A sound file's cover that does not decode is dropped by prepare (``ClipSource``).
        if (info.attachedPictures ?? 0) > 0, let broken = CoverArtStage.brokenCover(path: path, demuxer: demuxer, decoding: decoding) {
            return (.recoverable(reason: broken + "; the sound decodes, prepare drops the picture"), note)
        }
        return (.intact, note)
    }

    /// Decodes one stream to the end (the GOPs `sampler` chooses, for a video). `.notChecked` when
    /// FFmpeg has no decoder for its codec.
    private static func decode(path: String, demuxer: String, stream: AVStreamInfo, options: [String: String],
                               duration: inout DecodedDuration, sampler: inout GOPSampler) -> StructureVerdict {
        let label = "stream \(stream.index) (\(stream.codec))"
        do {
            let input = try AVInput(path: path, demuxer: demuxer)
            input.discardAllStreams(except: [stream.index])
            let decoder: AVDecoder
            do {
                decoder = try AVDecoder(input: input, streamIndex: stream.index, options: options)
            } catch where error.operation == .findDecoder || error.isNotImplemented {
                return .notChecked  // A decoder AttachKit lacks is not corruption (see decodersOpen).
            }
            // Tags after the last audio frame (ID3v1, APEv2, Lyrics3) are metadata: a demuxer that
            // hands them on as a last packet does not make the sound corrupt.
            var audioEnd = Int64.max
            if stream.kind == .audio, let reader = try? FileReader(path: path) { audioEnd = AudioTagStructure.trailingTagsStart(reader, floor: 0) }
            // Junk between MP3 frames is handed on as packets of its own: skipped, as players do.
            let framesOnly = AVPacketBuffer.parsesMPEGAudio(codec: stream.codec, demuxer: demuxer)
            let packet = try AVPacketBuffer()
            let frame = try AVFrameBuffer()
            var packets = 0
            let sampling = sampler.samples
            duration.sampled = sampling
            while try input.read(into: packet) {
                defer { packet.unref() }
                guard packet.streamIndex == stream.index else { continue }
                if let position = packet.position, position >= audioEnd { continue }
                if framesOnly, !packet.isWholeMPEGAudioFrame { continue }
                packets += 1
                let place = packet.position.map { " (packet \(packets) at byte \($0))" } ?? " (packet \(packets))"
                if sampling {
                    // Every packet is demuxed, so the length check sees the whole stream.
                    duration.cover(packet, timeBase: decoder.timeBase)
                    if packet.isKeyframe, let time = packet.seconds(in: decoder.timeBase) {
                        switch sampler.keyframe(at: time) {
                        case .keep: break
                        case .resume:
                            decoder.flush()
                            duration.leadingBefore = packet.timestamp
                        case .pause:
                            _ = try decoder.sendEndOfStream()
                            if let problem = try drain(decoder, into: frame, duration: &duration) { return .corrupt(reason: "\(label)\(place): \(problem)") }
                            decoder.flush()
                        }
                    }
                    guard sampler.decoding else { continue }
                }
                do {
                    while try decoder.send(packet) == .outputPending {
                        if let problem = try drain(decoder, into: frame, duration: &duration) { return .corrupt(reason: "\(label)\(place): \(problem)") }
                    }
                    if let problem = try drain(decoder, into: frame, duration: &duration) { return .corrupt(reason: "\(label)\(place): \(problem)") }
                } catch where error.isNotImplemented {
                    // A variant this FFmpeg does not decode (a 52-byte BMP header...) is not corruption.
                    return .undecodable(reason: "\(label) cannot be decoded here (FFmpeg: \(error.message))")
                } catch {
                    // The last frame with the tags behind it in one packet (a parser that does not
                    // know them): the frame's trouble is the tag's bytes, not damage.
                    if let position = packet.position, audioEnd < .max, position + Int64(packet.byteCount) > audioEnd { break }
                    return .corrupt(reason: "\(label) does not decode\(place): \(error.message)")
                }
            }
            sampler.finish(at: duration.packetEnd)
            _ = try decoder.sendEndOfStream()
            if let problem = try drain(decoder, into: frame, duration: &duration) { return .corrupt(reason: "\(label) at the end: \(problem)") }
            if packets > 0, duration.frames == 0 {
                return .corrupt(reason: "\(label): \(packets) packet(s) decode to no frame")
            }
            // A stream the container says has frames but that yields no packet cannot be shown,
            // however well its neighbours decode (an MP4 track libavformat could not index).
            if packets == 0, let declared = stream.frameCount, declared > 0 {
                return .noSamples("\(label): the container declares \(declared) frames but none can be read")
            }
            return .intact
        } catch {
            return .corrupt(reason: "\(label) does not decode: \(error)")
        }
    }

    /// Receives every frame the decoder has ready; a problem description when a frame is flagged damaged.
    private static func drain(_ decoder: borrowing AVDecoder, into frame: borrowing AVFrameBuffer,
                              duration: inout DecodedDuration) throws(FFmpegError) -> String? {
        try drainFrames(decoder, into: frame, duration: &duration)?.description(framesBefore: 0)
    }

    /// ``drain(_:into:duration:)``'s problem, its frame numbered within the frames `duration` counts.
    static func drainFrames(_ decoder: borrowing AVDecoder, into frame: borrowing AVFrameBuffer,
                            duration: inout DecodedDuration) throws(FFmpegError) -> DecodeProblem? {
        while try decoder.receive(into: frame) == .frame {
            if let problem = judge(frame, timeBase: decoder.timeBase, duration: &duration) { return problem }
        }
        return nil
    }

    /// Counts a decoded frame into `duration`; a problem when it is flagged damaged (or the
    /// first picture is not in the pixel format the header gives).
    static func judge(_ frame: borrowing AVFrameBuffer, timeBase: Rational, duration: inout DecodedDuration) -> DecodeProblem? {
        duration.add(frame, timeBase: timeBase)
        if duration.frames == 1, let expected = duration.expectedPixelFormat, let decoded = frame.pixelFormatName,
           PixelFormatNames.plain(decoded) != PixelFormatNames.plain(expected) {
            return DecodeProblem(text: "the pictures decode as \(decoded), but the header says \(expected) (the codec configuration does not describe the stream)")
        }
        // A leading picture of an open GOP decoded after skipped GOPs lacks its references.
        let leading = duration.leadingBefore.map { start in frame.timestamp.map { $0 < start } ?? false } ?? false
        if frame.hasDecodeErrors, !leading {
            // When GOPs are skipped, decoded frames are not counted from the start: the time says where.
            let time = frame.timestamp.map { " at \(rounded(Double($0) * timeBase.value)) s" } ?? ""
            return DecodeProblem(text: "a frame" + "\(time) decoded with errors (concealed)",
                                 frame: duration.sampled ? nil : duration.frames, rest: "\(time) decoded with errors (concealed)")
        }
        return nil
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}

/// What a drain found wrong: a text, or a damaged frame numbered once the frames decoded before
/// its decode (another segment's) are known.
struct DecodeProblem: Sendable {
    /// The text when the frame is not numbered.
    var text: String
    /// The damaged frame's number within its decode (from 1); `nil` = not numbered.
    var frame: Int?
    /// What follows "frame N".
    var rest = ""

    func description(framesBefore: Int) -> String {
        frame.map { "frame \($0 + framesBefore)" + rest } ?? text
    }
}

/// How much media one stream's decoded frames hold: audio by samples (no timestamps needed), video
/// from the first frame's timestamp to the last frame's end.
struct DecodedDuration: Sendable {
    /// The stream's nominal frame rate, for video frames whose packet has no duration.
    let frameRate: Double?
    private(set) var frames = 0
    private var audioSeconds = 0.0
    private var firstVideoTime: Double?
    private var videoEnd: Double?
    /// When GOPs are skipped (``GOPSampler``): frames shown before this timestamp come before the
    /// keyframe decoding resumed at (an open GOP's leading pictures), and their damage is not held
    /// against the file.
    var leadingBefore: Int64?
    /// The pixel format the header gives the video (checked against the first decoded picture).
    var expectedPixelFormat: String?
    /// Whether GOPs are skipped (frames are then not counted from the start of the stream).
    var sampled = false
    /// When GOPs are skipped: the end of the last packet demuxed, in seconds.
    private(set) var packetEnd: Double?

    init(frameRate: Double?) { self.frameRate = frameRate }

    /// Seconds of decoded media; `nil` when no frame told its length.
    var seconds: Double? {
        if audioSeconds > 0 { return audioSeconds }
        guard let firstVideoTime, let videoEnd else { return nil }
        return max(0, videoEnd - firstVideoTime)
    }

    /// Counts a packet that was demuxed, decoded or not, into the video's extent (used when GOPs
    /// are skipped, so a skipped end of the stream still counts as present).
    mutating func cover(_ packet: borrowing AVPacketBuffer, timeBase: Rational) {
        guard let timestamp = packet.timestamp, timeBase.isPositive else { return }
        let start = Double(timestamp) * timeBase.value
        var length = Double(packet.duration) * timeBase.value
        if length == 0, let frameRate, frameRate > 0 { length = 1 / frameRate }
        firstVideoTime = min(firstVideoTime ?? start, start)
        videoEnd = max(videoEnd ?? start + length, start + length)
        packetEnd = max(packetEnd ?? start + length, start + length)
    }

    /// Adds the frames of a decode of the stream's next segment (``IndependentSegments``).
    mutating func append(_ later: DecodedDuration) {
        frames += later.frames
        audioSeconds += later.audioSeconds
        if let first = later.firstVideoTime { firstVideoTime = min(firstVideoTime ?? first, first) }
        if let end = later.videoEnd { videoEnd = max(videoEnd ?? end, end) }
        if let end = later.packetEnd { packetEnd = max(packetEnd ?? end, end) }
    }

    mutating func add(_ frame: borrowing AVFrameBuffer, timeBase: Rational) {
        frames += 1
        if frame.sampleCount > 0, frame.sampleRate > 0 {
            audioSeconds += Double(frame.sampleCount) / Double(frame.sampleRate)
            return
        }
        guard let timestamp = frame.timestamp, timeBase.isPositive else { return }
        let unit = timeBase.value
        let start = Double(timestamp) * unit
        var length = Double(frame.packetDuration) * unit
        if length == 0, let frameRate, frameRate > 0 { length = 1 / frameRate }
        firstVideoTime = min(firstVideoTime ?? start, start)
        videoEnd = max(videoEnd ?? start + length, start + length)
    }
}

/// Pixel format names compared for what they mean to a player: `yuvj420p` is `yuv420p` in full
/// range (the range is a tag, not a layout).
enum PixelFormatNames {
    static func plain(_ name: String) -> String {
        name.hasPrefix("yuvj") ? "yuv" + name.dropFirst(4) : name
    }
}
