/// Decodes the frame a player shows at a given time: a keyframe seek backward to the keyframe at
/// or before the time, then decoding forward, keeping the last frame whose timestamp is not after
/// the time (so the time lands on the frame on screen at that instant, ±0 frames).
///
/// A time past the end gives the last frame; a time before the first frame gives the first.
struct PosterFrameDecoder {
    let path: String
    let demuxer: String
    let stream: Int
    /// Threads and frame-size cap of the decoder.
    var decoding = DecoderBudget.standard
    let deadline: Deadline

    /// Decodes into `frame`.
    /// - Parameter time: seconds from the start of the stream's timeline.
    /// - Returns: the frame's real time, seconds from the start of the stream's timeline.
    /// - Throws: ``PrepareError/corrupt(reason:)`` when nothing decodes or the decoder refuses the stream,
    ///   ``PrepareError/unsupported(reason:)`` when FFmpeg has no decoder,
    ///   ``PrepareError/deadlineExceeded(step:budget:)``.
    func decode(at time: Double, into frame: borrowing AVFrameBuffer) throws(PrepareError) -> Double {
        let zero: Double
        let target: Double
        let seek: Bool
        do {
            let probe = try AVInput(path: path, demuxer: demuxer, readStreamInfo: ClipInput.needsStreamInfo(demuxer))
            zero = probe.startTime(of: stream)
        } catch {
            throw .corrupt(reason: "libavformat cannot read the input: \(error.message)")
        }
        target = zero + max(0, time)
        if time > 0 {
            let found = try KeyframeFinder(path: path, demuxer: demuxer, anchor: stream, everyPacketIsKey: false)
                .find(start: target, deadline: deadline)
            seek = found.seek
        } else {
            seek = false
        }
        do {
            let input = try AVInput(path: path, demuxer: demuxer, readStreamInfo: ClipInput.needsStreamInfo(demuxer))
            input.discardAllStreams(except: [stream])
            if seek { try input.seek(stream: stream, toKeyframeBefore: target) }
            let shown = try decodeForward(input: input, to: target, into: frame)
            return shown - zero
        } catch let error as PrepareError {
            throw error
        } catch let error as FFmpegError {
            throw .corrupt(reason: "the picture does not decode near \(ClipText.seconds(time)): \(error.message)")
        } catch {
            throw .processing(step: "decoding the poster frame", reason: "\(error)")
        }
    }

    private func decodeForward(input: borrowing AVInput, to target: Double, into kept: borrowing AVFrameBuffer) throws -> Double {
        let decoder = try openDecoder(input)
        let timeBase = input.timeBase(of: stream)
        let packet = try AVPacketBuffer()
        let decoded = try AVFrameBuffer()
        var keptTime: Double?
        var packets = 0
        while try input.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == stream else { continue }
            packets += 1
            if packets % 8 == 0 { try deadline.check("decoding the poster frame") }
            while try decoder.send(packet) == .outputPending {
                if try drain(decoder, decoded, kept, timeBase: timeBase, target: target, keptTime: &keptTime) { return keptTime! }
            }
            if try drain(decoder, decoded, kept, timeBase: timeBase, target: target, keptTime: &keptTime) { return keptTime! }
        }
        _ = try decoder.sendEndOfStream()
        _ = try drain(decoder, decoded, kept, timeBase: timeBase, target: target, keptTime: &keptTime)
        guard let keptTime else { throw PrepareError.corrupt(reason: "no picture decodes at or before the end of the stream") }
        return keptTime
    }

    private func openDecoder(_ input: borrowing AVInput) throws(PrepareError) -> AVDecoder {
        try ClipErrors.openingDecoder("the picture") { () throws(FFmpegError) in
            try AVDecoder(input: input, streamIndex: stream, options: decoding.videoDecoderOptions)
        }
    }

    /// Takes the decoder's frames into `kept` while they are not after `target`.
    /// - Returns: `true` once a frame after the target arrived (the kept one is the answer).
    private func drain(_ decoder: borrowing AVDecoder, _ decoded: borrowing AVFrameBuffer, _ kept: borrowing AVFrameBuffer,
                       timeBase: Rational, target: Double, keptTime: inout Double?) throws(FFmpegError) -> Bool {
        while true {
            switch try decoder.receive(into: decoded) {
            case .needsInput, .endOfStream: return false
            case .frame:
                let t = decoded.timestamp.map(timeBase.seconds) ?? (keptTime ?? target)
                if t > target + ClipTimeline.epsilon && keptTime != nil {
                    decoded.unref()
                    return true
                }
                kept.take(from: decoded)
                keptTime = t
                if t > target + ClipTimeline.epsilon { return true }
            }
        }
    }
}
