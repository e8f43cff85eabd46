import CFFmpeg

/// What asking an encoder for output gave (`avcodec_receive_packet`). Only real errors throw.
enum EncodeStep: Sendable, Equatable {
    /// A packet was written into the caller's ``AVPacketBuffer``.
    case packet
    /// The encoder needs more frames before it can output a packet (`AVERROR(EAGAIN)`).
    case needsInput
    /// The encoder was drained after ``AVEncoder/sendEndOfStream()`` (`AVERROR_EOF`).
    case endOfStream
}

/// The audio sample layouts AttachKit encodes from.
enum SampleFormat: Sendable, Equatable {
    /// 32-bit float, one plane per channel (`AV_SAMPLE_FMT_FLTP`).
    case floatPlanar

    var av: AVSampleFormat {
        switch self {
        case .floatPlanar: return AV_SAMPLE_FMT_FLTP
        }
    }
}

/// The parameters of a video encoder (what to make, not why: the choices live in the pipeline).
struct VideoEncoderSettings: Sendable {
    /// libavcodec encoder name. Default `"libx264"`.
    var encoder = "libx264"
    var width: Int
    var height: Int
    /// Default ``PictureFormat/yuv420p`` (8-bit 4:2:0: what every H.264 decoder in iOS plays).
    var pixelFormat = PictureFormat.yuv420p
    /// Timestamps of the frames sent count in this unit.
    var timeBase: Rational
    /// Nominal frame rate (rate control and the stream header).
    var frameRate: Rational
    /// Average bits per second (one-pass ABR).
    var bitRate: Int
    /// VBV cap in bits per second and buffer in bits; `nil` = none.
    var maxRate: Int?
    var bufferSize: Int?
    /// Keyframe interval in frames; `nil` = the encoder's default.
    var gopSize: Int?
    /// Encoder private options (x264: `preset`, `profile`...). Unknown ones are errors.
    var options: [String: String] = [:]
    /// Colour description written to the stream (matrix, primaries, transfer and range). Default
    /// unspecified, limited range. The frames sent must be in it (``AVScaler`` writes them so).
    var colour = VideoColour.unspecified
}

/// The parameters of an audio encoder.
struct AudioEncoderSettings: Sendable, Equatable {
    /// libavcodec encoder name. Default `"aac"` (FFmpeg's native AAC-LC encoder).
    var encoder = "aac"
    var sampleRate: Int
    var channels: Int
    /// Default ``SampleFormat/floatPlanar`` (what the native AAC encoder takes).
    var sampleFormat = SampleFormat.floatPlanar
    /// Bits per second for all channels.
    var bitRate: Int
    /// Encoder private options. Unknown ones are errors.
    var options: [String: String] = [:]
}

/// An `AVCodecContext` opened to encode one stream, with exactly one owner; freed when the value
/// goes away.
///
/// Usage: ``send(_:)`` frames (timestamps in ``timeBase``), then ``receive(into:)`` until
/// ``EncodeStep/needsInput``; at the end ``sendEndOfStream()`` and receive until
/// ``EncodeStep/endOfStream``.
struct AVEncoder: ~Copyable {
    let context: UnsafeMutablePointer<AVCodecContext>

