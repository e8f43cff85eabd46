extension DeepCheck {
    /// How a check's decoders are bounded: one thread (parallelism comes from checking many files)
    /// and libavcodec's own frame-size cap. Error detection stays at FFmpeg's default: an error a
    /// decoder returns, or a frame it flags as concealed, is corruption; a deviation decoders
    /// tolerate is not (`err_detect=explode` failed valid TIFFs over an unknown tag).
    static let decoding = DecoderBudget.singleThread(maxPixels: maximumPixels)

    /// Decodes every packet of every audio/video stream that is not an attached picture, one stream
    /// per pass (one decoder alive at a time), then compares the longest decoded stream with the
    /// duration the container declares (not for pictures: an animation's frame timing is checked
    /// by its own structure check).
    /// - Parameter chosen: the demuxer to read with; default the container's (``Demuxers``).
    /// - Returns: ``StructureVerdict/notChecked`` when FFmpeg cannot be loaded on this machine, or
    ///   has no decoder (or a "not implemented" one) for a stream (the file may be fine); "no
    ///   samples" (corrupt) when every stream decodes to no frame at all.
    static func decodeAudioVideo(path: String, info: MediaInfo, demuxer chosen: String? = nil) -> StructureVerdict {
        guard let demuxer = chosen ?? Demuxers.name(for: info.container) else { return .notChecked }
        let streams: [AVStreamInfo]
        do {
            streams = try AVInput(path: path, demuxer: demuxer).streams
        } catch where error.operation == .loadLibrary {
            return .notChecked
        } catch {
            return .corrupt(reason: "libavformat cannot read the file: \(error)")
        }
        let decodable = streams.filter { ($0.kind == .audio || $0.kind == .video) && !$0.isAttachedPicture }
        guard !decodable.isEmpty else { return .corrupt(reason: "no audio or video stream to decode") }
        // A picture too large to decode safely is not checked (it is not thereby corrupt).
        for stream in decodable where stream.kind == .video && Double(stream.width) * Double(stream.height) > Double(maximumPixels) {
            return .notChecked
        }
        var longest: Double?
        var undecodable = false
        var frames = 0
        for stream in decodable {
            var duration = DecodedDuration(frameRate: stream.frameRate)
            switch decode(path: path, demuxer: demuxer, stream: stream, duration: &duration) {
            case .corrupt(let reason): return .corrupt(reason: reason)
            case .overCap(let violation): return .overCap(violation)
            case .encrypted, .undecodable, .notChecked: undecodable = true
            case .intact: break
            }
            frames += duration.frames
            if let seconds = duration.seconds { longest = max(longest ?? 0, seconds) }
        }
        if info.kind != .image, let declared = info.duration, info.durationIsEstimate != true, declared > 0, let decoded = longest,
           decoded < declared * minimumDurationShare, declared - decoded > durationSlack {
            return .corrupt(reason: "the media decodes to \(rounded(decoded)) s but the container declares \(rounded(declared)) s (data missing)")
        }
        if undecodable { return .notChecked }
        // Whatever the header declares, an attachment with nothing decodable shows nothing.
        return frames == 0 ? .noSamples("no audio or video frame decodes") : .intact
    }

    /// Decodes one stream to the end. `.notChecked` when FFmpeg has no decoder for its codec.
    private static func decode(path: String, demuxer: String, stream: AVStreamInfo, duration: inout DecodedDuration) -> StructureVerdict {
        let label = "stream \(stream.index) (\(stream.codec))"
        do {
            let input = try AVInput(path: path, demuxer: demuxer)
            input.discardAllStreams(except: [stream.index])
            let decoder: AVDecoder
            do {
                decoder = try AVDecoder(input: input, streamIndex: stream.index, options: decoding.decoderOptions)
            } catch where error.operation == .findDecoder || isNotImplemented(error) {
                return .notChecked  // A decoder AttachKit lacks is not corruption (see decodersOpen).
            }
            let packet = try AVPacketBuffer()
            let frame = try AVFrameBuffer()
            var packets = 0
            while try input.read(into: packet) {
                defer { packet.unref() }
                guard packet.streamIndex == stream.index else { continue }
                packets += 1
                let place = packet.position.map { " (packet \(packets) at byte \($0))" } ?? " (packet \(packets))"
                do {
                    while try decoder.send(packet) == .outputPending {
                        if let problem = try drain(decoder, into: frame, duration: &duration) { return .corrupt(reason: "\(label)\(place): \(problem)") }
                    }
                    if let problem = try drain(decoder, into: frame, duration: &duration) { return .corrupt(reason: "\(label)\(place): \(problem)") }
                } catch where isNotImplemented(error) {
                    // A variant this FFmpeg does not decode (a 52-byte BMP header...) is not corruption.
                    return .undecodable(reason: "\(label) cannot be decoded here (FFmpeg: \(error.message))")
                } catch {
                    return .corrupt(reason: "\(label) does not decode\(place): \(error.message)")
                }
            }
            _ = try decoder.sendEndOfStream()
            if let problem = try drain(decoder, into: frame, duration: &duration) { return .corrupt(reason: "\(label) at the end: \(problem)") }
            if packets > 0, duration.frames == 0 {
                return .corrupt(reason: "\(label): \(packets) packet(s) decode to no frame")
            }
            return .intact
        } catch {
            return .corrupt(reason: "\(label) does not decode: \(error)")
        }
    }

    /// Receives every frame the decoder has ready; a problem description when a frame is flagged damaged.
    private static func drain(_ decoder: borrowing AVDecoder, into frame: borrowing AVFrameBuffer,
                              duration: inout DecodedDuration) throws(FFmpegError) -> String? {
        while try decoder.receive(into: frame) == .frame {
            duration.add(frame, timeBase: decoder.timeBase)
            if frame.hasDecodeErrors { return "frame \(duration.frames) decoded with errors (concealed)" }
        }
        return nil
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}

/// How much media one stream's decoded frames hold: audio by samples (no timestamps needed), video
/// from the first frame's timestamp to the last frame's end.
struct DecodedDuration {
    /// The stream's nominal frame rate, for video frames whose packet has no duration.
    let frameRate: Double?
    private(set) var frames = 0
    private var audioSeconds = 0.0
    private var firstVideoTime: Double?
    private var videoEnd: Double?

    init(frameRate: Double?) { self.frameRate = frameRate }

    /// Seconds of decoded media; `nil` when no frame told its length.
    var seconds: Double? {
        if audioSeconds > 0 { return audioSeconds }
        guard let firstVideoTime, let videoEnd else { return nil }
        return max(0, videoEnd - firstVideoTime)
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
