/// Reads an audio, video (or, as a fallback, image) file's header with libavformat into a
/// ``MediaInfo``: streams, codecs, duration, bitrates, rotation.
enum AVHeaderProbe {
    /// Fills `info` from the header of the file at `path`, read by `demuxer`.
    /// Cover art (an attached picture) does not make an audio file a video.
    /// - Parameter imageKind: the sniffer already knows this is an image (12-bit JPEG, HEIF
    ///   sequence, BMP...): keep kind and codec naming of images.
    /// - Throws: ``FFmpegError`` when libavformat cannot read the header.
    /// - Parameter streamInfo: let libavformat read packets to complete the stream parameters
    ///   (pixel format, some bitrates); `false` reads the container header only.
    static func read(path: String, demuxer: String, imageKind: Bool, limits: AVInputLimits, streamInfo: Bool = true,
                     into info: inout MediaInfo) throws(FFmpegError) {
        let input = try AVInput(path: path, demuxer: demuxer, limits: limits, readStreamInfo: streamInfo)
        let streams = input.streams
        let video = streams.filter { $0.kind == .video && !$0.isAttachedPicture }
        let audio = streams.filter { $0.kind == .audio }
        info.streams = streams.count
        info.videoStreams = video.count
        info.audioStreams = audio.count
        info.attachedPictures = streams.filter(\.isAttachedPicture).count
        info.bitRate = input.bitRate

        if imageKind {
            guard let picture = video.first ?? streams.first(where: { $0.kind == .video }) else {
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
            info.codec = [.heic, .heif, .heifSequence, .avif].contains(info.container)
                ? picture.codec : Codec(info.container.rawValue)
            return
        }

        info.duration = input.duration
        info.durationIsEstimate = input.durationIsEstimate
        if let picture = video.first {
            info.kind = .video
            info.codec = picture.codec
            info.width = picture.width
            info.height = picture.height
            info.pixelFormat = picture.pixelFormat
            info.bitDepth = picture.bitDepth
            info.frames = picture.frameCount
            info.frameRate = picture.frameRate
            info.rotation = picture.rotation
            info.videoBitRate = picture.bitRate
            if let sound = audio.first {
                info.audioCodec = sound.codec
                info.audioBitRate = sound.bitRate
                info.sampleRate = sound.sampleRate
                info.channels = sound.channels
            }
        } else if let sound = audio.first {
            info.kind = .audio
            info.codec = sound.codec
            info.audioBitRate = sound.bitRate
            info.sampleRate = sound.sampleRate
            info.channels = sound.channels
            info.bitDepth = sound.bitDepth
        } else {
            throw FFmpegError(operation: .streamInfo, message: "no audio or video stream")
        }
        if info.container == .m4a, info.kind == .video { info.container = .mp4 }
    }
}
