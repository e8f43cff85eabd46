/// The file a clip is written as.
enum ClipContainer: String, Sendable, Equatable {
    /// MPEG-4 movie (`mp4` muxer, `isom` brand): H.264/HEVC + AAC, index at the front.
    case mp4
    /// MPEG-4 audio (`ipod` muxer, `M4A ` brand, so the type is `public.mpeg-4-audio`): AAC or ALAC.
    case m4a
    /// MP3 frames (stream copy of MP3 only).
    case mp3

    var muxer: String {
        switch self {
        case .mp4: return "mp4"
        case .m4a: return "ipod"
        case .mp3: return "mp3"
        }
    }

    /// Muxer options: `moov` before `mdat` (faststart) for the MPEG-4 family.
    var muxerOptions: [String: String] { self == .mp3 ? [:] : ["movflags": "+faststart"] }

    var container: Container {
        switch self {
        case .mp4: return .mp4
        case .m4a: return .m4a
        case .mp3: return .mp3
        }
    }

    var kind: MediaKind { self == .mp4 ? .video : .audio }
}

/// How the output's video track is made from input stream ``index``.
struct VideoTrackPlan: Sendable {
    var index: Int
    /// `nil` = stream copy; otherwise the encode.
    var encode: VideoEncode?
    /// Nominal frame rate of the input (timestamps fill-in and rate control).
    var frameRate: Rational
    /// The FourCC a stream copy's sample entry carries (``ClipPlanner/copyTag(for:)``); `nil` =
    /// the muxer's own for the codec. Unused by an encode.
    var tag: String? = nil

    struct VideoEncode: Sendable, Equatable {
        var width: Int
        var height: Int
        var bitRate: Int
        /// x264 preset (`veryfast`, `superfast`, `ultrafast`).
        var preset: EncoderSpeed
    }
}

/// How the output's audio track is made from input stream ``index``.
struct AudioTrackPlan: Sendable, Equatable {
    var index: Int
    /// `nil` = stream copy; otherwise the AAC encode.
    var encode: AudioEncode?

    struct AudioEncode: Sendable, Equatable {
        var sampleRate: Int
        var channels: Int
        var bitRate: Int
    }
}

/// One way of writing the output: which streams, copied or encoded, over which window.
struct ClipPlan: Sendable {
    var container: ClipContainer
    var video: VideoTrackPlan?
    var audio: AudioTrackPlan?
    var window: ClipWindow
    var trim: TrimMode
    /// Input stream of cover art to keep (sound files into M4A or MP3); `nil` = none.
    var cover: Int?
    /// Threads and frame-size cap of every decoder and encoder the plan opens.
    var decoding = DecoderBudget.standard

    /// Whether every kept stream is copied (no decoding at all).
    var isStreamCopy: Bool { video?.encode == nil && audio?.encode == nil }

    /// The bitrate the plan spends when it encodes (video + audio), `nil` for a stream copy.
    var encodedBitRate: Int? {
        guard !isStreamCopy else { return nil }
        return (video?.encode?.bitRate ?? 0) + (audio?.encode?.bitRate ?? 0)
    }
}
