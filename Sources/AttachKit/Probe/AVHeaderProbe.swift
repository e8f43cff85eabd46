/// Reads a file's header with libavformat into a ``MediaInfo``: audio and video (streams, codecs,
/// duration, bitrates, rotation), and, as a fallback, the images libvips cannot read.
enum AVHeaderProbe {
    /// Fills `info` from the header of an audio or video file at `path`, read by `demuxer`.
    /// Cover art (an attached picture) does not make an audio file a video.
    /// - Parameters:
    ///   - streamInfo: let libavformat read packets to complete the stream parameters
    ///     (pixel format, some bitrates); `false` reads the container header only. Default `true`.
    ///   - configuration: first try ``readConfiguredHeader(path:demuxer:limits:into:)`` (MP4/MOV
    ///     whose every stream's codec configuration settles what decoding would tell: no packet is
    ///     decoded either way), and only when it cannot, read the header as `streamInfo` says.
    ///     A header-only read then still knows the pixel format and level (a thumbnail's memory
    ///     estimate needs them: without, a 4K poster frame was counted at 16 references of 4 B/px
    ///     and refused). Default `false`.
    ///   - declared: the codecs a transport stream's PMT declares, by PID (``DeclaredCodec``): a
    ///     stream FFmpeg cannot decode as it reads it is named by its declared codec and recorded
    ///     in ``MediaInfo/undecodableStreams``. Default none.
    /// - Throws: ``FFmpegError`` when libavformat cannot read the header, or it has no audio or
    ///   video stream (``FFmpegOperation/streamInfo``).
    static func readAudioVideo(path: String, demuxer: String, limits: AVInputLimits, streamInfo: Bool = true,
                               configuration: Bool = false, declared: [Int: DeclaredCodec] = [:], into info: inout MediaInfo) throws(FFmpegError) {
        if configuration, try readConfiguredHeader(path: path, demuxer: demuxer, limits: limits, into: &info) { return }
        let input = try AVInput(path: path, demuxer: demuxer, limits: limits, readStreamInfo: streamInfo)
        try describe(input, declared: declared, into: &info)
        settleMPEGAudioLayer(input, path: path, into: &info)
    }

    /// MPEG-1/2 audio in an MP4 or MOV has one object type whatever its layer (0x6B, 0x69), and
    /// libavformat names every such stream `mp3`, parsed or not; the first sample's frame header
    /// says the layer. Layer II or I is named `mp2` or `mp1`, so validate, prepare and the
    /// re-check agree that it is not MP3 (a Layer II stream was copied into an `.mp3` that then
    /// failed its own re-check). libavcodec's `mp3` decoder reads every layer, so it still decodes.
    private static func settleMPEGAudioLayer(_ input: borrowing AVInput, path: String, into info: inout MediaInfo) {
        guard info.container.isISOBaseMedia, (info.kind == .audio ? info.codec : info.audioCodec) == .mp3,
              let sound = input.streams.first(where: { $0.kind == .audio }),
              let first = input.header(of: sound.index).firstSample, let reader = try? FileReader(path: path),
              let frame = MPEGAudioFrame(reader.read(at: first.offset, count: 4), at: 0), frame.layer != 3 else { return }
        let codec: Codec = frame.layer == 2 ? .mp2 : .mp1
        if info.kind == .audio { info.codec = codec } else { info.audioCodec = codec }
    }

