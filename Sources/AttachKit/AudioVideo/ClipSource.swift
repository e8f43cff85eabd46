/// The facts about an input that planning needs, read once from its header.
struct ClipSource: Sendable {
    let path: String
    /// libavformat demuxer chosen from the sniffed container.
    let demuxer: String
    let container: Container
    /// Seconds, from the container (or the longest stream).
    let duration: Double?
    let bytes: Int64
    let video: Video?
    let audio: Audio?
    /// A sound file's cover art (attached JPEG or PNG picture), which M4A and MP3 outputs keep.
    let cover: Cover?
    /// Streams the output will not carry (subtitles, chapters, timecode, timed metadata, data,
    /// attachments, cover art, extra audio and video), named for the notes (``DroppedStream``).
    let dropped: [String]

    struct Video: Sendable {
        let index: Int
        let codec: Codec
        let pixelFormat: String?
        let geometry: VideoGeometry
        let frameRate: Rational
        let decodable: Bool
        /// The sample entry's FourCC (`hvc1`, `hev1`...).
        let tag: String?
        /// Whether the container gives no presentation time to frames the codec reorders
        /// (B-frames in AVI, or in a raw elementary stream): a stream copy would take the decode
        /// order for the display order, and a player would show frames out of order.
        var lacksPresentationOrder = false
    }

    struct Cover: Sendable {
        let index: Int
        /// Size of the picture, counted against the byte budget.
        let bytes: Int
    }

    struct Audio: Sendable {
        let index: Int
        let codec: Codec
        let sampleRate: Int
        let channels: Int
        let bitRate: Int?
        let decodable: Bool
    }

    /// Opens `path` with the demuxer of `info.container`; a sound file's cover art is kept only
    /// when it decodes under `decoding` (default ``DecoderBudget/standard``), else dropped with a note.
    /// - Throws: ``PrepareError/unsupported(reason:)`` for a container libavformat does not read or
    ///   AttachKit does not convert (``FormatFacts/refusal``),
    ///   ``PrepareError/corrupt(reason:)`` when the header cannot be read.
    static func read(path: String, info: MediaInfo, decoding: DecoderBudget = .standard) throws(PrepareError) -> ClipSource {
        if let refusal = info.container.facts?.refusal { throw .unsupported(reason: refusal) }
        guard let demuxer = Demuxers.name(for: info.container) else {
            throw .unsupported(reason: "\(info.container) is not a container FFmpeg reads")
        }
        do {
            let input = try AVInput(path: path, demuxer: demuxer, readStreamInfo: ClipInput.needsStreamInfo(demuxer))
            return describe(input, path: path, demuxer: demuxer, info: info, decoding: decoding)
        } catch {
            throw .corrupt(reason: "libavformat cannot read the header: \(error.message)")
        }
    }

    /// Demuxers that give video packets decode times only (AVI's index holds no presentation
    /// times; raw elementary streams have none).
    static let timesInDecodeOrder: Set<String> = ["avi", "h264", "hevc", "m4v", "mpegvideo"]

