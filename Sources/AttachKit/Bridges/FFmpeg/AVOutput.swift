import CFFmpeg

/// A libavformat muxer writing one file, with exactly one owner: the output context, its streams
/// and its I/O context are freed when the value goes away, whether or not the file was finished.
///
/// Usage: ``addStream(copying:of:)`` or ``addStream(encoder:)`` for each stream, then
/// ``writeHeader(options:)``, ``write(_:)`` every packet (timestamps in the output stream's
/// ``timeBase(of:)``), and ``finish()``. A file that was not finished is incomplete: the caller
/// deletes it (``AtomicOutput`` does).
struct AVOutput: ~Copyable {
    let context: UnsafeMutablePointer<AVFormatContext>
    private var headerWritten = false

    /// Creates `path` (truncating it) for the muxer `muxer`, through the `file` protocol only.
    /// - Parameter muxer: libavformat's muxer name: `"mp4"`, `"ipod"` (MPEG-4 audio, `M4A ` brand), `"mp3"`.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/openMuxer`` (no such muxer) or ``FFmpegOperation/openOutput`` (cannot create the file).
    init(path: String, muxer: String) throws(FFmpegError) {
        try FFmpegLibrary.require()
        guard let format = av_guess_format(muxer, nil, nil), String(cString: format.pointee.name) == muxer else {
            throw FFmpegError(operation: .openMuxer, message: "libavformat has no muxer named \(muxer)")
        }
        var raw: UnsafeMutablePointer<AVFormatContext>?
        // The `file:` prefix keeps a path containing ':' from being read as another protocol.
        let url = "file:" + path
        let allocated = avformat_alloc_output_context2(&raw, format, nil, url)
        guard allocated >= 0, let raw else { throw FFmpegError(operation: .openMuxer, code: allocated) }
        // Later reopenings (the faststart rewrite reads the file back) are held to `file` as well.
        raw.pointee.protocol_whitelist = av_strdup("file")
        let (opened, leftover) = FFmpegOptions.passing(["protocol_whitelist": "file"]) { options in
            avio_open2(&raw.pointee.pb, url, AVIO_FLAG_WRITE, nil, &options)
        }
        guard opened >= 0 else {
            avformat_free_context(raw)
            throw FFmpegError(operation: .openOutput, code: opened)
        }
        guard leftover.isEmpty else {
            avio_closep(&raw.pointee.pb)
            avformat_free_context(raw)
            throw FFmpegError(operation: .options, message: "the file protocol does not know option(s) \(leftover.joined(separator: ", "))")
        }
        context = raw
    }

    deinit {
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }

    /// Whether the muxer wants codec headers out of band (MP4 does): encoders then need
    /// `AV_CODEC_FLAG_GLOBAL_HEADER`.
    var wantsGlobalHeader: Bool { (context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

    /// Adds a stream that will carry `input`'s stream `index` packets unchanged (stream copy).
    /// The display matrix (rotation) and the disposition travel with it.
    /// - Parameter tag: the FourCC the output's sample entry carries (`"hvc1"`); `nil` = the one the
    ///   muxer's format uses for the codec (the input's tag is cleared). Default `nil`.
    /// - Returns: the output stream's index.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/addStream``.
    func addStream(copying index: Int, of input: borrowing AVInput, tag: String? = nil) throws(FFmpegError) -> Int {
        guard index >= 0, index < input.streamCount, let source = input.context.pointee.streams[index] else {
            throw FFmpegError(operation: .addStream, message: "no stream \(index) in the input")
        }
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError(operation: .addStream, code: ak_averror(ENOMEM))
        }
        let copied = avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar)
        guard copied >= 0 else { throw FFmpegError(operation: .addStream, code: copied) }
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_tag = 0
        if let tag { parameters.pointee.codec_tag = try Self.codecTag(tag) }
        stream.pointee.time_base = source.pointee.time_base
        stream.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        // The container's pixel aspect (an MP4 `pasp`) overrides the bitstream's, as players take
        // it: the MP4 muxer writes `pasp` from the codec parameters, so they carry it too (a 4:3
        // picture whose H.264 VUI said 4:3 pixels, overridden by a `pasp` of 1:1, became 16:9).
        if source.pointee.sample_aspect_ratio.num > 0, source.pointee.sample_aspect_ratio.den > 0 {
            parameters.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        }
        stream.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        stream.pointee.disposition = source.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC
        try copyDisplayMatrix(from: source, to: stream)
        return Int(stream.pointee.index)
    }

    /// Adds a stream fed by `encoder` (codec parameters taken from the opened encoder).
    /// - Parameter rotationFrom: the input stream whose display matrix the new stream keeps, so the
    ///   picture is still shown upright without rotating pixels; `nil` for none.
    /// - Returns: the output stream's index.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/addStream``.
    func addStream(encoder: borrowing AVEncoder, rotationFrom index: Int? = nil,
                   of input: borrowing AVInput) throws(FFmpegError) -> Int {
        let added = try addStream(encoder: encoder)
        if let index, index >= 0, index < input.streamCount, let source = input.context.pointee.streams[index],
           let stream = context.pointee.streams[added] {
            try copyDisplayMatrix(from: source, to: stream)
        }
        return added
    }

