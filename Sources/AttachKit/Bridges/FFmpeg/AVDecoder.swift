import CFFmpeg

/// What asking a decoder for output gave (`avcodec_receive_frame`). Only real errors throw.
enum DecodeStep: Sendable, Equatable {
    /// A frame was written into the caller's ``AVFrameBuffer``.
    case frame
    /// The decoder needs more input before it can output a frame (`AVERROR(EAGAIN)`).
    case needsInput
    /// The decoder was drained after ``AVDecoder/sendEndOfStream()`` (`AVERROR_EOF`).
    case endOfStream
}

/// What feeding a decoder gave (`avcodec_send_packet`). Only real errors throw.
enum FeedStep: Sendable, Equatable {
    /// The decoder took the packet.
    case accepted
    /// The decoder must give out frames first (`AVERROR(EAGAIN)`): receive until
    /// ``DecodeStep/needsInput``, then send the same packet again.
    case outputPending
    /// The decoder was already told the stream ended (`AVERROR_EOF`); ``AVDecoder/flush()`` to reuse it.
    case endOfStream
}

/// An `AVCodecContext` opened to decode one stream of an ``AVInput``, with exactly one owner;
/// freed when the value goes away.
///
/// Usage: read packets with ``AVInput/read(into:)``, ``send(_:)`` those of this stream, then
/// ``receive(into:)`` until ``DecodeStep/needsInput``; at the end ``sendEndOfStream()`` and receive
/// until ``DecodeStep/endOfStream``. ``flush()`` resets the decoder (after a seek).
struct AVDecoder: ~Copyable {
    let context: UnsafeMutablePointer<AVCodecContext>
    /// The stream's index in its input.
    let streamIndex: Int
    /// The stream's time base: packet and frame timestamps count in these units.
    let timeBase: Rational

    /// Opens the decoder FFmpeg registers for the codec of stream `streamIndex` of `input`.
    /// - Parameter options: AVCodecContext/decoder private options (e.g. `["threads": "1",
    ///   "max_pixels": "100000000", "err_detect": "explode"]`). Default none (FFmpeg's defaults).
    ///   An option the decoder does not know is an error, never silently ignored.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/findDecoder`` (no such stream, no decoder for its codec),
    ///   ``FFmpegOperation/openDecoder`` (FFmpeg refused the parameters or an option value, or could
    ///   not allocate the context) or ``FFmpegOperation/options``
    ///   (an option name the decoder does not know).
    init(input: borrowing AVInput, streamIndex: Int, options: [String: String] = [:]) throws(FFmpegError) {
        try FFmpegLibrary.require()
        guard streamIndex >= 0, streamIndex < input.streamCount,
              let stream = input.context.pointee.streams[streamIndex] else {
            throw FFmpegError(operation: .findDecoder, message: "no stream \(streamIndex) in the input")
        }
        guard let parameters = stream.pointee.codecpar else {
            throw FFmpegError(operation: .findDecoder, message: "stream \(streamIndex) has no codec parameters")
        }
        let codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw FFmpegError(operation: .findDecoder, message: "FFmpeg has no decoder for \(codecName)")
        }
        guard let raw = avcodec_alloc_context3(codec) else {
            throw FFmpegError(operation: .openDecoder, code: ak_averror(ENOMEM))
        }
        // From here every failure frees the context before throwing.
        func fail(_ error: FFmpegError) -> FFmpegError {
            var doomed: UnsafeMutablePointer<AVCodecContext>? = raw
            avcodec_free_context(&doomed)
            return error
        }
        let copied = avcodec_parameters_to_context(raw, parameters)
        guard copied >= 0 else { throw fail(FFmpegError(operation: .openDecoder, code: copied)) }
        raw.pointee.pkt_timebase = stream.pointee.time_base

