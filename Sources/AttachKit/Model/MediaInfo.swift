/// What probing a file found: identity from the bytes, and the header fields validation and
/// fitting need. Plain value; every optional is `nil` when the format does not carry it.
///
/// Dimensions are the stored (coded) ones, before EXIF orientation or a track's display matrix;
/// ``displayWidth``/``displayHeight`` give the upright size. A camera raw's are those of the JPEG
/// preview it embeds, which is what is shown (``cameraRaw`` has the sensor's).
public struct MediaInfo: Sendable, Equatable {
    /// The path as given by the caller.
    public var path: String
    /// File size in bytes.
    public var bytes: Int64
    public var kind: MediaKind
    public var container: Container
    /// Image format for images, video codec for video, audio codec for audio-only files.
    public var codec: Codec?
    /// The first audio stream's codec, when a video has sound.
    public var audioCodec: Codec?
    public var width: Int?
    public var height: Int?
    /// Frames (pages) of an image, or the video stream's frame count when the container declares it.
    public var frames: Int?
    /// Seconds: container duration for audio/video, sum of frame delays for animated images.
    public var duration: Double?
    /// `true` when FFmpeg had to estimate ``duration`` from the bitrate (no header declares it).
    public var durationIsEstimate: Bool?
    /// For an MP3 without a Xing/VBRI header whose frames last otherwise (more than 2 % and 0.1 s
    /// apart): the duration libavformat estimated from its first frame's bitrate, as players do;
    /// ``duration`` is then the frames' own. `prepare` rewrites such a file with a Xing header.
    package var estimatedDuration: Double?
    /// EXIF orientation 1...8 of an image (1 = upright).
    public var orientation: Int?
    /// Clockwise rotation in degrees (0, 90, 180, 270) a player applies to the video track.
    public var rotation: Int?
    /// An MP4/MOV's kinds of media (`"video"`, `"audio"`) whose every track is disabled (`tkhd`
    /// flags): iOS plays none of them. `nil` when none is (or the container has no such flag).
    public var disabledMedia: [String]?
    public var hasAlpha: Bool?
    /// Bits per sample of one channel (8 or 16 for images; the coded depth for video/audio when known).
    public var bitDepth: Int?
    /// The video stream's codec profile, as libavcodec numbers it (``CodecProfile``); for a JPEG,
    /// its frame header's `SOFn` marker (`0xC0` baseline ... `0xCF`: libavcodec numbers its MJPEG
    /// profiles so for `0xC0`–`0xC3`); `nil` when unknown.
    public var profile: Int?
    /// The video stream's codec level (H.264 `level_idc`, HEVC `general_level_idc`); `nil` when unknown.
    public var level: Int?
    /// The video's chroma subsampling (`"4:2:0"`, `"4:2:2"`, `"4:4:4"`, `"4:0:0"`), from its pixel format.
    public var chroma: String?
    /// The FourCC the container gives the main stream (the video's, or the sound's in a sound
    /// file): an MP4/MOV sample entry type (`avc1`, `hvc1`, `mp4a`...), an AVI FourCC; `nil` when none.
    var codecTag: String?
    /// The FourCC the container gives a movie's first sound stream.
    var audioCodecTag: String?
    /// The main sound stream's codec profile, as libavcodec numbers it (AAC: ``CodecProfile/aacLow``...).
    var audioProfile: Int?
    /// The video's high dynamic range (PQ, HLG, Dolby Vision) and its metadata; `nil` for SDR.
    public var hdr: HDRInfo?
    /// The first sound stream's channel layout, as FFmpeg names it (`"stereo"`, `"5.1(side)"`), or
    /// `"N channels"` when the file gives no layout.
    public var channelLayout: String?
    /// libvips interpretation for images (`srgb`, `cmyk`, `b-w`, `rgb16`...); FFmpeg pixel format for video.
    public var pixelFormat: String?
    /// Channels of an image (bands, alpha included).
    public var bands: Int?
    public var hasICCProfile: Bool?
    /// Interlaced PNG or progressive JPEG: these cost more memory to decode.
    public var interlaced: Bool?
    /// Loop count of an animation (0 = forever).
    public var loop: Int?
    /// Overall bitrate, bits per second.
    public var bitRate: Int?
    public var videoBitRate: Int?
    public var audioBitRate: Int?
    public var frameRate: Double?
    public var sampleRate: Int?
    public var channels: Int?
    public var videoStreams: Int?
    public var audioStreams: Int?
    /// Streams of any kind (subtitles, data and cover art included).
    public var streams: Int?
    /// Audio files with cover art carry it as an attached picture.
    public var attachedPictures: Int?
    /// Streams the container declares in a codec the decoders here cannot decode as they are read
    /// (a transport stream's PMT naming MPEG-H 3D Audio, AC-4, or DTS-HD that FFmpeg's reader
    /// takes for MP2): never handed to a decoder, left out of an output with a note, and the file
    /// refused as `unsupported` when no stream of its kind is left. `nil` when there are none.
    public var undecodableStreams: [UndecodableStream]?
    /// A camera raw's make, sensor size and embedded JPEG preview (whose size ``width`` and
    /// ``height`` give); `nil` for every other file.
    public var cameraRaw: CameraRawInfo?
    /// What decoding the picture takes in memory, estimated from the header (images; `nil` for
    /// audio and video, whose decoders are estimated where a decode is planned). See
    /// ``SafetyLimits/maxDecodeBytes``.
    public var decodeMemory: DecodeMemory?