    /// Opens a video encoder.
    /// - Parameter globalHeader: put codec headers in extradata (the muxer wants it: MP4).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/findEncoder`` (FFmpeg has no such encoder), ``FFmpegOperation/openEncoder``
    ///   (it refused the parameters) or ``FFmpegOperation/options`` (an option it does not know).
    init(video settings: VideoEncoderSettings, globalHeader: Bool) throws(FFmpegError) {
        let raw = try Self.allocate(settings.encoder)
        raw.pointee.width = Int32(settings.width)
        raw.pointee.height = Int32(settings.height)
        raw.pointee.pix_fmt = settings.pixelFormat.av
        raw.pointee.time_base = settings.timeBase.av
        raw.pointee.framerate = settings.frameRate.av
        raw.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        raw.pointee.bit_rate = Int64(settings.bitRate)
        if let maxRate = settings.maxRate { raw.pointee.rc_max_rate = Int64(maxRate) }
        if let bufferSize = settings.bufferSize { raw.pointee.rc_buffer_size = Int32(clamping: bufferSize) }
        if let gop = settings.gopSize { raw.pointee.gop_size = Int32(gop) }
        raw.pointee.color_range = settings.colour.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        raw.pointee.colorspace = AVColorSpace(rawValue: UInt32(clamping: settings.colour.matrix))
        raw.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(clamping: settings.colour.primaries))
        raw.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(clamping: settings.colour.transfer))
        if globalHeader { raw.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        var options = settings.options
        // Byte-identical encodes: x264's AVX-512 code reads memory it never wrote (X264CPU).
        if settings.encoder == "libx264", options["x264-params"] == nil, let cpu = X264CPU.parameters { options["x264-params"] = cpu }
        context = try Self.open(raw, options: options)
    }

    /// Opens an audio encoder (default channel order for `channels`).
    /// - Throws: as ``init(video:globalHeader:)``.
    init(audio settings: AudioEncoderSettings, globalHeader: Bool) throws(FFmpegError) {
        let raw = try Self.allocate(settings.encoder)
        raw.pointee.sample_rate = Int32(settings.sampleRate)
        raw.pointee.sample_fmt = settings.sampleFormat.av
        av_channel_layout_uninit(&raw.pointee.ch_layout)
        av_channel_layout_default(&raw.pointee.ch_layout, Int32(settings.channels))
        raw.pointee.bit_rate = Int64(settings.bitRate)
        raw.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        if globalHeader { raw.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        context = try Self.open(raw, options: settings.options)
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&doomed)
    }

    var timeBase: Rational { Rational(context.pointee.time_base) }
    /// Samples per channel each audio frame must carry (0 = any).
    var frameSize: Int { Int(context.pointee.frame_size) }

    /// Feeds one frame (the encoder takes its own reference; the caller may reuse the buffer).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/encode``.
    func send(_ frame: borrowing AVFrameBuffer) throws(FFmpegError) -> FeedStep {
        try feedResult(avcodec_send_frame(context, frame.pointer))
    }

    /// Tells the encoder no more frames follow, so it gives out the packets it still holds.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/encode``.
    func sendEndOfStream() throws(FFmpegError) -> FeedStep {
        try feedResult(avcodec_send_frame(context, nil))
    }

    /// Takes the next packet into `packet` (timestamps in ``timeBase``).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/encode``.
    func receive(into packet: borrowing AVPacketBuffer) throws(FFmpegError) -> EncodeStep {
        let status = avcodec_receive_packet(context, packet.pointer)
        if status >= 0 { return .packet }
        if status == FFmpegError.tryAgain { return .needsInput }
        if status == FFmpegError.endOfFile { return .endOfStream }
        throw FFmpegError(operation: .encode, code: status)
    }

    private func feedResult(_ status: Int32) throws(FFmpegError) -> FeedStep {
        if status >= 0 { return .accepted }
        if status == FFmpegError.tryAgain { return .outputPending }
        if status == FFmpegError.endOfFile { return .endOfStream }
        throw FFmpegError(operation: .encode, code: status)
    }

    private static func allocate(_ name: String) throws(FFmpegError) -> UnsafeMutablePointer<AVCodecContext> {
        try FFmpegLibrary.require()
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw FFmpegError(operation: .findEncoder, message: "FFmpeg has no encoder named \(name)")
        }
        guard let raw = avcodec_alloc_context3(codec) else { throw FFmpegError(operation: .openEncoder, code: ak_averror(ENOMEM)) }
        return raw
    }

    /// Opens `raw` with `options`; frees it before throwing.
    private static func open(_ raw: UnsafeMutablePointer<AVCodecContext>,
                             options: [String: String]) throws(FFmpegError) -> UnsafeMutablePointer<AVCodecContext> {
        let name = String(cString: raw.pointee.codec.pointee.name)
        let (opened, unknown) = FFmpegOptions.passing([:], options) { dictionary in avcodec_open2(raw, raw.pointee.codec, &dictionary) }
        func fail(_ error: FFmpegError) -> FFmpegError {
            var doomed: UnsafeMutablePointer<AVCodecContext>? = raw
            avcodec_free_context(&doomed)
            return error
        }
        guard opened >= 0 else { throw fail(FFmpegError(operation: .openEncoder, code: opened)) }
        guard unknown.isEmpty else {
            throw fail(FFmpegError(operation: .options, message: "the \(name) encoder does not know option(s) \(unknown.joined(separator: ", "))"))
        }
        return raw
    }
}
