import CFFmpeg

/// Limits applied to every file libavformat opens: only the `file` protocol, and a cap on how much
/// is read and how much media time is analysed before the header is considered known.
struct AVInputLimits: Sendable {
    /// Bytes libavformat may read to identify the format and streams (`probesize`).
    var probeBytes: Int
    /// Media time libavformat may analyse for stream parameters (`analyzeduration`).
    var analyzeMicroseconds: Int

    /// ``ProbeLimits``' defaults (5 MB, 5 s), their one source.
    static let standard = ProbeLimits().avInput
}

/// An opened libavformat input with exactly one owner; closed when the value goes away.
struct AVInput: ~Copyable {
    let context: UnsafeMutablePointer<AVFormatContext>

    /// Opens `path` with the `file` protocol only, reads the header and the stream parameters.
    /// - Parameters:
    ///   - demuxer: libavformat's demuxer to use (e.g. `"mov"`); AttachKit always names one,
    ///     chosen from the bytes, so the file name can never steer format detection.
    ///   - readStreamInfo: also run `avformat_find_stream_info`, which reads and decodes the first
    ///     packets to learn what the header does not say (pixel and sample formats, reorder delay;
    ///     for headerless formats such as MPEG-TS, the streams themselves). Default `true`. A movie
    ///     header (`mov`) already gives codecs, sizes, rates, durations and the sample index, so
    ///     stream copies, seeks and index walks skip it (it costs ~75 ms for 1080p H.264).
    ///   - demuxerOptions: the demuxer's own options (`["ignore_editlist": "1"]` for `mov`); one it
    ///     does not know is an error. Default none.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/openInput`` (not readable, not a known format), ``FFmpegOperation/options``
    ///   (a limit was not accepted) or ``FFmpegOperation/streamInfo`` (no usable stream parameters).
    init(path: String, demuxer: String, limits: AVInputLimits = .standard, readStreamInfo: Bool = true,
         demuxerOptions: [String: String] = [:]) throws(FFmpegError) {
        try FFmpegLibrary.require()
        guard let format = av_find_input_format(demuxer) else {
            throw FFmpegError(operation: .openInput, message: "libavformat has no demuxer named \(demuxer)")
        }
        var raw: UnsafeMutablePointer<AVFormatContext>?
        // The `file:` prefix keeps a path containing ':' from being read as another protocol.
        let (status, leftover) = FFmpegOptions.passing(["protocol_whitelist": "file", "probesize": String(limits.probeBytes),
                                                        "analyzeduration": String(limits.analyzeMicroseconds)], demuxerOptions) { options in
            avformat_open_input(&raw, "file:" + path, format, &options)
        }
        guard status >= 0, let raw else { throw FFmpegError(operation: .openInput, code: status) }
        guard leftover.isEmpty else {
            var doomed: UnsafeMutablePointer<AVFormatContext>? = raw
            avformat_close_input(&doomed)
            throw FFmpegError(operation: .options, message: "libavformat did not accept input option(s) \(leftover.joined(separator: ", "))")
        }
        let infoStatus = readStreamInfo ? avformat_find_stream_info(raw, nil) : 0
        guard infoStatus >= 0 else {
            var doomed: UnsafeMutablePointer<AVFormatContext>? = raw
            avformat_close_input(&doomed)
            throw FFmpegError(operation: .streamInfo, code: infoStatus)
        }
        context = raw
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&doomed)
    }

    /// libavformat's short name for the demuxer (e.g. `"mov,mp4,m4a,3gp,3g2,mj2"`, `"matroska,webm"`).
    var formatName: String { String(cString: context.pointee.iformat.pointee.name) }

    /// Container duration in seconds, `nil` when unknown.
    var duration: Double? {
        let d = context.pointee.duration
        guard d != ak_nopts_value(), d > 0 else { return nil }
        return Double(d) / Double(ak_time_base())
    }

    /// When the container's timeline starts (`AVFormatContext.start_time`), in seconds; `nil` when unknown.
    var startTime: Double? {
        let t = context.pointee.start_time
        guard t != ak_nopts_value() else { return nil }
        return Double(t) / Double(ak_time_base())
    }

    /// Whether libavformat derived ``duration`` from the bitrate rather than from timestamps or a header.
    var durationIsEstimate: Bool { context.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE }

    /// Overall bitrate in bits per second, `nil` when unknown.
    var bitRate: Int? { context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil }

    var streamCount: Int { Int(context.pointee.nb_streams) }

    /// A description of stream `index` (0 ..< ``streamCount``).
    func stream(_ index: Int) -> AVStreamInfo {
        AVStreamInfo(context.pointee.streams[index]!, index: index)
    }

    var streams: [AVStreamInfo] {
        var all: [AVStreamInfo] = []
        for index in 0..<streamCount { all.append(stream(index)) }
        return all
    }
}

/// The header facts of one stream, copied out of FFmpeg's structures.
struct AVStreamInfo: Sendable {
    enum Kind: Sendable { case video, audio, subtitle, data, attachment, other }

