/// Chooses, per input, what the output carries and the order of strategies to try:
///
/// 1. **Stream copy** (remux, fast trim) when the codecs are allowed and only the container, the
///    layout (`moov` last, HEVC tagged `hev1`) or the duration is wrong. A stream that cannot be
///    copied is encoded alongside (H.264 video kept, PCM sound → AAC). Skipped when an exact trim is
///    asked (only a re-encode cuts between keyframes).
/// 2. **Encode to fit** (``BudgetFitter``): H.264 (libx264) + AAC in MP4 for video, AAC in M4A for
///    sound, at the profile's long-edge cap, at bitrates that fit the byte budget.
///
/// What is copied is what ``Playability`` says plays: H.264 (8-bit 4:2:0, up to High profile) and
/// HEVC (Main, Main 10) video when the profile allows them and the picture is within the cap;
/// AAC, MP3, ALAC, AC-3, E-AC-3 sound in movies; AAC and ALAC (→ M4A) and MP3 (→ MP3) sound
/// files. H.264 High 10/4:2:2/4:4:4 and HEVC range extensions are re-encoded to 8-bit 4:2:0
/// H.264 (noted). MPEG-4 Part 2, MPEG-1/2, MJPEG, H.263, VP8/9, AV1 are always transcoded to
/// H.264: even where a profile's table allows them, their MP4 carriage is not what AVFoundation
/// reliably plays. Sound re-encoded to AAC is stereo at most (the downmix is noted).
struct ClipPlanner {
    let job: PrepareJob
    let source: ClipSource

    /// The sample-entry FourCC a copied video stream is written with: `hvc1` for HEVC (parameter
    /// sets in the sample entry, the only HEVC tag iOS plays, so a `hev1` input is retagged);
    /// `nil` for the rest (the muxer's own tag, e.g. `avc1`).
    static func copyTag(for codec: Codec) -> String? { codec == .hevc ? "hvc1" : nil }

    /// The strategies for this input, in order.
    /// - Throws: ``PrepareError/unsupported(reason:)`` when no allowed output can be made (the
    ///   profile allows no type AttachKit writes, FFmpeg cannot decode the picture...),
    ///   ``PrepareError/cannotFit(reason:)`` for a start past the end.
    func plan() throws(PrepareError) -> ClipStrategy {
        source.video != nil ? try planMovie() : try planSound()
    }

    private var options: PrepareOptions { job.options }

    private func planMovie() throws(PrepareError) -> ClipStrategy {
        let rules = job.profile.video
        let video = source.video!
        guard Profile.allows(rules.types, .mpeg4Movie) else {
            throw .unsupported(reason: "profile \(job.profile.name) allows no MPEG-4 movie, the only movie type AttachKit writes")
        }
        let window = try ClipWindow.make(start: options.start, maxDuration: rules.maxDuration, total: source.duration)
        var notes = source.dropped.map { "dropped \($0)" }
        // The picture is copied when it can be and no exact cut is asked; otherwise it is transcoded.
        var copiesVideo = videoCopyable(video, rules: rules) && !(window.cuts && options.trim == .exact)
        if copiesVideo, video.lacksPresentationOrder {
            copiesVideo = false
            notes.append("re-encoded, not copied: the \(source.container.rawValue.uppercased()) gives its reordered (B-frame) pictures no presentation times, so a copy would show them out of order")
        }
        if !copiesVideo { try checkTranscodable(video, rules: rules) }
        if case .unsupportedVariant(let reason) = playability(of: video) {
            notes.append("re-encoded to 8-bit 4:2:0 H.264: \(reason)")
        }
        let route = audioRoute(rules: rules, copiesVideo: copiesVideo, notes: &notes)
        let template = EncodeTemplate(container: .mp4, video: video, audio: route.encodes ? source.audio : nil,
                                      window: window, maxLongEdge: rules.maxLongEdge, budget: rules.maxBytes,
                                      recommended: rules.recommendedBytes)
        var light: ClipPlan?
        if copiesVideo {
            light = copyPlan(video: video, route: route, template: template)
            if video.codec == .hevc, video.tag == "hev1" { notes.append("HEVC retagged hvc1 (iOS plays only hvc1)") }
        }
        var strategy = ClipStrategy(light: light, template: template, notes: notes)
        if route == .copyOnly {
            strategy.encodeNote = "dropped the \(source.audio!.codec) sound: a re-encode cannot decode it"
        } else if route != .none {
            noteDownmix(template, encodedByLight: light == nil || route == .encode, strategy: &strategy)
        }
        return strategy
    }

    /// Whether the picture may be copied as it is: a codec variant iOS plays (``Playability``,
    /// from the probe's profile, chroma and bit depth; the pixel format must be known), allowed by
    /// the profile, within its long-edge cap.
    private func videoCopyable(_ video: ClipSource.Video, rules: Profile.VideoRules) -> Bool {
        playability(of: video) == .copyable && video.pixelFormat != nil
            && Profile.allows(rules.videoCodecs, codec: video.codec)
            && video.geometry.fits(maxLongEdge: rules.maxLongEdge)
    }