        let (opened, unknown) = FFmpegOptions.passing([:], options) { dictionary in avcodec_open2(raw, codec, &dictionary) }
        guard opened >= 0 else { throw fail(FFmpegError(operation: .openDecoder, code: opened)) }
        guard unknown.isEmpty else {
            throw fail(FFmpegError(operation: .options, message: "the \(codecName) decoder does not know option(s) \(unknown.joined(separator: ", "))"))
        }
        context = raw
        self.streamIndex = streamIndex
        timeBase = Rational(stream.pointee.time_base)
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&doomed)
    }

    /// Feeds one packet (the caller keeps and later unrefs it).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/decode`` when the data is invalid or decoding fails.
    func send(_ packet: borrowing AVPacketBuffer) throws(FFmpegError) -> FeedStep {
        try feedResult(avcodec_send_packet(context, packet.pointer))
    }

    /// Tells the decoder no more packets follow, so it gives out the frames it still holds.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/decode``.
    func sendEndOfStream() throws(FFmpegError) -> FeedStep {
        try feedResult(avcodec_send_packet(context, nil))
    }

    /// Takes the next decoded frame into `frame` (replacing what it held).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/decode`` when decoding fails.
    func receive(into frame: borrowing AVFrameBuffer) throws(FFmpegError) -> DecodeStep {
        let status = avcodec_receive_frame(context, frame.pointer)
        if status >= 0 { return .frame }
        if status == FFmpegError.tryAgain { return .needsInput }
        if status == FFmpegError.endOfFile { return .endOfStream }
        throw FFmpegError(operation: .decode, code: status)
    }

    /// Drops buffered input and output and makes the decoder ready for new packets (after a seek,
    /// or after the end of stream).
    func flush() {
        avcodec_flush_buffers(context)
    }

    private func feedResult(_ status: Int32) throws(FFmpegError) -> FeedStep {
        if status >= 0 { return .accepted }
        if status == FFmpegError.tryAgain { return .outputPending }
        if status == FFmpegError.endOfFile { return .endOfStream }
        throw FFmpegError(operation: .decode, code: status)
    }

}

/// One `AVPacket` with exactly one owner; freed (with its data) when the value goes away.
struct AVPacketBuffer: ~Copyable {
    let pointer: UnsafeMutablePointer<AVPacket>

    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/packetAlloc`` when FFmpeg cannot allocate it.
    init() throws(FFmpegError) {
        try FFmpegLibrary.require()
        guard let pointer = av_packet_alloc() else { throw FFmpegError(operation: .packetAlloc, code: ak_averror(ENOMEM)) }
        self.pointer = pointer
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&doomed)
    }

    /// Releases the data the packet references, keeping the packet for the next read.
    func unref() { av_packet_unref(pointer) }

    var streamIndex: Int { Int(pointer.pointee.stream_index) }
    /// Byte position in the input, `nil` when unknown.
    var position: Int64? { pointer.pointee.pos >= 0 ? pointer.pointee.pos : nil }
    /// Presentation time (or decoding time when no presentation time is set) in stream time-base
    /// units, `nil` when unknown.
    var timestamp: Int64? {
        let pts = pointer.pointee.pts, dts = pointer.pointee.dts
        if pts != ak_nopts_value() { return pts }
        return dts != ak_nopts_value() ? dts : nil
    }
    /// Presentation time as the container gives it (no decoding time in its place), `nil` when unknown.
    var presentationTime: Int64? { pointer.pointee.pts != ak_nopts_value() ? pointer.pointee.pts : nil }
    /// Duration in stream time-base units (0 when unknown).
    var duration: Int64 { max(0, pointer.pointee.duration) }
    /// Bytes of data the packet carries.
    var byteCount: Int { Int(pointer.pointee.size) }

    /// Shortens the packet to its first `count` bytes (no change when it is not longer).
    func keepFirst(_ count: Int) {
        if count >= 0, count < byteCount { pointer.pointee.size = Int32(count) }
    }

    /// The packet's first `count` bytes of data (fewer when it is shorter).
    func leadingBytes(_ count: Int) -> [UInt8] {
        guard let data = pointer.pointee.data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: min(count, byteCount)))
    }

    /// Runs `body` over the packet's data (empty when it has none), without copying it.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(start: pointer.pointee.data, count: pointer.pointee.data == nil ? 0 : byteCount))
    }

    /// Sets the duration, in the packet's time base, when the packet carries none (0 or less).
    func fillDuration(_ duration: Int64) {
        if pointer.pointee.duration <= 0 { pointer.pointee.duration = duration }
    }

    /// Gives a packet that carries no time at all (the second and later frames of a Matroska block
    /// that laces several) `timestamp`, as presentation and decoding time.
    func fillTimestamp(_ timestamp: Int64) {
        guard pointer.pointee.pts == ak_nopts_value(), pointer.pointee.dts == ak_nopts_value() else { return }
        pointer.pointee.pts = timestamp
        pointer.pointee.dts = timestamp
    }

    /// Gives a packet that has a decoding time only (AVI) that time as its presentation time too
    /// (MP4 needs one).
    func fillPresentationTime() {
        if pointer.pointee.pts == ak_nopts_value() { pointer.pointee.pts = pointer.pointee.dts }
    }

    /// Places a packet written once (cover art) at `timestamp`, presentation and decoding, on
    /// output stream `stream`.
    func place(at timestamp: Int64, stream: Int) {
        pointer.pointee.pts = timestamp
        pointer.pointee.dts = timestamp
        pointer.pointee.stream_index = Int32(stream)
        pointer.pointee.pos = -1
    }
}

