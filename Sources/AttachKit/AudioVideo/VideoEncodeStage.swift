/// Decodes one video stream, keeps the frames inside the clip's window, scales them to the
/// planned size (square pixels, yuv420p) and encodes them with x264 (one-pass ABR at the planned
/// bitrate, preset chosen against the deadline). The input's display matrix is kept on the
/// output stream, so the picture shows upright without rotating pixels.
final class VideoEncodeStage: ClipStage {
    let inputIndex: Int
    private(set) var outputIndex = -1
    private(set) var finished = false
    private(set) var tally = StreamTally()
    private let codecName: String
    private let inputTimeBase: Rational
    private let frameDuration: Double
    private let timeline: ClipTimeline
    private var decoder: AVDecoder
    private var scaler: AVScaler
    /// HDR frames are tone-mapped to SDR BT.709 at the output size before the scaler.
    private var toneMapper: ToneMapper
    private let mapped: AVFrameBuffer
    private var encoder: AVEncoder
    private let decoded: AVFrameBuffer
    private let scaled: AVFrameBuffer
    private let packet: AVPacketBuffer
    private var outputTimeBase = Rational(1, 1)
    private var lastTime: Double?
    private var lastPts: Int64 = .min
    private var decoderDone = false

    /// Opens the decoder for `plan.index` and the encoder for `encode`.
    /// - Throws: ``PrepareError/unsupported(reason:)`` when FFmpeg has no decoder for the stream,
    ///   ``PrepareError/corrupt(reason:)`` when its decoder refuses it,
    ///   ``PrepareError/processing(step:reason:)`` when an encoder or buffer cannot be set up.
    init(plan: VideoTrackPlan, encode: VideoTrackPlan.VideoEncode, input: borrowing AVInput,
         globalHeader: Bool, timeline: ClipTimeline, decoding: DecoderBudget) throws(PrepareError) {
        inputIndex = plan.index
        let info = input.stream(plan.index)
        codecName = info.codec.rawValue
        inputTimeBase = input.timeBase(of: plan.index)
        frameDuration = plan.frameRate.inverse
        self.timeline = timeline
        decoder = try ClipErrors.openingDecoder("the \(codecName) video") { () throws(FFmpegError) in
            try AVDecoder(input: input, streamIndex: plan.index, options: decoding.videoDecoderOptions)
        }
        var settings = VideoEncoderSettings(width: encode.width, height: encode.height, timeBase: inputTimeBase,
                                            frameRate: plan.frameRate, bitRate: encode.bitRate)
        settings.options = ["preset": encode.preset.rawValue].merging(decoding.encoderOptions) { $1 }
        // A keyframe every 2 s at most: quick seeking for the poster frame and the player.
        // Clamped: the frame rate is 1...240 fps (``AVInput/frameRate(of:)``), so 2...480 frames.
        settings.gopSize = (2 / frameDuration).clampedInteger(in: 1...480)
        // The source's colours, tagged explicitly, in limited range: the scaler converts no matrix.
        // HDR (PQ, HLG) is tone-mapped to SDR BT.709 first (``ToneMapper``), and tagged so.
        let hdr = input.hdr(of: plan.index)
        settings.colour = hdr == nil ? input.colour(of: plan.index).encodedOutput(height: info.height) : ToneMapper.output
        toneMapper = try ToneMapper(hdr: hdr, width: encode.width, height: encode.height)
        do {
            scaler = try AVScaler(width: encode.width, height: encode.height, format: settings.pixelFormat, colour: settings.colour)
            encoder = try AVEncoder(video: settings, globalHeader: globalHeader)
            decoded = try AVFrameBuffer()
            scaled = try AVFrameBuffer()
            mapped = try AVFrameBuffer()
            packet = try AVPacketBuffer()
        } catch {
            throw ClipErrors.processing("opening the H.264 encoder", error)
        }
    }

    func attach(to output: borrowing AVOutput, input: borrowing AVInput) throws(PrepareError) {
        do {
            outputIndex = try output.addStream(encoder: encoder, rotationFrom: inputIndex, of: input)
        } catch {
            throw ClipErrors.processing("adding the video stream", error)
        }
    }

