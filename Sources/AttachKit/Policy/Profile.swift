/// A policy: which attachment types are allowed and the limits each kind must meet.
///
/// Built in: ``apple`` (Apple's documented `UNNotificationAttachment` table, exactly) and ``ios``
/// (the default: the wider set iOS shows in practice, with pixel and duration caps). Custom
/// policies are JSON files (schema in the README), usually extending one of these.
public struct Profile: Sendable, Equatable {
    public var name: String
    public var summary: String
    public var image: ImageRules
    public var audio: AudioRules
    public var video: VideoRules
    /// Attachments one notification request may carry; `nil` = no limit (Apple documents none).
    public var maxAttachments: Int?

    public init(name: String, summary: String, image: ImageRules, audio: AudioRules, video: VideoRules, maxAttachments: Int?) {
        self.name = name
        self.summary = summary
        self.image = image
        self.audio = audio
        self.video = video
        self.maxAttachments = maxAttachments
    }

    /// Rules for still and animated images.
    public struct ImageRules: Sendable, Equatable {
        /// Allowed types, by UTI (e.g. `public.jpeg`).
        public var types: [String]
        /// Hard byte limit (Apple: 10 MB).
        public var maxBytes: Int64
        /// Size above which a warning recommends a smaller file; `nil` = none.
        public var recommendedBytes: Int64?
        /// Longest side in pixels (after orientation); `nil` = no cap.
        public var maxLongEdge: Int?
        /// Width × height of one frame; `nil` = no cap.
        public var maxPixels: Int64?
        /// Decoded size of one frame at 4 bytes per pixel; `nil` = no cap.
        public var maxDecodedBytes: Int64?
        /// Frames of an animation; `nil` = no cap.
        public var maxFrames: Int?
    }

    /// Rules for sound-only attachments.
    public struct AudioRules: Sendable, Equatable {
        public var types: [String]
        /// Allowed audio codecs (FFmpeg names); `pcm_*` allows every PCM variant.
        public var codecs: [String]
        /// Hard byte limit (Apple: 5 MB).
        public var maxBytes: Int64
        public var recommendedBytes: Int64?
        /// Seconds; `nil` = no cap.
        public var maxDuration: Double?
    }

    /// Rules for movies.
    public struct VideoRules: Sendable, Equatable {
        public var types: [String]
        /// Allowed video codecs (FFmpeg names).
        public var videoCodecs: [String]
        /// Allowed codecs of the sound track (FFmpeg names; `pcm_*` allows every PCM variant).
        public var audioCodecs: [String]
        /// Hard byte limit (Apple: 50 MB).
        public var maxBytes: Int64
        public var recommendedBytes: Int64?
        /// Seconds; `nil` = no cap.
        public var maxDuration: Double?
        /// Longest side of the picture in pixels; `nil` = no cap.
        public var maxLongEdge: Int?
    }

    /// Whether the profile allows the type of this content for its kind (codecs aside).
    func allowsContent(_ info: MediaInfo) -> Bool {
        guard let type = info.uniformType else { return false }
        switch info.kind {
        case .image: return Self.allows(image.types, type)
        case .audio: return Self.allows(audio.types, type)
        case .video: return Self.allows(video.types, type)
        case .unknown: return false
        }
    }

    /// Whether `type` (or a type it conforms to) is in `allowed` (a list of UTIs).
    static func allows(_ allowed: [String], _ type: UniformType) -> Bool {
        allowed.contains(type.identifier) || type.supertypes.contains { allowed.contains($0.identifier) }
    }

    /// Whether `codec` matches one of `allowed` (exact names, or a `prefix*` pattern such as `pcm_*`).
    static func allows(_ allowed: [String], codec: Codec) -> Bool {
        allowed.contains { pattern in
            pattern.hasSuffix("*") ? codec.rawValue.hasPrefix(pattern.dropLast()) : pattern == codec.rawValue
        }
    }
}