    /// The header-only probe (issue 14, issue 33): opens the file without
    /// `avformat_find_stream_info` and, when the header settles every audio and video stream
    /// (``CodecConfiguration``) and the duration, fills `info` from it alone, with the overall
    /// bitrate as `update_stream_timings` computes it (file bytes over the duration). What
    /// settles a stream depends on the demuxer:
    /// - `mov`: a codec configuration, and a first sample in the index (a picture's splitting
    ///   into NAL units) for decoding to learn from; the duration from the movie header.
    /// - `matroska`: a codec configuration (`CodecPrivate`), a first packet per stream within
    ///   the probe bytes (read, not decoded; a picture's splitting into NAL units), a frame rate
    ///   (`DefaultDuration`), and no stream but sound and pictures (libavformat would time
    ///   subtitles and attachments from the packets); the duration from the segment info.
    /// - `flac`: `STREAMINFO` (the decoder reads nothing else to open), whose total samples give
    ///   the duration.
    /// Returns `false`, having filled nothing, when any of that is missing: the caller decodes.
    /// - Throws: ``FFmpegError`` when libavformat cannot read the header.
    static func readConfiguredHeader(path: String, demuxer: String, limits: AVInputLimits, into info: inout MediaInfo) throws(FFmpegError) -> Bool {
        let layout: HeaderLayout
        switch demuxer {
        case Demuxers.name(for: .mp4): layout = .indexed
        case Demuxers.name(for: .matroska): layout = .packets
        case Demuxers.name(for: .flac): layout = .streamInfo
        default: return false
        }
        let input = try AVInput(path: path, demuxer: demuxer, limits: limits, readStreamInfo: false)
        let media = input.streams.filter { ($0.kind == .video && !$0.isAttachedPicture) || $0.kind == .audio }
        if layout == .packets, input.streams.contains(where: { $0.kind != .audio && $0.kind != .video }) { return false }
        guard !media.isEmpty, let firsts = firstSamples(of: media, in: input, layout: layout, path: path, limits: limits) else { return false }
        var pictures: [Int: CodecConfiguration.Picture] = [:]
        var sounds: [Int: CodecConfiguration.Sound] = [:]
        for stream in media {
            let header = input.header(of: stream.index)
            if stream.kind == .video {
                guard let picture = CodecConfiguration.picture(stream, header), let first = firsts[stream.index],
                      CodecConfiguration.splitsIntoNALUnits(first, lengthSize: picture.lengthSize),
                      layout == .indexed || stream.frameRate != nil else { return false }
                pictures[stream.index] = picture
            } else {
                guard let sound = CodecConfiguration.sound(stream, header), layout == .streamInfo || firsts[stream.index] != nil else { return false }
                sounds[stream.index] = sound
            }
        }
        let declared = layout == .streamInfo ? sounds.values.first?.streamInfo?.durationMicroseconds : input.durationMicroseconds
        guard let microseconds = declared, microseconds > 0 else { return false }
        try describe(input, pictures: pictures, sounds: sounds, duration: Double(microseconds) / 1_000_000, into: &info)
        settleMPEGAudioLayer(input, path: path, into: &info)
        info.bitRate = (Double(info.bytes) * 8 * 1_000_000 / Double(microseconds)).clampedInteger(in: 0...Int.max, rounding: .towardZero)
        return true
    }

    /// Where the header-only probe finds what decoding would learn from (see
    /// ``readConfiguredHeader(path:demuxer:limits:into:)``).
    private enum HeaderLayout { case indexed, packets, streamInfo }

    /// The first sample of each stream in `media`, by index: from the file at the offset the
    /// `mov` index gives, or the first packets the demuxer hands out within the probe bytes;
    /// none are needed for `STREAMINFO`. `nil` when an indexed stream has no sample (the
    /// decoding probe has no packet to learn from either, and leaves its facts unknown).
    private static func firstSamples(of media: [AVStreamInfo], in input: borrowing AVInput, layout: HeaderLayout, path: String,
                                     limits: AVInputLimits) -> [Int: [UInt8]]? {
        switch layout {
        case .streamInfo:
            return [:]
        case .packets:
            return input.firstPackets(of: Set(media.map(\.index)), byteBudget: limits.probeBytes)
        case .indexed:
            guard let reader = try? FileReader(path: path) else { return nil }
            var firsts: [Int: [UInt8]] = [:]
            for stream in media {
                guard let first = input.header(of: stream.index).firstSample else { return nil }
                firsts[stream.index] = stream.kind == .video ? reader.read(at: first.offset, count: first.size) : []
            }
            return firsts
        }
    }

