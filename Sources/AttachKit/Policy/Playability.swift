/// What an iPhone plays, per codec, decided in one place: `validate` (``CodecRule``) reports what
/// does not play, and `prepare` (``ClipPlanner``, the image pipeline) copies only what does and
/// re-encodes the rest, from the same answer. A profile's codec lists (which codecs a policy
/// allows by name) are checked apart; this model says which *variants* of a codec decode.
///
/// Sources, cited per fact below:
/// - [HLS] Apple, "HLS Authoring Specification for Apple Devices", §1 Video (1.3: H.264 "less than
///   or equal to High Profile"; 1.6: HEVC "less than or equal to Main10 Profile ... High Tier";
///   1.15: "Frame rates above 60 fps SHALL NOT be used") and §4 Audio (the codecs of 4.x: AAC-LC,
///   HE-AAC v1/v2, Apple Lossless, AC-3, E-AC-3 in fMP4).
/// - [UN] Apple, `UNNotificationAttachment` documentation, "Supported File Types": AIFF, WAV, MP3,
///   MPEG-4 audio; MPEG, MPEG-2 video, MPEG-4, AVI.
/// - [MPG] Apple, "Multimedia Programming Guide", "Using Audio" > "Audio Playback and Recording
///   Formats": AAC, HE-AAC, ALAC, IMA4, Linear PCM, µ-law, a-law, MP3 (and AMR, iLBC).
/// - [CA] Apple, CoreAudioTypes.h, the `AudioFormatID`s of MPEG-4 AAC AudioToolbox decodes:
///   `kAudioFormatMPEG4AAC` (LC), `_HE`, `_HE_V2`, `_LD`, `_ELD`, `_ELD_SBR`, `_ELD_V2`, `_Spatial`;
///   AAC Main, SSR and LTP have none.
/// - [ITU] ITU-T H.264 Annex A and H.265 Annex A: which profiles allow which chroma formats and
///   bit depths (High: 8-bit 4:2:0 and 4:0:0; Main 10: 4:2:0 at 8 or 10 bits).
///
/// Limits not enforced, on purpose: [HLS]'s levels (H.264 ≤ 4.2, HEVC ≤ 5.0) and its 60 fps
/// ceiling are rules for adaptive streams every Apple device must play; iPhones record and play
/// H.264 High 5.1/5.2 and 120/240 fps HEVC themselves, and `prepare`'s own H.264 transcode keeps
/// the input's frame rate, so refusing them would fail outputs `prepare` makes. Frame size is
/// capped by the profile (`video.maxLongEdge`). No sample-rate or channel-count limit is
/// enforced for sound: no Apple document states one for file playback.
enum Playability {
    /// What happens to a video stream.
    enum Video: Equatable, Sendable {
        /// Plays: `prepare` may stream-copy it into MP4 (H.264 8-bit 4:2:0, HEVC Main/Main 10).
        case copyable
        /// AVFoundation plays it in its own container where the profile's table allows it (MPEG-1/2
        /// in `.mpg`, MPEG-4 Part 2 or Motion JPEG in `.avi`/`.mov`, per [UN]), but whenever
        /// `prepare` rewrites the file it re-encodes it to H.264: its carriage in MP4 is not what
        /// AVFoundation reliably plays. Codecs the model does not know fall here too (a profile's
        /// codec list decides whether they are allowed at all).
        case transcodedWhenRewritten
        /// A variant of a codec iOS plays that no Apple decoder takes (H.264 High 10, High 4:2:2,
        /// HEVC 4:4:4...): `unsupported-codec-profile`; `prepare` re-encodes it to 8-bit 4:2:0
        /// H.264, never copies it. The reason names the variant.
        case unsupportedVariant(String)
    }

    /// What happens to a sound stream in a container.
    enum Sound: Equatable, Sendable {
        /// AVFoundation plays this codec in this container.
        case plays
        /// It does not: the reason names codec and container.
        case unsupported(String)
        /// The model has no fact for this pair; the profile's codec list decides.
        case undecided
    }

    /// The verdict for the video stream of `info` (`nil` when it is not a video).
    static func video(_ info: MediaInfo) -> Video? {
        guard info.kind == .video, let codec = info.codec else { return nil }
        return video(codec: codec, profile: info.profile, chroma: info.chroma, bitDepth: info.bitDepth, hdr: info.hdr)
    }