/// One `AVFrame` with exactly one owner; freed (with its buffers) when the value goes away.
struct AVFrameBuffer: ~Copyable {
    let pointer: UnsafeMutablePointer<AVFrame>

    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/frameAlloc`` when FFmpeg cannot allocate it.
    init() throws(FFmpegError) {
        try FFmpegLibrary.require()
        guard let pointer = av_frame_alloc() else { throw FFmpegError(operation: .frameAlloc, code: ak_averror(ENOMEM)) }
        self.pointer = pointer
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&doomed)
    }

    /// Releases the buffers the frame references.
    func unref() { av_frame_unref(pointer) }

    /// Takes over what `other` references (its buffers and properties), releasing what this frame
    /// held; `other` is left blank (`av_frame_move_ref`).
    func take(from other: borrowing AVFrameBuffer) {
        av_frame_unref(pointer)
        av_frame_move_ref(pointer, other.pointer)
    }

    /// Stamps the frame for an encoder: presentation time `timestamp` in the encoder's time base,
    /// and no picture type, so the encoder chooses each frame's type itself (a decoded frame's
    /// type would otherwise force keyframes where the source had them).
    func prepareForEncoding(at timestamp: Int64) {
        pointer.pointee.pts = timestamp
        pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
    }

    /// Best-effort presentation time in the stream's time base, `nil` when unknown.
    var timestamp: Int64? {
        let value = pointer.pointee.best_effort_timestamp
        return value != ak_nopts_value() ? value : nil
    }
    /// Presentation time of the packet the picture was decoded from (libavcodec copies it over
    /// as is), `nil` when that packet had none. Unlike ``timestamp``, never a guess.
    var presentationTime: Int64? { pointer.pointee.pts != ak_nopts_value() ? pointer.pointee.pts : nil }
    /// Duration of the packet the frame came from, in the stream's time base (0 when unknown).
    var packetDuration: Int64 { max(0, pointer.pointee.pkt_duration) }
    /// Audio samples per channel in the frame (0 for video).
    var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    /// Audio sample rate in Hz (0 for video).
    var sampleRate: Int { Int(pointer.pointee.sample_rate) }

    /// Picture size (0 × 0 for audio).
    var width: Int { Int(pointer.pointee.width) }
    var height: Int { Int(pointer.pointee.height) }

    /// Appends the first plane's `rows` rows of `rowBytes` bytes to `pixels`, without the line
    /// padding (a packed picture: RGB, RGBA). Nothing when the frame holds no picture.
    func appendPackedRows(to pixels: inout [UInt8], rowBytes: Int, rows: Int) {
        guard let data = pointer.pointee.data.0 else { return }
        let stride = Int(pointer.pointee.linesize.0)
        pixels.reserveCapacity(pixels.count + rowBytes * rows)
        for row in 0..<rows {
            pixels.append(contentsOf: UnsafeBufferPointer(start: data + row * stride, count: rowBytes))
        }
    }

    /// The pixel format of a decoded picture as FFmpeg names it (`yuv420p10le`); `nil` for sound
    /// or an unknown format.
    var pixelFormatName: String? {
        guard pointer.pointee.width > 0, pointer.pointee.format >= 0,
              let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: pointer.pointee.format)) else { return nil }
        return String(cString: name)
    }

    /// Whether the decoder flagged the frame as damaged (`AV_FRAME_FLAG_CORRUPT`) or concealed
    /// errors in it (`decode_error_flags`).
    var hasDecodeErrors: Bool {
        (pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT) != 0 || pointer.pointee.decode_error_flags != 0
    }
}

extension AVInput {
    /// Reads the next packet of any stream into `packet` (which must be unreffed before the next read).
    /// - Returns: `false` at the end of the input.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/readPacket`` when demuxing fails.
    func read(into packet: borrowing AVPacketBuffer) throws(FFmpegError) -> Bool {
        let status = av_read_frame(context, packet.pointer)
        if status >= 0 { return true }
        if status == FFmpegError.endOfFile { return false }
        throw FFmpegError(operation: .readPacket, code: status)
    }

    /// Makes the demuxer skip every stream but `kept` (`AVDISCARD_ALL`), so reading costs only
    /// what those streams need.
    func discardAllStreams(except kept: Set<Int>) {
        for index in 0..<streamCount {
            context.pointee.streams[index]?.pointee.discard = kept.contains(index) ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }
}
