/// How `prepare` fits files: the profile and any tighter budget on top of it. Each option is
/// declared in ``OptionTable``, which reads it into its field here; the defaults are this type's.
public struct PrepareOptions: Sendable {
    /// The policy outputs must satisfy. Default ``Profile/standard`` (`ios`).
    public var profile: Profile
    /// Folder outputs are written into (created names: input stem + the extension of the bytes).
    public var outputFolder: String
    /// Byte budget for every output, tighter than the profile's per-kind limit; `nil` = the profile's.
    public var maxBytes: Int64?
    /// Long-edge cap in pixels for images and video, tighter than the profile's; `nil` = the profile's.
    public var maxEdge: Int?
    /// Animation frame cap, checked from the header before decoding; `nil` = the profile's.
    public var maxFrames: Int?
    /// Duration budget in seconds for audio and video; `nil` = the profile's.
    public var maxDuration: Double?
    /// Where a trimmed clip starts, seconds. Default 0.
    public var start: Double
    /// Time budget for one file, seconds; `nil` = none.
    public var deadline: Double?

    /// Holds ``deadline`` to at most `cap` seconds (a server's `--deadline`), none meaning `cap`;
    /// no cap leaves it as it is.
    mutating func capDeadline(at cap: Double?) {
        if let cap { deadline = min(deadline ?? cap, cap) }
    }
    /// How audio/video is cut to the duration budget. Default ``TrimMode/fast``.
    public var trim: TrimMode
    /// Write a JPEG thumbnail beside each output (`STEM.thumbnail.jpg`) and put its options in the
    /// report. Default `false`.
    public var thumbnail: Bool
    /// Size, clip, frame and time of that thumbnail (also reported as attachment options).
    public var thumbnailRequest: ThumbnailRequest
    /// Keep EXIF/XMP/ICC metadata in re-encoded images (colour is still converted to sRGB). Default `false`.
    public var keepMetadata: Bool
    /// Lowest JPEG/HEIC quality byte fitting may use before it shrinks the image instead. Default 50.
    public var qualityFloor: Int
    /// Seconds of video decoded to verify an output whose bytes were copied without being decoded
    /// (passthrough, rename, stream copy): a longer video is verified GOP by GOP, GOPs spread
    /// evenly up to this many seconds, and the report says how much was decoded. Its sound, and
    /// every image, is always decoded whole. Default ``defaultVerifySeconds`` (60 s).
    public var verifySeconds: Double
    /// 60 s: every clip the `ios` profile accepts is decoded whole.
    public static let defaultVerifySeconds = 60.0
    /// How that output's packets are decoded: ``VerifyMode/fast`` (default: on the job's threads,
    /// in-loop filtering skipped) or ``VerifyMode/full`` (as `validate --deep`).
    public var verify: VerifyMode
    /// Threads one preparation may use inside FFmpeg codecs; `nil` = FFmpeg's default (the core
    /// count). Batches set cores ÷ jobs so parallel jobs do not oversubscribe the machine.
    public var threads: Int?
    /// The x264 preset every transcode uses whatever the deadline model says (``BudgetRunner``
    /// measures each preset with it); `nil` = the model chooses. Not an option users set.
    var encoderPreset: EncoderSpeed?

    public init(profile: Profile = .standard, outputFolder: String, maxBytes: Int64? = nil, maxEdge: Int? = nil,
                maxFrames: Int? = nil, maxDuration: Double? = nil, start: Double = 0, deadline: Double? = nil,
                trim: TrimMode = .fast, thumbnail: Bool = false, thumbnailRequest: ThumbnailRequest = ThumbnailRequest(),
                keepMetadata: Bool = false, qualityFloor: Int = 50, verifySeconds: Double = PrepareOptions.defaultVerifySeconds,
                verify: VerifyMode = .fast) {
        self.profile = profile
        self.outputFolder = outputFolder
        self.maxBytes = maxBytes
        self.maxEdge = maxEdge
        self.maxFrames = maxFrames
        self.maxDuration = maxDuration
        self.start = start
        self.deadline = deadline
        self.trim = trim
        self.thumbnail = thumbnail
        self.thumbnailRequest = thumbnailRequest
        self.keepMetadata = keepMetadata
        self.qualityFloor = qualityFloor
        self.verifySeconds = verifySeconds
        self.verify = verify
    }

    /// The profile with this run's budgets applied (each only ever tightens the profile).
    public var effectiveProfile: Profile {
        var p = profile
        if let maxBytes {
            p.image.maxBytes = min(p.image.maxBytes, maxBytes)
            p.audio.maxBytes = min(p.audio.maxBytes, maxBytes)
            p.video.maxBytes = min(p.video.maxBytes, maxBytes)
        }
        if let maxEdge {
            p.image.maxLongEdge = min(p.image.maxLongEdge ?? maxEdge, maxEdge)
            p.video.maxLongEdge = min(p.video.maxLongEdge ?? maxEdge, maxEdge)
        }
        if let maxFrames { p.image.maxFrames = min(p.image.maxFrames ?? maxFrames, maxFrames) }
        if let maxDuration {
            p.audio.maxDuration = min(p.audio.maxDuration ?? maxDuration, maxDuration)
            p.video.maxDuration = min(p.video.maxDuration ?? maxDuration, maxDuration)
        }
        return p
    }

    /// What a `kind` input's report says when a budget asked (`--max-bytes`, `--max-duration`)
    /// is looser than the profile's, which then applies: one note each, never a silent cap.
    func cappedBudgetNotes(for kind: MediaKind) -> [String] {
        let limits: (bytes: Int64, duration: Double?)
        switch kind {
        case .image: limits = (profile.image.maxBytes, nil)
        case .audio: limits = (profile.audio.maxBytes, profile.audio.maxDuration)
        case .video: limits = (profile.video.maxBytes, profile.video.maxDuration)
        default: return []
        }
        var notes: [String] = []
        if let maxBytes, maxBytes > limits.bytes {
            notes.append("--max-bytes \(ByteCount.text(maxBytes)) is over the \(profile.name) profile's \(ByteCount.text(limits.bytes)) limit for \(kind.rawValue): the profile's limit applies")
        }
        if let maxDuration, let limit = limits.duration, maxDuration > limit {
            notes.append("--max-duration \(maxDuration) s is over the \(profile.name) profile's \(limit) s limit for \(kind.rawValue): the profile's limit applies")
        }
        return notes
    }
}

/// How audio and video are cut to a duration budget.
public enum TrimMode: String, Sendable, CaseIterable {
    /// Stream copy from the keyframe at or before the start: no re-encode, the cut snaps to a keyframe.
    case fast
    /// Re-encode so the clip starts and ends where asked (±1 frame).
    case exact
}