    /// The picture's verdict: its codec, with the profile, chroma and bit depth the probe read
    /// from the same (first) video stream.
    private func playability(of video: ClipSource.Video) -> Playability.Video {
        Playability.video(codec: video.codec, profile: job.info.profile, chroma: job.info.chroma, bitDepth: job.info.bitDepth,
                          hdr: job.info.hdr)
    }

    /// Notes the downmix an AAC encode makes (stereo at most, ``EncodeTemplate/channels``): in the
    /// notes when every strategy encodes the sound, else as what the full encode changes.
    private func noteDownmix(_ template: EncodeTemplate, encodedByLight: Bool, strategy: inout ClipStrategy) {
        guard let audio = template.audio, audio.channels > template.channels else { return }
        let from = job.info.channels == audio.channels ? job.info.channelLayout : nil
        let note = "downmixed \(from ?? "\(audio.channels) channels") → \(template.channels == 1 ? "mono" : "stereo") "
            + "(AAC is encoded in stereo at most)"
        if encodedByLight { strategy.notes.append(note) } else { strategy.encodeNote = note }
    }

    /// - Throws: ``PrepareError/unsupported(reason:)`` when the picture cannot be transcoded to
    ///   H.264: FFmpeg has no decoder for it, or the profile does not allow H.264.
    private func checkTranscodable(_ video: ClipSource.Video, rules: Profile.VideoRules) throws(PrepareError) {
        guard video.decodable else { throw .unsupported(reason: "FFmpeg has no decoder for the \(video.codec) video") }
        guard Profile.allows(rules.videoCodecs, codec: .h264) else {
            throw .unsupported(reason: "the \(video.codec) video must be transcoded but profile \(job.profile.name) does not allow H.264")
        }
    }

    /// How a movie's sound is carried (a note added for sound that is dropped): copied when the
    /// codec is one iOS plays in MP4 and the profile allows it, else encoded to AAC. Sound that
    /// can only be copied (no decoder) is dropped when the picture is transcoded.
    private func audioRoute(rules: Profile.VideoRules, copiesVideo: Bool, notes: inout [String]) -> AudioRoute {
        guard let audio = source.audio else { return .none }
        let route: AudioRoute
        if Playability.sound(audio.codec, profile: job.info.audioProfile, in: .mp4) == .plays && Profile.allows(rules.audioCodecs, codec: audio.codec) {
            route = audio.decodable ? .copyOrEncode : .copyOnly
        } else if audio.decodable && Profile.allows(rules.audioCodecs, codec: .aac) {
            route = .encode
        } else {
            notes.append("dropped the \(audio.codec) sound: " + (audio.decodable
                ? "profile \(job.profile.name) allows neither it nor AAC" : "FFmpeg cannot decode it"))
            return .none
        }
        if route == .copyOnly && !copiesVideo {
            notes.append("dropped the \(audio.codec) sound: it cannot be re-encoded (no decoder)")
            return .none
        }
        return route
    }

    /// The stream copy of a movie: the picture copied (``copyTag(for:)``), the sound copied or,
    /// when it must be, encoded at comfortable rates.
    private func copyPlan(video: ClipSource.Video, route: AudioRoute, template: EncodeTemplate) -> ClipPlan {
        let audio = source.audio.flatMap { a -> AudioTrackPlan? in
            switch route {
            case .none: return nil
            case .copyOrEncode, .copyOnly: return AudioTrackPlan(index: a.index, encode: nil)
            case .encode: return AudioTrackPlan(index: a.index, encode: template.comfortableAudio())
            }
        }
        return ClipPlan(container: .mp4, video: VideoTrackPlan(index: video.index, encode: nil, frameRate: video.frameRate,
                                                               tag: Self.copyTag(for: video.codec)),
                        audio: audio, window: template.window, trim: options.trim, decoding: DecoderBudget(job: job))
    }

