/// Keeps a sound file's cover art: the attached picture is copied as it is into the output (an
/// M4A `covr` atom, an MP3 `APIC` frame), written once right after the header. The picture's
/// packets are never read from the input (the stream stays discarded), so the stage is finished
/// from the start.
final class CoverArtStage: ClipStage {
    let inputIndex: Int
    private(set) var outputIndex = -1
    let finished = true
    private(set) var tally = StreamTally()
    private var outputTimeBase = Rational(1, 90_000)
    /// Bounds the decoder that reads the picture's size: one thread (one picture), the plan's frame-size cap.
    private let decoding: DecoderBudget

    init(inputIndex: Int, decoding: DecoderBudget) {
        self.inputIndex = inputIndex
        self.decoding = .singleThread(maxPixels: decoding.maxPixels)
    }

    func attach(to output: borrowing AVOutput, input: borrowing AVInput) throws(PrepareError) {
        do {
            outputIndex = try output.addStream(copying: inputIndex, of: input)
            // A movie header read without stream info does not say the picture's size: decode it.
            if output.pictureSize(of: outputIndex).width <= 0 {
                let size = try Self.decodedSize(of: inputIndex, in: input, decoding: decoding)
                output.setPictureSize(of: outputIndex, width: size.width, height: size.height)
            }
        } catch {
            throw ClipErrors.processing("adding the cover art", error)
        }
    }

    /// Whether `stream` is a cover this stage can keep: an attached JPEG or PNG picture.
    static func isCover(_ stream: AVStreamInfo) -> Bool {
        stream.isAttachedPicture && (stream.codec == .jpeg || stream.codec == "mjpeg" || stream.codec == .png)
    }

    /// Why the cover art of the sound file at `path` (its first ``isCover(_:)`` stream) would be
    /// dropped (``failure(of:in:decoding:)``); `nil` when it decodes, when the file has none, or
    /// when libavformat cannot open the file (other checks judge that). Read by the deep check (a
    /// broken cover is recoverable damage) and before a passthrough (a broken cover is no reason
    /// to fail, nor to be handed back: the copy is rewritten without it).
    static func brokenCover(path: String, demuxer: String, decoding: DecoderBudget) -> String? {
        guard let input = try? AVInput(path: path, demuxer: demuxer),
              !input.streams.contains(where: { $0.kind == .video && !$0.isAttachedPicture }),
              let art = input.streams.first(where: isCover) else { return nil }
        return failure(of: art.index, in: input, decoding: decoding).map { "the cover art (stream \(art.index), \(art.codec)) does not decode: \($0)" }
    }

    /// Why the attached picture `index` of `input` cannot be kept (it does not decode, under the
    /// single-thread budget this stage decodes with); `nil` when it decodes. ``ClipSource`` asks
    /// before a plan takes the picture: a broken cover is dropped with a note, never fatal.
    static func failure(of index: Int, in input: borrowing AVInput, decoding: DecoderBudget) -> String? {
        do {
            _ = try decodedSize(of: index, in: input, decoding: .singleThread(maxPixels: decoding.maxPixels))
        } catch {
            return error.message
        }
        // FFmpeg's JPEG decoder conceals a picture cut short (it logs "overread" and returns the
        // frame): libvips, failing on warnings, is the judge of a JPEG's or PNG's bytes, as for
        // any picture here. FFmpeg has bounded its size above.
        let bytes = input.attachedPictureBytes(of: index)
        do {
            try VipsImage.load(.bytes(bytes), sequential: true, failOnWarnings: true).decodeAll()
        } catch {
            return error.description
        }
        return bytes.starts(with: [0xFF, 0xD8]) ? JPEGDataCheck.reason(bytes) : nil
    }

    private static func decodedSize(of index: Int, in input: borrowing AVInput, decoding: DecoderBudget) throws(FFmpegError) -> (width: Int, height: Int) {
        let decoder = try AVDecoder(input: input, streamIndex: index, options: decoding.decoderOptions)
        let packet = try AVPacketBuffer()
        let frame = try AVFrameBuffer()
        try input.attachedPicture(of: index, into: packet)
        _ = try decoder.send(packet)
        _ = try decoder.sendEndOfStream()
        guard try decoder.receive(into: frame) == .frame else {
            throw FFmpegError(operation: .decode, message: "the cover art decodes to no picture")
        }
        return (frame.width, frame.height)
    }

    func ready(output: borrowing AVOutput) { outputTimeBase = output.timeBase(of: outputIndex) }

    func begin(output: borrowing AVOutput, input: borrowing AVInput) throws(PrepareError) {
        let packet = try ClipErrors.attempt("copying the cover art") { () throws(FFmpegError) in try AVPacketBuffer() }
        do {
            try input.attachedPicture(of: inputIndex, into: packet)
        } catch {
            throw ClipErrors.processing("copying the cover art", error)
        }
        packet.place(at: 0, stream: outputIndex)
        try mux(packet, output: output, timeBase: outputTimeBase, tally: &tally)
    }

    func accept(_ packet: borrowing AVPacketBuffer, output: borrowing AVOutput) throws(PrepareError) {}

    func finish(output: borrowing AVOutput) throws(PrepareError) {}
}