    /// Fills `info` from an opened input: the first picture that is not cover art and the first
    /// sound, with what `pictures` and `sounds` (by stream index) say in place of the pixel
    /// format, profile, level, chroma, bit depth and channel mask the input has not decoded.
    /// Streams `declared` says FFmpeg cannot decode as it reads them come after the others, and
    /// one chosen all the same (none other of its kind) is described by its declared codec alone:
    /// what FFmpeg read of a stream it misidentified (a sample rate, channels) is not the file's.
    /// `duration`, when given, stands for the container's (a FLAC's, which libavformat only
    /// works out reading packets).
    private static func describe(_ input: borrowing AVInput, pictures: [Int: CodecConfiguration.Picture] = [:],
                                 sounds: [Int: CodecConfiguration.Sound] = [:], declared: [Int: DeclaredCodec] = [:],
                                 duration: Double? = nil, into info: inout MediaInfo) throws(FFmpegError) {
        var streams = count(input, into: &info)
        let refused = undecodable(streams.all, declared: declared)
        info.undecodableStreams = refused.isEmpty ? nil : streams.all.compactMap { refused[$0.index] }
        // A stream FFmpeg could not even call sound or picture (no prober knew its payload) is
        // what the PMT declares it to be: a file of AC-4 alone is sound nothing here decodes, not
        // a file without streams.
        let unnamed = streams.all.filter { $0.kind != .audio && $0.kind != .video && refused[$0.index] != nil }
        streams.video += unnamed.filter { refused[$0.index]?.kind == .video }
        streams.audio += unnamed.filter { refused[$0.index]?.kind == .audio }
        (info.videoStreams, info.audioStreams) = (streams.video.count, streams.audio.count)
        // (Such a stream is the PMT's sound or picture, not a data stream widening the span.)
        info.duration = MediaSpan.duration(container: duration ?? input.duration, start: input.startTime,
                                           streams: streams.all.filter { stream in !unnamed.contains { $0.index == stream.index } },
                                           timelineFromZero: info.container.isISOBaseMedia)
        info.durationIsEstimate = input.durationIsEstimate
        let usable: (AVStreamInfo) -> Bool = { refused[$0.index] == nil }
        streams.video = streams.video.filter(usable) + streams.video.filter { !usable($0) }
        streams.audio = streams.audio.filter(usable) + streams.audio.filter { !usable($0) }
        if let picture = streams.video.first, let refusal = refused[picture.index] {
            info.kind = .video
            info.codec = refusal.codec
            if let sound = streams.audio.first { info.audioCodec = refused[sound.index]?.codec ?? sound.codec }
        } else if let picture = streams.video.first {
            let configured = pictures[picture.index]
            info.kind = .video
            info.codec = picture.codec
            info.width = picture.width
            info.height = picture.height
            info.pixelFormat = configured?.pixelFormat ?? picture.pixelFormat
            info.bitDepth = configured?.bitDepth ?? picture.bitDepth
            info.profile = configured?.profile ?? picture.profile
            info.level = configured.map { $0.level } ?? picture.level
            info.chroma = configured?.chroma ?? picture.chroma
            info.codecTag = input.codecTag(of: picture.index)
            info.hdr = input.hdr(of: picture.index)
            info.frames = picture.frameCount
            info.frameRate = picture.frameRate
            info.rotation = picture.rotation
            info.videoBitRate = picture.bitRate
            if let sound = streams.audio.first, let refusal = refused[sound.index] {
                info.audioCodec = refusal.codec
            } else if let sound = streams.audio.first {
                info.audioCodec = sound.codec
                info.audioCodecTag = input.codecTag(of: sound.index)
                describeSound(sound, configured: sounds[sound.index], into: &info)
            }
        } else if let sound = streams.audio.first, let refusal = refused[sound.index] {
            info.kind = .audio
            info.codec = refusal.codec
        } else if let sound = streams.audio.first {
            info.kind = .audio
            info.codec = sound.codec
            info.codecTag = input.codecTag(of: sound.index)
            describeSound(sound, configured: sounds[sound.index], into: &info)
            info.bitDepth = sounds[sound.index]?.streamInfo?.bitsPerSample ?? sound.bitDepth
        } else {
            throw FFmpegError(operation: .streamInfo, message: "no audio or video stream")
        }
        if info.container == .m4a, info.kind == .video { info.container = .mp4 }
    }