    /// The verdict for a video stream of `codec` with this profile (libavcodec's number), chroma
    /// subsampling, bit depth and dynamic range; unknown facts (`nil`) are not held against it.
    /// PQ and HLG play wherever the codec variant does ([HLS] §1 Video lists HDR10, HLG and Dolby
    /// Vision 8.1/8.4 over HEVC Main 10, the latter two on their HDR10/HLG base layer); Dolby Vision
    /// with no compatible base layer (profile 5) shows right only under its own `dvh1` sample entry
    /// and with Dolby's reshaping, not as the `hvc1` HEVC AttachKit writes (``HDRInfo``).
    static func video(codec: Codec, profile: Int?, chroma: String?, bitDepth: Int?, hdr: HDRInfo? = nil) -> Video {
        if let hdr, hdr.format == .dolbyVision {
            return .unsupportedVariant("\(hdr.summary): no HDR10, HLG or SDR base layer (shown with wrong colours as HEVC)")
        }
        switch codec {
        case .h264: return h264(profile: profile, chroma: chroma, bitDepth: bitDepth)
        case .hevc: return hevc(profile: profile, chroma: chroma, bitDepth: bitDepth)
        default: return .transcodedWhenRewritten
        }
    }

    /// [HLS] 1.3: H.264 up to High profile, i.e. [ITU] 8-bit 4:2:0 (4:0:0 monochrome is allowed by
    /// High too, but Apple's decoders are only documented for 4:2:0: it is re-encoded).
    private static func h264(profile: Int?, chroma: String?, bitDepth: Int?) -> Video {
        let playable: Set<Int> = [CodecProfile.h264ConstrainedBaseline, CodecProfile.h264Baseline,
                                  CodecProfile.h264Main, CodecProfile.h264High]
        let described = describe("H.264", profile: profile, codec: .h264, chroma: chroma, bitDepth: bitDepth)
        if let profile, !playable.contains(profile) {
            return .unsupportedVariant("\(described): iOS decodes H.264 up to High profile (8-bit 4:2:0) only")
        }
        if (chroma.map { $0 != "4:2:0" } ?? false) || (bitDepth.map { $0 > 8 } ?? false) {
            return .unsupportedVariant("\(described): iOS decodes 8-bit 4:2:0 H.264 only")
        }
        return .copyable
    }

    /// [HLS] 1.6: HEVC up to Main 10, i.e. [ITU] 4:2:0 at 8 or 10 bits; range extensions (4:2:2,
    /// 4:4:4, 12-bit) are not played.
    private static func hevc(profile: Int?, chroma: String?, bitDepth: Int?) -> Video {
        let described = describe("HEVC", profile: profile, codec: .hevc, chroma: chroma, bitDepth: bitDepth)
        let playableProfile = profile.map { [CodecProfile.hevcMain, CodecProfile.hevcMain10].contains($0) } ?? true
        if !playableProfile || (chroma.map { $0 != "4:2:0" } ?? false) || (bitDepth.map { $0 > 10 } ?? false) {
            return .unsupportedVariant("\(described): iOS decodes HEVC Main and Main 10 (4:2:0, 8 or 10-bit) only")
        }
        return .copyable
    }

    /// "H.264 High 4:2:2 (4:2:2, 8-bit)".
    private static func describe(_ name: String, profile: Int?, codec: Codec, chroma: String?, bitDepth: Int?) -> String {
        let facts = [chroma, bitDepth.map { "\($0)-bit" }].compactMap { $0 }
        return name + (profile.map { " " + CodecProfile.name($0, codec: codec) } ?? "")
            + (facts.isEmpty ? "" : " (\(facts.joined(separator: ", ")))")
    }

    /// Sound codecs AVFoundation plays, per container family: AAC (LC, HE-AAC), ALAC, MP3, AC-3
    /// and E-AC-3 in the MPEG-4 family ([HLS] §4, [MPG]); MP3 in MP3 files; PCM in WAV and AIFF
    /// ([UN], [MPG]). Non-PCM payloads of a WAVE file (its format tag) are judged by
    /// ``wavePayload(_:)``, not here. AAC in any container must be an object type Apple decodes
    /// ([CA]: not Main, SSR or LTP).
    /// - Parameter profile: the codec profile (libavcodec's number) when known.
    static func sound(_ codec: Codec, profile: Int? = nil, in container: Container) -> Sound {
        if codec == .aac, let profile, [CodecProfile.aacMain, CodecProfile.aacSSR, CodecProfile.aacLTP].contains(profile) {
            return .unsupported("AAC \(CodecProfile.name(profile, codec: .aac)) profile: iOS decodes AAC-LC, HE-AAC (v1, v2), AAC-LD and AAC-ELD only")
        }
        let pcm = codec.rawValue.hasPrefix("pcm_")
        switch container {
        case .mp4, .m4a, .m4v, .mov:
            if mpeg4Sound.contains(codec) { return .plays }
            return pcm ? .undecided : .unsupported("\(codec) sound in \(container.rawValue.uppercased()) is not played by AVFoundation")
        case .mp3:
            return codec == .mp3 ? .plays : .undecided
        case .wav, .rf64:
            return pcm ? .plays : wavePayload(codec)
        case .aiff, .aifc:
            return pcm ? .plays : .undecided
        default:
            return .undecided
        }
    }