    private static func describe(_ input: borrowing AVInput, path: String, demuxer: String, info: MediaInfo, decoding: DecoderBudget) -> ClipSource {
        let streams = input.streams
        var dropped: [String] = []
        // A stream FFmpeg cannot decode as it reads it (``MediaInfo/undecodableStreams``) is left
        // out, saying why; the probe refuses a file with nothing else of its kind.
        let refused = streams.compactMap { stream in info.undecodableStreams?.first { $0.id == stream.identifier }.map { (stream.index, $0) } }
        let usable = streams.filter { stream in !refused.contains { $0.0 == stream.index } }
        let pictures = usable.filter { $0.kind == .video && !$0.isAttachedPicture }
        let sounds = usable.filter { $0.kind == .audio }
        var video: Video?
        if let v = pictures.first {
            let sar = input.sampleAspectRatio(of: v.index)
            // The probe read this stream with stream info: its sizes and formats win over a
            // header that may leave them out (H.263 in 3GP has no size in its sample entry).
            video = Video(index: v.index, codec: v.codec, pixelFormat: info.pixelFormat ?? v.pixelFormat,
                          geometry: VideoGeometry(width: info.width ?? v.width, height: info.height ?? v.height,
                                                  sampleAspect: sar.value, rotation: v.rotation),
                          frameRate: input.frameRate(of: v.index) ?? Rational(30, 1),
                          decodable: input.hasDecoder(stream: v.index), tag: input.codecTag(of: v.index))
            video?.lacksPresentationOrder = v.reorderDelay > 0 && Self.timesInDecodeOrder.contains(demuxer)
        }
        // The first sound FFmpeg can decode or that is copyable as it is.
        let chosen = sounds.first { input.hasDecoder(stream: $0.index) } ?? sounds.first
        var audio: Audio?
        if let a = chosen {
            let first = a.index == sounds.first?.index
            // The probe's codec where it settled what libavformat does not (MPEG audio layer II
            // in MP4, which libavformat calls mp3: ``AVHeaderProbe``).
            let probed = info.kind == .audio ? info.codec : info.audioCodec
            let codec = first && a.codec == .mp3 && (probed == .mp2 || probed == .mp1) ? probed! : a.codec
            audio = Audio(index: a.index, codec: codec,
                          sampleRate: (first ? info.sampleRate : nil) ?? (a.sampleRate > 0 ? a.sampleRate : 48_000),
                          channels: max(1, (first ? info.channels : nil) ?? (a.channels > 0 ? a.channels : 2)),
                          bitRate: a.bitRate, decodable: input.hasDecoder(stream: a.index))
        }
        var cover: Cover?
        var brokenCover: Int?
        if video == nil, let art = streams.first(where: CoverArtStage.isCover) {
            if let failure = CoverArtStage.failure(of: art.index, in: input, decoding: decoding) {
                dropped.append("the cover art: it does not decode (\(failure)); the sound is kept")
                brokenCover = art.index
            } else {
                cover = Cover(index: art.index, bytes: input.attachedPictureSize(of: art.index))
            }
        }
        for (index, stream) in refused {
            dropped.append("\(stream.kind == .video ? "video" : "audio") stream \(index) (\(stream.codec)): \(stream.reason)")
        }
        // Only the chosen picture and sound (and a sound file's cover) are ever mapped into the
        // output: every other stream, whatever its kind, is named among the notes and never written.
        for s in usable where s.index != video?.index && s.index != audio?.index && s.index != cover?.index && s.index != brokenCover {
            dropped.append(DroppedStream.name(s, tag: input.codecTag(of: s.index)))
        }
        // A duration of 0 a demuxer gives when it does not know one (a tracker module's stream,
        // rendered by libopenmpt as it plays) is no duration: the clip is read to its end.
        let longest = streams.compactMap(\.duration).filter { $0 > 0 }.max()
        // An MP4/MOV edit list's empty edit before the media: a copy or encode starts at the media.
        let kept = [video?.index, audio?.index].compactMap { $0 }
        if info.container.isISOBaseMedia, let offset = streams.filter({ kept.contains($0.index) }).compactMap(\.startTime).min(), offset >= 0.1 {
            dropped.append("the empty edit of \(ClipText.seconds(offset)) before the media (an edit list's start offset): the attachment starts with the media")
        }
        return ClipSource(path: path, demuxer: demuxer, container: info.container,
                          duration: info.duration ?? input.duration.flatMap { $0 > 0 ? $0 : nil } ?? longest, bytes: info.bytes,
                          video: video, audio: audio, cover: cover, dropped: dropped)
    }
}

/// How AttachKit opens inputs for clips and poster frames.
enum ClipInput {
    /// Whether `demuxer` needs `avformat_find_stream_info` before its streams can be copied,
    /// seeked or decoded: every demuxer but `mov`, whose header (`moov`) already describes the
    /// streams and indexes every sample. The formats the header leaves out (pixel format) come
    /// from the probe's ``MediaInfo``.
    static func needsStreamInfo(_ demuxer: String) -> Bool { demuxer != "mov" }
}
