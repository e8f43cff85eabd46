/// Decodes one audio stream, keeps the samples inside the clip's window (to the sample: an exact
/// cut, and audio that starts with the picture), resamples them to the planned rate and channels
/// and encodes AAC-LC in 1024-sample frames.
///
/// Output timestamps count samples from the clip's base, so audio and video share one clock: a
/// stream that starts later than the base starts later in the output too.
final class AudioEncodeStage: ClipStage {
    let inputIndex: Int
    private(set) var outputIndex = -1
    private(set) var finished = false
    private(set) var tally = StreamTally()
    private let codecName: String
    private let inputTimeBase: Rational
    private let timeline: ClipTimeline
    private let sampleRate: Int
    private var decoder: AVDecoder
    private var resampler: AVResampler
    private var encoder: AVEncoder
    private let fifo: AVAudioFIFO
    private let decoded: AVFrameBuffer
    private let converted: AVFrameBuffer
    private let chunk: AVFrameBuffer
    private let packet: AVPacketBuffer
    private var outputTimeBase = Rational(1, 1)
    /// Whether the first samples were placed on the clip's clock.
    private var placed = false
    /// Output sample position of the FIFO's first sample (the next frame sent to the encoder).
    private var encodedPosition: Int64 = 0
    private var lastTime: Double?
    private var decoderDone = false
    /// Packets at or after this byte are trailing tags (see `init`).
    private let audioEnd: Int64

    /// Opens the decoder for `plan.index` (bounded by `decoding`), the resampler and the AAC encoder for `encode`.
    /// - Throws: ``PrepareError/unsupported(reason:)`` when FFmpeg has no decoder for the stream,
    ///   ``PrepareError/corrupt(reason:)`` when its decoder refuses it,
    ///   ``PrepareError/processing(step:reason:)`` when the encoder cannot be set up.
    /// - Parameter audioEnd: where the tags after the last audio frame start (ID3v1, APEv2,
    ///   Lyrics3; the file's size without them): packets from there are metadata a demuxer hands
    ///   on, not sound, and a packet reaching past it is cut there (a FLAC decoder on one thread
    ///   refuses a last frame with an ID3v1 tag's 128 bytes behind it), as the deep check does.
    init(plan: AudioTrackPlan, encode: AudioTrackPlan.AudioEncode, input: borrowing AVInput,
         globalHeader: Bool, timeline: ClipTimeline, decoding: DecoderBudget, audioEnd: Int64 = .max) throws(PrepareError) {
        self.audioEnd = audioEnd
        inputIndex = plan.index
        codecName = input.stream(plan.index).codec.rawValue
        inputTimeBase = input.timeBase(of: plan.index)
        self.timeline = timeline
        sampleRate = encode.sampleRate
        decoder = try ClipErrors.openingDecoder("the \(codecName) audio") { () throws(FFmpegError) in
            try AVDecoder(input: input, streamIndex: plan.index, options: decoding.audioDecoderOptions(for: input.stream(plan.index).codec))
        }
        let settings = AudioEncoderSettings(sampleRate: encode.sampleRate, channels: encode.channels, bitRate: encode.bitRate)
        do {
            encoder = try AVEncoder(audio: settings, globalHeader: globalHeader)
            resampler = try AVResampler(sampleRate: encode.sampleRate, channels: encode.channels, sampleFormat: settings.sampleFormat)
            fifo = try AVAudioFIFO(sampleFormat: settings.sampleFormat, channels: encode.channels, sampleRate: encode.sampleRate)
            decoded = try AVFrameBuffer()
            converted = try AVFrameBuffer()
            chunk = try AVFrameBuffer()
            packet = try AVPacketBuffer()
        } catch {
            throw ClipErrors.processing("opening the AAC encoder", error)
        }
    }

    func attach(to output: borrowing AVOutput, input: borrowing AVInput) throws(PrepareError) {
        do {
            outputIndex = try output.addStream(encoder: encoder, of: input)
        } catch {
            throw ClipErrors.processing("adding the audio stream", error)
        }
    }

    func ready(output: borrowing AVOutput) { outputTimeBase = output.timeBase(of: outputIndex) }

    /// The output sample position where the window ends (`Int64.max` for none).
    private var endPosition: Int64 {
        let end = timeline.end
        guard end.isFinite else { return .max }
        // Rounded down: a sample that ends past the window would run over the budget.
        return Self.position(end - (timeline.base ?? timeline.start) + 1e-9, sampleRate: sampleRate, rounding: .down)
    }