    /// The sound's profile, bitrate, rate, channels and layout, with what `configured` says in
    /// place of what the input has not decoded.
    private static func describeSound(_ sound: AVStreamInfo, configured: CodecConfiguration.Sound?, into info: inout MediaInfo) {
        let streamInfo = configured?.streamInfo
        let channels = streamInfo?.channels ?? sound.channels
        info.audioProfile = configured?.profile ?? sound.profile
        info.audioBitRate = sound.bitRate
        info.sampleRate = streamInfo?.sampleRate ?? sound.sampleRate
        info.channels = channels
        info.channelLayout = ChannelLayout.name(mask: configured?.channelMask ?? sound.channelMask, channels: channels)
    }

    /// The streams (by index) FFmpeg cannot decode as it reads them, by what `declared` (by PID)
    /// says they are (``DeclaredCodec/refusal(readAs:pid:)``): FFmpeg's sound and pictures, and
    /// streams it left as data or of no known kind that the PMT declares sound or picture.
    private static func undecodable(_ streams: [AVStreamInfo], declared: [Int: DeclaredCodec]) -> [Int: UndecodableStream] {
        var refused: [Int: UndecodableStream] = [:]
        for stream in streams where !stream.isAttachedPicture {
            guard let codec = declared[stream.identifier],
                  let reason = codec.refusal(readAs: stream.codec, media: stream.kind == .audio || stream.kind == .video, pid: stream.identifier)
            else { continue }
            refused[stream.index] = UndecodableStream(id: stream.identifier, kind: codec.kind, codec: codec.codec, reason: reason)
        }
        return refused
    }

    /// Fills `info` from the header of a picture the sniffer already knows is an image but libvips
    /// cannot read (12-bit JPEG, HEIF sequence, BMP...), read by `demuxer`: kind and codec are
    /// named as for images.
    /// - Throws: ``FFmpegError`` when libavformat cannot read the header, or it has no picture or
    ///   no picture size (``FFmpegOperation/streamInfo``).
    static func readImage(path: String, demuxer: String, limits: AVInputLimits, into info: inout MediaInfo) throws(FFmpegError) {
        let input = try AVInput(path: path, demuxer: demuxer, limits: limits, readStreamInfo: true)
        let streams = count(input, into: &info)
        guard let picture = streams.video.first ?? streams.all.first(where: { $0.kind == .video }) else {
            throw FFmpegError(operation: .streamInfo, message: "no picture in the file")
        }
        guard picture.width > 0, picture.height > 0 else {
            throw FFmpegError(operation: .streamInfo, message: "the header gives no picture size")
        }
        info.kind = .image
        info.width = picture.width
        info.height = picture.height
        info.pixelFormat = picture.pixelFormat
        info.bitDepth = picture.bitDepth
        info.frames = picture.frameCount ?? 1
        if (info.frames ?? 1) > 1 { info.duration = input.duration }
        info.codec = info.container.isHEIF
            ? picture.codec : Codec(info.container.rawValue)
    }

    /// Counts the input's streams into `info` (and its overall bitrate); returns them, with the
    /// pictures that are not cover art and the sounds.
    private static func count(_ input: borrowing AVInput, into info: inout MediaInfo)
        -> (all: [AVStreamInfo], video: [AVStreamInfo], audio: [AVStreamInfo]) {
        let streams = input.streams
        let video = streams.filter { $0.kind == .video && !$0.isAttachedPicture }
        let audio = streams.filter { $0.kind == .audio }
        info.streams = streams.count
        info.videoStreams = video.count
        info.audioStreams = audio.count
        info.attachedPictures = streams.filter(\.isAttachedPicture).count
        info.bitRate = input.bitRate
        return (streams, video, audio)
    }
}