    func ready(output: borrowing AVOutput) { outputTimeBase = output.timeBase(of: outputIndex) }

    func accept(_ input: borrowing AVPacketBuffer, output: borrowing AVOutput) throws(PrepareError) {
        guard !finished else { return }
        try ClipErrors.decoding(stream: inputIndex, codec: codecName, at: input.seconds(in: inputTimeBase), step: "video") {
            while !finished, try decoder.send(input) == .outputPending {
                try drainDecoder(output: output)
            }
            if !finished { try drainDecoder(output: output) }
        }
    }

    func finish(output: borrowing AVOutput) throws(PrepareError) {
        try ClipErrors.decoding(stream: inputIndex, codec: codecName, at: lastTime, step: "video") {
            if !finished && !decoderDone {
                _ = try decoder.sendEndOfStream()
                try drainDecoder(output: output)
            }
        }
        finished = true
        do {
            _ = try encoder.sendEndOfStream()
        } catch {
            throw ClipErrors.processing("encoding video", error)
        }
        try drainEncoder(output: output)
    }

    /// Receives every frame the decoder has ready and encodes the ones inside the window.
    private func drainDecoder(output: borrowing AVOutput) throws {
        while !finished {
            switch try decoder.receive(into: decoded) {
            case .needsInput: return
            case .endOfStream:
                decoderDone = true
                return
            case .frame:
                defer { decoded.unref() }
                try take(output: output)
            }
        }
    }

    private func take(output: borrowing AVOutput) throws(PrepareError) {
        let time = decoded.timestamp.map(inputTimeBase.seconds) ?? ((lastTime ?? timeline.start) + frameDuration)
        lastTime = time
        // A frame whose middle is at or after the start begins the clip; a frame that would end
        // past the window ends it, so the clip never runs over its budget (it may end up to a
        // frame short; kept by its middle, a frame half past the end ran up to half a frame over,
        // and a 5 fps clip of 0.31 s came out 0.4 s and was refused).
        if time < timeline.start - frameDuration / 2 { return }
        // A frame from before the start is shown from the clip's 0 for its whole length.
        if max(time, timeline.base ?? timeline.start) + frameDuration > timeline.end + ClipTimeline.epsilon {
            finished = true
            return
        }
        if decoded.hasDecodeErrors { throw ClipErrors.concealed(stream: inputIndex, codec: codecName, at: time) }
        let base = timeline.base ?? timeline.start
        do {
            if try toneMapper.map(decoded, into: mapped) {
                tally.toneMapped = toneMapper.mapped
                try scaler.scale(mapped, into: scaled)
            } else {
                try scaler.scale(decoded, into: scaled)
            }
        } catch {
            throw ClipErrors.processing("scaling video", error)
        }
        // A frame kept from just before an exact cut (it is the one showing at the cut) starts the
        // clip at 0 rather than before it, where the edit list would hide it.
        var pts = encoder.timeBase.timestamp(max(0, time - base))
        if pts <= lastPts { pts = lastPts + 1 }
        lastPts = pts
        scaled.prepareForEncoding(at: pts)
        while try ClipErrors.attempt("encoding video", { () throws(FFmpegError) in try encoder.send(scaled) }) == .outputPending {
            try drainEncoder(output: output)
        }
        try drainEncoder(output: output)
    }

    private func drainEncoder(output: borrowing AVOutput) throws(PrepareError) {
        while true {
            let step: EncodeStep
            do {
                step = try encoder.receive(into: packet)
            } catch {
                throw ClipErrors.processing("encoding video", error)
            }
            guard step == .packet else { return }
            packet.fillDuration(max(1, encoder.timeBase.timestamp(frameDuration)))
            packet.retime(minus: 0, from: encoder.timeBase, to: outputTimeBase, stream: outputIndex)
            try mux(packet, output: output, timeBase: outputTimeBase, tally: &tally)
        }
    }
}