    /// Adds a stream for `encoder`'s packets, made from nothing read (a synthetic picture).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/addStream``.
    func addStream(encoder: borrowing AVEncoder) throws(FFmpegError) -> Int {
        guard let stream = avformat_new_stream(context, nil) else {
            throw FFmpegError(operation: .addStream, code: ak_averror(ENOMEM))
        }
        let copied = avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context)
        guard copied >= 0 else { throw FFmpegError(operation: .addStream, code: copied) }
        stream.pointee.time_base = encoder.context.pointee.time_base
        stream.pointee.sample_aspect_ratio = encoder.context.pointee.sample_aspect_ratio
        stream.pointee.avg_frame_rate = encoder.context.pointee.framerate
        return Int(stream.pointee.index)
    }

    /// Writes the file header.
    /// - Parameter options: muxer private options (e.g. `["movflags": "+faststart"]`). An option
    ///   the muxer does not know is an error, never silently ignored.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/writeHeader`` or ``FFmpegOperation/options``.
    mutating func writeHeader(options: [String: String] = [:]) throws(FFmpegError) {
        let (status, unknown) = FFmpegOptions.passing([:], options) { dictionary in avformat_write_header(context, &dictionary) }
        guard status >= 0 else { throw FFmpegError(operation: .writeHeader, code: status) }
        headerWritten = true
        guard unknown.isEmpty else {
            throw FFmpegError(operation: .options, message: "the \(muxerName) muxer does not know option(s) \(unknown.joined(separator: ", "))")
        }
    }

    /// The time base of output stream `index`, valid after ``writeHeader(options:)`` (the muxer
    /// may have changed the one asked for).
    func timeBase(of index: Int) -> Rational { Rational(context.pointee.streams[index]!.pointee.time_base) }

    /// Hands `packet` (timestamps in ``timeBase(of:)`` of its stream) to the interleaving muxer,
    /// which takes its data: the packet is blank afterwards.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/writePacket`` (I/O error, disk full, timestamps out of order).
    func write(_ packet: borrowing AVPacketBuffer) throws(FFmpegError) {
        let status = av_interleaved_write_frame(context, packet.pointer)
        guard status >= 0 else { throw FFmpegError(operation: .writePacket, code: status) }
    }

    /// Flushes interleaved packets and writes the trailer (for MP4 with faststart: moves the index
    /// before the media data), then closes the file.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/writeTrailer`` or ``FFmpegOperation/closeOutput``.
    mutating func finish() throws(FFmpegError) {
        guard headerWritten else { throw FFmpegError(operation: .writeTrailer, message: "the header was never written") }
        let status = av_write_trailer(context)
        guard status >= 0 else { throw FFmpegError(operation: .writeTrailer, code: status) }
        let closed = avio_closep(&context.pointee.pb)
        guard closed >= 0 else { throw FFmpegError(operation: .closeOutput, code: closed) }
    }

    /// `fourCC` as FFmpeg stores it in `codec_tag` (`MKTAG`).
    private static func codecTag(_ fourCC: String) throws(FFmpegError) -> UInt32 {
        let bytes = Array(fourCC.utf8)
        guard bytes.count == 4 else { throw FFmpegError(operation: .addStream, message: "codec tag \(fourCC) is not four bytes") }
        return ak_fourcc(CChar(bitPattern: bytes[0]), CChar(bitPattern: bytes[1]), CChar(bitPattern: bytes[2]), CChar(bitPattern: bytes[3]))
    }

    var muxerName: String { String(cString: context.pointee.oformat.pointee.name) }

    private func copyDisplayMatrix(from source: UnsafeMutablePointer<AVStream>,
                                   to stream: UnsafeMutablePointer<AVStream>) throws(FFmpegError) {
        var size: Int = 0
        guard let matrix = av_stream_get_side_data(source, AV_PKT_DATA_DISPLAYMATRIX, &size), size > 0 else { return }
        guard let target = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, size) else {
            throw FFmpegError(operation: .addStream, code: ak_averror(ENOMEM))
        }
        target.update(from: matrix, count: size)
    }

}

extension AVOutput {
    /// Sets the picture size of output stream `index` (a stream copied from a header that did not
    /// say it, such as MP4 cover art read without stream info). Before the header is written.
    func setPictureSize(of index: Int, width: Int, height: Int) {
        guard let parameters = context.pointee.streams[index]?.pointee.codecpar else { return }
        parameters.pointee.width = Int32(width)
        parameters.pointee.height = Int32(height)
    }

    /// The picture size output stream `index` declares (0 × 0 when unknown).
    func pictureSize(of index: Int) -> (width: Int, height: Int) {
        guard let parameters = context.pointee.streams[index]?.pointee.codecpar else { return (0, 0) }
        return (Int(parameters.pointee.width), Int(parameters.pointee.height))
    }
}