    let index: Int
    /// The container's own identifier of the stream (`AVStream.id`): a transport stream's PID, a
    /// Matroska track number, an MP4 track ID.
    let identifier: Int
    let kind: Kind
    let codec: Codec
    let width: Int
    let height: Int
    let pixelFormat: String?
    let bitRate: Int?
    let sampleRate: Int
    let channels: Int
    let bitDepth: Int?
    /// The codec's profile as libavcodec numbers it (`AVCodecParameters.profile`, `FF_PROFILE_*`);
    /// `nil` when unknown.
    let profile: Int?
    /// The codec's level (`AVCodecParameters.level`: H.264 `level_idc`, HEVC `general_level_idc`); `nil` when unknown.
    let level: Int?
    /// Chroma subsampling of a picture's pixel format (`"4:2:0"`, `"4:2:2"`, `"4:4:4"`, `"4:0:0"`...);
    /// `nil` for RGB formats and sound.
    let chroma: String?
    /// The sound's channel mask (`AV_CH_*` bits) when the layout is in native order; `nil` otherwise.
    let channelMask: UInt64?
    /// Cover art stored as a one-picture stream.
    let isAttachedPicture: Bool
    let frameCount: Int?
    let frameRate: Double?
    /// Clockwise display rotation in degrees (0, 90, 180, 270) from the display matrix.
    let rotation: Int
    /// Start and duration in seconds, when known.
    let startTime: Double?
    let duration: Double?
    /// Frames a video's decoder holds back to reorder them (`AVCodecParameters.video_delay`, B-frames);
    /// 0 when none, or not known without reading packets.
    let reorderDelay: Int

    init(_ stream: UnsafeMutablePointer<AVStream>, index: Int) {
        let parameters = stream.pointee.codecpar.pointee
        self.index = index
        identifier = Int(stream.pointee.id)
        reorderDelay = Int(max(0, parameters.video_delay))
        switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .other
        }
        codec = Codec(String(cString: avcodec_get_name(parameters.codec_id)))
        width = Int(parameters.width)
        height = Int(parameters.height)
        if kind == .video, parameters.format >= 0, let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: parameters.format)) {
            pixelFormat = String(cString: name)
        } else {
            pixelFormat = nil
        }
        bitRate = parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil
        sampleRate = Int(parameters.sample_rate)
        channels = Int(parameters.ch_layout.nb_channels)
        let raw = Int(parameters.bits_per_raw_sample)
        let coded = Int(parameters.bits_per_coded_sample)
        let descriptor = kind == .video && parameters.format >= 0 ? av_pix_fmt_desc_get(AVPixelFormat(rawValue: parameters.format)) : nil
        let pictureDepth = descriptor.map { Int($0.pointee.comp.0.depth) }
        bitDepth = raw > 0 ? raw : (kind == .audio && coded > 0 ? coded : pictureDepth)
        profile = parameters.profile != FF_PROFILE_UNKNOWN ? Int(parameters.profile) : nil
        level = parameters.level != FF_LEVEL_UNKNOWN && parameters.level > 0 ? Int(parameters.level) : nil
        chroma = descriptor.flatMap { Self.chroma($0.pointee) }
        channelMask = kind == .audio && parameters.ch_layout.order == AV_CHANNEL_ORDER_NATIVE ? parameters.ch_layout.u.mask : nil
        isAttachedPicture = (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
        frameCount = stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil
        let rate = stream.pointee.avg_frame_rate
        frameRate = rate.den > 0 && rate.num > 0 ? Double(rate.num) / Double(rate.den) : nil
        var sideDataSize: Int = 0
        if let matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &sideDataSize), sideDataSize >= 36 {
            let degrees = av_display_rotation_get(UnsafeRawPointer(matrix).assumingMemoryBound(to: Int32.self))
            // FFmpeg gives the counter-clockwise angle; players rotate clockwise by its negation. A
            // degenerate matrix (all zero, or a zero scale) has no angle: NaN, shown unrotated.
            if let clockwise = (-degrees).checkedInteger() {
                rotation = ((clockwise % 360) + 360) % 360
            } else {
                rotation = 0
            }
        } else {
            rotation = 0
        }
        let timeBase = stream.pointee.time_base
        let seconds: (Int64) -> Double? = { value in
            guard value != ak_nopts_value(), timeBase.den > 0 else { return nil }
            return Double(value) * Double(timeBase.num) / Double(timeBase.den)
        }
        startTime = seconds(stream.pointee.start_time)
        duration = seconds(stream.pointee.duration)
    }

    /// J:a:b of a YUV pixel format from its subsampling (`"4:2:0"`...); `nil` for RGB and palettes.
    private static func chroma(_ descriptor: AVPixFmtDescriptor) -> String? {
        guard descriptor.flags & UInt64(AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL) == 0 else { return nil }
        if descriptor.nb_components <= 2 { return "4:0:0" }
        switch (descriptor.log2_chroma_w, descriptor.log2_chroma_h) {
        case (0, 0): return "4:4:4"
        case (1, 0): return "4:2:2"
        case (1, 1): return "4:2:0"
        case (2, 0): return "4:1:1"
        case (0, 1): return "4:4:0"
        case (2, 2): return "4:1:0"
        default: return nil
        }
    }
}

/// libavformat's own content detection over a file's first bytes, with no file name (so the
/// extension cannot influence it). Used when AttachKit's sniffer does not know the bytes.
enum AVFormatGuess {
    /// The best demuxer name and its score (0...100), or `nil` when nothing matches or FFmpeg cannot be loaded.
    static func guess(head: [UInt8]) -> (demuxer: String, score: Int)? {
        guard FFmpegLibrary.isAvailable else { return nil }
        let padded = head + [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
        return padded.withUnsafeBufferPointer { buffer -> (String, Int)? in
            var data = AVProbeData()
            data.filename = nil
            data.buf = UnsafeMutablePointer(mutating: buffer.baseAddress)
            data.buf_size = Int32(head.count)
            var score: Int32 = 0
            return "".withCString { empty -> (String, Int)? in
                data.filename = empty
                guard let format = av_probe_input_format3(&data, 1, &score) else { return nil }
                return (String(cString: format.pointee.name), Int(score))
            }
        }
    }
}
