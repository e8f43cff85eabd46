extension Profile {
    /// Codecs AVFoundation decodes inside the allowed containers. Apple's table lists file types
    /// only; a VP9 track in an `.mp4` is "allowed" by type yet shows nothing, so both profiles
    /// check codecs too.
    static let playableVideoCodecs = names(.h264, .hevc, .mpeg4, .mpeg1video, .mpeg2video, .mjpeg)
    static let playableAudioCodecs = names(.aac, .mp3, .alac, .ac3, .eac3) + [anyPCM]

    /// Apple's documented `UNNotificationAttachment` table, exactly: JPEG, GIF, PNG images up to
    /// 10 MB; AIFF, WAV, MP3, MPEG-4 audio up to 5 MB; MPEG, MPEG-2, MPEG-4, AVI movies up to
    /// 50 MB. No pixel, duration or count caps (Apple documents none).
    public static let apple = Profile(
        name: "apple",
        summary: "Apple's documented UNNotificationAttachment types and sizes, exactly",
        image: ImageRules(
            types: identifiers(.jpeg, .gif, .png),
            maxBytes: 10_000_000, recommendedBytes: nil,
            maxLongEdge: nil, maxPixels: nil, maxDecodedBytes: nil, maxFrames: nil),
        audio: AudioRules(
            types: identifiers(.aiff, .wav, .mp3, .mpeg4Audio),
            codecs: playableAudioCodecs,
            maxBytes: 5_000_000, recommendedBytes: nil, maxDuration: nil),
        video: VideoRules(
            types: identifiers(.mpeg, .mpeg2Video, .mpeg4Movie, .avi),
            videoCodecs: playableVideoCodecs, audioCodecs: playableAudioCodecs,
            maxBytes: 50_000_000, recommendedBytes: nil, maxDuration: nil, maxLongEdge: nil),
        maxAttachments: nil)

    /// What iOS shows in practice, kept safe for the Notification Service Extension: JPEG, PNG,
    /// GIF, HEIF/HEIC images up to 10 MB, 2048 px long edge, 16 MiB decoded (well under the
    /// ~24 MB extension memory budget), 200 frames; AAC/ALAC (M4A), MP3, WAV, AIFF audio up to
    /// 5 MB and 30 s; H.264 or HEVC video in MP4 up to 50 MB, 30 s, 1920 px long edge; at most 4
    /// attachments per request. Warns above 1 MB (images, audio) and 5 MB (video).
    public static let ios = Profile(
        name: "ios",
        summary: "what iOS shows in practice, sized for the service extension's time and memory",
        image: ImageRules(
            types: identifiers(.jpeg, .gif, .png, .heic, .heif),
            maxBytes: 10_000_000, recommendedBytes: 1_000_000,
            maxLongEdge: 2048, maxPixels: 2048 * 2048, maxDecodedBytes: 16 * 1024 * 1024, maxFrames: 200),
        audio: AudioRules(
            types: identifiers(.mpeg4Audio, .mp3, .wav, .aiff),
            codecs: names(.aac, .alac, .mp3) + [anyPCM],
            maxBytes: 5_000_000, recommendedBytes: 1_000_000, maxDuration: 30),
        video: VideoRules(
            types: identifiers(.mpeg4Movie),
            videoCodecs: names(.h264, .hevc), audioCodecs: names(.aac, .mp3, .alac, .ac3, .eac3),
            maxBytes: 50_000_000, recommendedBytes: 5_000_000, maxDuration: 30, maxLongEdge: 1920),
        maxAttachments: 4)

    /// Every PCM sample format (`pcm_s16le`, `pcm_f32be`...), as a profile's codec list writes it.
    static let anyPCM = "pcm_*"

    /// FFmpeg's names of `codecs`, as a profile lists them.
    private static func names(_ codecs: Codec...) -> [String] { codecs.map(\.rawValue) }

    /// The identifiers of `types`, as a profile lists them.
    private static func identifiers(_ types: UniformType...) -> [String] { types.map(\.identifier) }

    /// The built-in profiles by name.
    public static let builtIn: [String: Profile] = ["apple": apple, "ios": ios]

    /// The default profile: ``ios``.
    public static let standard = ios
}