    private func planSound() throws(PrepareError) -> ClipStrategy {
        let rules = job.profile.audio
        guard let audio = source.audio else { throw .unsupported(reason: "no audio or video stream to prepare") }
        let window = try ClipWindow.make(start: options.start, maxDuration: rules.maxDuration, total: source.duration)
        var notes = source.dropped.map { "dropped \($0)" }
        let exactCut = window.cuts && options.trim == .exact
        let codecAllowed = Profile.allows(rules.codecs, codec: audio.codec)
        var copyContainer: ClipContainer?
        if codecAllowed, audio.codec == .aac || audio.codec == .alac, Profile.allows(rules.types, .mpeg4Audio),
           Playability.sound(audio.codec, profile: job.info.audioProfile, in: .m4a) == .plays {
            copyContainer = .m4a
        } else if codecAllowed, audio.codec == .mp3, Profile.allows(rules.types, .mp3) {
            copyContainer = .mp3
        }
        let canEncode = audio.decodable && Profile.allows(rules.codecs, codec: .aac) && Profile.allows(rules.types, .mpeg4Audio)
        guard canEncode || (copyContainer != nil && !exactCut) else {
            if !audio.decodable { throw .unsupported(reason: "FFmpeg has no decoder for the \(audio.codec) sound") }
            throw .unsupported(reason: "the \(audio.codec) sound must be transcoded but profile \(job.profile.name) does not allow AAC in M4A")
        }
        // Cover art rides along unless it would take more than a fifth of the budget.
        var cover = source.cover
        if let art = cover, Double(art.bytes) > Double(rules.maxBytes) * 0.2 {
            // A thumbnail is made from the attachment itself, which now has no picture.
            let thumbnail = job.options.thumbnail ? ", so the attachment has no picture to make a thumbnail from" : ""
            notes.append("dropped the cover art: \(ByteCount.text(Int64(art.bytes))) is over a fifth of the budget\(thumbnail)")
            cover = nil
        }
        var template = EncodeTemplate(container: .m4a, video: nil, audio: audio, window: window.capped(at: rules.maxDuration), maxLongEdge: nil,
                                      budget: rules.maxBytes, recommended: rules.recommendedBytes)
        template.cover = cover
        var light: ClipPlan?
        if let copyContainer, !exactCut {
            light = ClipPlan(container: copyContainer, video: nil, audio: AudioTrackPlan(index: audio.index, encode: nil),
                             window: window, trim: options.trim, cover: cover?.index, decoding: DecoderBudget(job: job))
        }
        var strategy = ClipStrategy(light: light, template: template, notes: notes)
        if canEncode {
            noteDownmix(template, encodedByLight: light == nil, strategy: &strategy)
        } else {
            strategy.encodeRefusal = audio.decodable
                ? "profile \(job.profile.name) does not allow AAC in M4A, the only sound AttachKit encodes"
                : "FFmpeg has no decoder for the \(audio.codec) sound"
        }
        return strategy
    }

    private enum AudioRoute {
        case none, copyOnly, copyOrEncode, encode

        /// Whether a full encode carries the sound.
        var encodes: Bool { self == .encode || self == .copyOrEncode }
    }
}

/// The strategies chosen for one input.
struct ClipStrategy: Sendable {
    /// Stream copy (what cannot be copied encoded at comfortable rates); `nil` when not possible.
    var light: ClipPlan?
    /// What a full encode keeps; ``BudgetFitter`` sets its sizes and bitrates.
    var template: EncodeTemplate
    var notes: [String]
    /// Said when the full encode runs (what it loses that the stream copy kept).
    var encodeNote: String?
    /// Why a full encode is impossible (sound FFmpeg cannot decode...); `nil` when it is possible.
    var encodeRefusal: String?
}

/// The streams, window and caps of a full encode, before bitrates are chosen.
struct EncodeTemplate: Sendable {
    var container: ClipContainer
    var video: ClipSource.Video?
    var audio: ClipSource.Audio?
    var window: ClipWindow
    var maxLongEdge: Int?
    var budget: Int64
    /// Cover art kept (its bytes come out of the budget).
    var cover: ClipSource.Cover?
    /// The profile's recommended size, aimed under when reachable (``BudgetFitter/recommendedTotal(duration:total:)``).
    var recommended: Int64?

    /// AAC sample rates FFmpeg's encoder takes.
    static let aacRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000]

    /// The output sample rate: the input's when AAC takes it and it is 48 kHz or less, 44.1 kHz for
    /// 88.2/176.4 kHz, 48 kHz for other high rates, else the next AAC rate up. At low bitrates the
    /// band is narrowed, which AAC-LC turns into fewer artefacts: at most 32 kHz under 40 kb/s per
    /// channel, 24 kHz under 24 kb/s per channel.
    static func sampleRate(for input: Int, bitRate: Int? = nil, channels: Int = 2) -> Int {
        let rate: Int
        if input > 48_000 {
            rate = input % 44_100 == 0 ? 44_100 : 48_000
        } else if aacRates.contains(input) {
            rate = input
        } else {
            rate = aacRates.reversed().first { $0 >= input } ?? 48_000
        }
        guard let bitRate else { return rate }
        let perChannel = bitRate / max(1, channels)
        if perChannel < 24_000 { return min(rate, 24_000) }
        if perChannel < 40_000 { return min(rate, 32_000) }
        return rate
    }

    /// Stereo at most (a notification plays through one speaker or headphones).
    var channels: Int { min(2, audio?.channels ?? 2) }

    func comfortableAudio() -> AudioTrackPlan.AudioEncode? {
        guard let audio else { return nil }
        let bitRate = BitrateBudget.comfortableAudioBitRate(channels: channels, sourceBitRate: audio.bitRate)
        return AudioTrackPlan.AudioEncode(sampleRate: Self.sampleRate(for: audio.sampleRate, bitRate: bitRate, channels: channels),
                                          channels: channels, bitRate: bitRate)
    }
}