    /// `seconds` as a sample position, clamped to ±2⁶⁰: timestamps come from the file (a packet
    /// may claim 10¹⁸ s), and the margin keeps sums of positions and sample counts from overflowing.
    /// A position that far out is past any window, so the clamp changes no outcome.
    private static func position(_ seconds: Double, sampleRate: Int, rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64 {
        (seconds * Double(sampleRate)).clampedInteger(in: -(1 << 60)...(1 << 60), rounding: rounding)
    }

    func accept(_ input: borrowing AVPacketBuffer, output: borrowing AVOutput) throws(PrepareError) {
        guard !finished else { return }
        if let position = input.position {
            if position >= audioEnd { return }
            // The last frame with the tags behind it in one packet (a parser that does not know
            // them, FLAC's): the frame alone is decoded.
            if position + Int64(input.byteCount) > audioEnd { input.keepFirst(Int(audioEnd - position)) }
        }
        try ClipErrors.decoding(stream: inputIndex, codec: codecName, at: input.seconds(in: inputTimeBase), step: "audio") {
            while !finished, try decoder.send(input) == .outputPending {
                try drainDecoder(output: output)
            }
            if !finished { try drainDecoder(output: output) }
        }
    }

    func finish(output: borrowing AVOutput) throws(PrepareError) {
        try ClipErrors.decoding(stream: inputIndex, codec: codecName, at: lastTime, step: "audio") {
            if !finished && !decoderDone {
                _ = try decoder.sendEndOfStream()
                try drainDecoder(output: output)
            }
            if !finished {
                try resampler.flush(into: converted)
                try queue(output: output, startingAt: nil)
            }
        }
        finished = true
        try encode(output: output, final: true)
        do {
            _ = try encoder.sendEndOfStream()
        } catch {
            throw ClipErrors.processing("encoding audio", error)
        }
        try drainEncoder(output: output)
    }

    private func drainDecoder(output: borrowing AVOutput) throws {
        while !finished {
            switch try decoder.receive(into: decoded) {
            case .needsInput: return
            case .endOfStream:
                decoderDone = true
                return
            case .frame:
                defer { decoded.unref() }
                let time = decoded.timestamp.map(inputTimeBase.seconds)
                if let time { lastTime = time }
                // Damage inside the window is corruption; a frame that ends before the start (or
                // starts at the end) is cut away anyway.
                let span = Double(decoded.sampleCount) / Double(max(1, decoded.sampleRate))
                if decoded.hasDecodeErrors, time.map({ $0 + span > timeline.start && $0 < timeline.end }) ?? true {
                    throw ClipErrors.concealed(stream: inputIndex, codec: codecName, at: time)
                }
                try resampler.convert(decoded, into: converted)
                try queue(output: output, startingAt: time)
            }
        }
    }

    /// Puts the converted samples, which start at input time `time` (`nil` = right after the
    /// previous ones), into the FIFO, cut to the window, and encodes the full frames.
    private func queue(output: borrowing AVOutput, startingAt time: Double?) throws {
        let count = Int64(converted.sampleCount)
        guard count > 0 else { return }
        let base = timeline.base ?? timeline.start
        if !placed {
            // The first samples: place them on the clip's clock, dropping those before the start.
            let first = time ?? timeline.start
            let startPosition = Self.position(timeline.start - base, sampleRate: sampleRate)
            let at = Self.position(first - base, sampleRate: sampleRate)
            let skip = max(0, startPosition - at)
            guard skip < count else { return }
            try fifo.append(converted)
            fifo.discard(Int(skip))
            encodedPosition = at + skip
            placed = true
        } else {
            try fifo.append(converted)
        }
        if fifo.count > 0, encodedPosition + Int64(fifo.count) >= endPosition {
            // Keep only what ends at the window's end.
            let keep = max(0, endPosition - encodedPosition)
            let extra = Int64(fifo.count) - keep
            if extra > 0 { try dropTail(Int(extra)) }
            finished = true
        }
        try encode(output: output, final: false)
    }

    /// Removes the last `samples` samples of the FIFO (the part past the window's end).
    private func dropTail(_ samples: Int) throws(FFmpegError) {
        let keep = fifo.count - samples
        guard keep > 0 else {
            fifo.discard(fifo.count)
            return
        }
        let kept = try AVFrameBuffer()
        _ = try fifo.take(keep, into: kept)
        fifo.discard(fifo.count)
        try fifo.append(kept)
    }

    /// Sends full encoder frames from the FIFO (and, when `final`, the partial last one).
    private func encode(output: borrowing AVOutput, final: Bool) throws(PrepareError) {
        let frameSize = max(1, encoder.frameSize)
        while fifo.count >= frameSize || (final && fifo.count > 0) {
            let taken: Int
            do {
                taken = try fifo.take(frameSize, into: chunk)
            } catch {
                throw ClipErrors.processing("encoding audio", error)
            }
            chunk.prepareForEncoding(at: encodedPosition)
            encodedPosition += Int64(taken)
            while try ClipErrors.attempt("encoding audio", { () throws(FFmpegError) in try encoder.send(chunk) }) == .outputPending {
                try drainEncoder(output: output)
            }
            try drainEncoder(output: output)
        }
    }

    private func drainEncoder(output: borrowing AVOutput) throws(PrepareError) {
        while true {
            let step: EncodeStep
            do {
                step = try encoder.receive(into: packet)
            } catch {
                throw ClipErrors.processing("encoding audio", error)
            }
            guard step == .packet else { return }
            packet.retime(minus: 0, from: encoder.timeBase, to: outputTimeBase, stream: outputIndex)
            try mux(packet, output: output, timeBase: outputTimeBase, tally: &tally)
        }
    }
}