    public init(path: String, bytes: Int64, kind: MediaKind, container: Container) {
        self.path = path
        self.bytes = bytes
        self.kind = kind
        self.container = container
    }

    /// The reasons of ``undecodableStreams`` of `kind` when every audio (or video) stream of the
    /// file is one of them; `nil` when some stream of that kind is left to decode, or there is none.
    func undecodableReasons(of kind: MediaKind) -> [String]? {
        let refused = (undecodableStreams ?? []).filter { $0.kind == kind }
        let all = kind == .video ? videoStreams : audioStreams
        guard !refused.isEmpty, let all, refused.count >= all else { return nil }
        return refused.map(\.reason)
    }

    /// Whether the stream FFmpeg identifies as `identifier` (``AVStreamInfo/identifier``) is one of
    /// ``undecodableStreams``.
    func isUndecodable(streamID identifier: Int) -> Bool {
        undecodableStreams?.contains { $0.id == identifier } ?? false
    }

    /// The upright width: ``width`` and ``height`` swapped when orientation or rotation turns the
    /// picture by a quarter turn.
    public var displayWidth: Int? { quarterTurned ? height : width }
    /// The upright height; see ``displayWidth``.
    public var displayHeight: Int? { quarterTurned ? width : height }

    /// Whether EXIF orientation (5...8) or a ±90° track rotation swaps the axes.
    public var quarterTurned: Bool {
        if let orientation, (5...8).contains(orientation) { return true }
        if let rotation, rotation % 180 != 0 { return true }
        return false
    }

    /// The longer of width and height, in pixels.
    public var longEdge: Int? {
        guard let width, let height else { return nil }
        return max(width, height)
    }

    /// Pixels of one frame (width × height).
    public var pixels: Int64? {
        guard let width, let height else { return nil }
        return Int64(width) * Int64(height)
    }

    /// The type iOS would give this content, or `nil` when it is not media.
    public var uniformType: UniformType? { UniformType.of(container: container, kind: kind) }

    /// An image is animated when it has more than one frame (GIF, APNG, animated WebP); a HEIF
    /// collection of stills is not an animation.
    public var isAnimated: Bool {
        guard kind == .image, let frames, frames > 1 else { return false }
        return [.gif, .apng, .webp].contains(codec) || container == .heifSequence
    }
}

/// A stream whose codec the decoders here cannot decode as it is read (``MediaInfo/undecodableStreams``).
public struct UndecodableStream: Sendable, Equatable {
    /// The container's identifier of the stream: a transport stream's PID.
    public var id: Int
    public var kind: MediaKind
    /// The codec the container declares (`mpegh_3d_audio`, `ac4`, `dts`).
    public var codec: Codec
    /// Why it cannot be decoded here, naming the codec and where the container says so.
    public var reason: String

    public init(id: Int, kind: MediaKind, codec: Codec, reason: String) {
        (self.id, self.kind, self.codec, self.reason) = (id, kind, codec, reason)
    }
}