    /// Sound carried into MP4/M4A unchanged by `prepare` (and played there).
    static let mpeg4Sound: Set<Codec> = [.aac, .mp3, .alac, .ac3, .eac3]

    /// What a non-PCM payload in a WAVE file (MP3, ADPCM, GSM... under their format tags) means
    /// for playback: not decided here. ``WAVEFormatRule`` judges WAVE data (linear PCM only is
    /// handed over as `.wav`) for validate and, through validation, for prepare.
    static func wavePayload(_ codec: Codec) -> Sound { .undecided }

    /// Sample entry types AVFoundation reads each codec from in an MP4/MOV, for the codecs `prepare`
    /// copies (it takes the codec from the sample entry type, not the bitstream): ISO/IEC 14496-15
    /// §5.4 and §8.4 (`avc1`/`avc3`, `hvc1`/`hev1`), 14496-14 (`mp4a`), the ALAC, AC-3/E-AC-3 (ETSI
    /// TS 102 366 Annex F) and QuickTime (`.mp3`) registrations. HEVC must be `hvc1`: [HLS] 1.10,
    /// "HEVC video MUST be signaled with the 'hvc1' codec tag" (parameter sets in the sample entry),
    /// or `dvh1` for Dolby Vision (1.11: "'dvh1' ... for Dolby Vision profile 5 / 8").
    static let sampleEntries: [Codec: Set<String>] = [
        .h264: ["avc1", "avc3"], .hevc: ["hvc1", "dvh1"], .aac: ["mp4a"], .mp3: ["mp4a", ".mp3"], .alac: ["alac"],
        .ac3: ["ac-3"], .eac3: ["ec-3"],
    ]

    /// Why a stream of `codec` stored under sample entry `tag` in an ISO base media file will not
    /// play as it is (a stream copy writes the right type: `prepare` remuxes it); `nil` when the
    /// type is one AVFoundation knows for the codec, the codec is not one `prepare` copies, or the
    /// file is not ISO base media.
    static func sampleEntry(codec: Codec, tag: String?, in container: Container) -> String? {
        guard container.isISOBaseMedia, !container.isHEIF, let tag, let known = sampleEntries[codec], !known.contains(tag) else {
            return nil
        }
        return "\(Fix.name(codec)) in a '\(tag)' sample entry: iOS reads the codec from the sample entry and plays "
            + known.sorted().map { "'\($0)'" }.joined(separator: " or ") + " only"
    }

    /// JPEG coding processes (`SOFn` markers, ITU-T T.81 Table B.1) handed over as they are: the
    /// Huffman-coded DCT processes every JPEG decoder implements, baseline (`SOF0`), extended
    /// sequential (`SOF1`, baseline's decoding with more tables) and progressive (`SOF2`), at 8
    /// bits. [MPG] and [UN] name JPEG without its processes; lossless, arithmetic-coded and
    /// hierarchical JPEG are left out of that conservatively (libjpeg-turbo builds without
    /// arithmetic decoding exist; ImageIO's JPEG decoder is 8-bit): re-encoded when a decoder here
    /// reads them, refused by name otherwise (``JPEGFrameHeader/decoder``).
    static let playableJPEGProcesses: Set<Int> = [0xC0, 0xC1, 0xC2]

    /// The verdict for a still picture: a JPEG plays when its coding process is one of
    /// ``playableJPEGProcesses`` at 8 bits ([MPG] lists no 12-bit JPEG); otherwise it is
    /// re-encoded, and the reason names the process. `nil` when the picture plays (or the model
    /// has no fact about it).
    static func picture(_ info: MediaInfo) -> String? {
        guard info.kind == .image, info.codec == .jpeg else { return nil }
        if let marker = info.profile, !playableJPEGProcesses.contains(marker) {
            let process = JPEGFrameHeader.processName(marker: marker)
            return "\("aeiou".contains(process.prefix(1)) ? "an" : "a") \(process) JPEG: iOS decodes baseline and progressive (Huffman-coded) JPEG only"
        }
        guard let depth = info.bitDepth, depth > 8 else { return nil }
        return "\(depth)-bit JPEG: iOS decodes 8-bit JPEG only"
    }
}
