/// Reads a file's header with libavformat into a ``MediaInfo``: audio and video (streams, codecs,
/// duration, bitrates, rotation), and, as a fallback, the images libvips cannot read.
enum AVHeaderProbe {
    /// Fills `info` from the header of an audio or video file at `path`, read by `demuxer`.
    /// Cover art (an attached picture) does not make an audio file a video.
    /// - Parameter streamInfo: let libavformat read packets to complete the stream parameters
    ///   (pixel format, some bitrates); `false` reads the container header only. Default `true`.
    /// - Throws: ``FFmpegError`` when libavformat cannot read the header, or it has no audio or
    ///   video stream (``FFmpegOperation/streamInfo``).
    static func readAudioVideo(path: String, demuxer: String, limits: AVInputLimits, streamInfo: Bool = true,
                               into info: inout MediaInfo) throws(FFmpegError) {
        let input = try AVInput(path: path, demuxer: demuxer, limits: limits, readStreamInfo: streamInfo)
        let streams = count(input, into: &info)
        info.duration = input.duration
        info.durationIsEstimate = input.durationIsEstimate
        if let picture = streams.video.first {
            info.kind = .video
            info.codec = picture.codec
            info.width = picture.width
            info.height = picture.height
            info.pixelFormat = picture.pixelFormat
            info.bitDepth = picture.bitDepth
            info.profile = picture.profile
            info.level = picture.level
            info.chroma = picture.chroma
            info.hdr = input.hdr(of: picture.index)
            info.frames = picture.frameCount
            info.frameRate = picture.frameRate
            info.rotation = picture.rotation
            info.videoBitRate = picture.bitRate
            if let sound = streams.audio.first {
                info.audioCodec = sound.codec
                info.audioBitRate = sound.bitRate
                info.sampleRate = sound.sampleRate
                info.channels = sound.channels
                info.channelLayout = ChannelLayout.name(mask: sound.channelMask, channels: sound.channels)
            }
        } else if let sound = streams.audio.first {
            info.kind = .audio
            info.codec = sound.codec
            info.audioBitRate = sound.bitRate
            info.sampleRate = sound.sampleRate
            info.channels = sound.channels
            info.channelLayout = ChannelLayout.name(mask: sound.channelMask, channels: sound.channels)
            info.bitDepth = sound.bitDepth
        } else {
            throw FFmpegError(operation: .streamInfo, message: "no audio or video stream")
        }
        if info.container == .m4a, info.kind == .video { info.container = .mp4 }
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
