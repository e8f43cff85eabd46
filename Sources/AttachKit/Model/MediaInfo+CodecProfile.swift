/// Codec profiles as libavcodec numbers them (`AVCodecParameters.profile`: the `FF_PROFILE_*`
/// values of libavcodec/avcodec.h, FFmpeg 5.1), named by libavcodec as `ffprobe` names them.
enum CodecProfile {
    // H.264 (ITU-T H.264 Annex A `profile_idc`; FFmpeg adds 0x200 for constrained, 0x800 for intra).
    static let h264Baseline = 66
    static let h264ConstrainedBaseline = 66 | 0x200
    static let h264Main = 77
    static let h264Extended = 88
    static let h264High = 100
    static let h264High10 = 110
    static let h264High10Intra = 110 | 0x800
    static let h264High422 = 122
    static let h264High422Intra = 122 | 0x800
    static let h264High444 = 144
    static let h264High444Predictive = 244
    static let h264High444Intra = 244 | 0x800
    static let h264CAVLC444 = 44

    // HEVC (ITU-T H.265 Annex A `general_profile_idc`).
    static let hevcMain = 1
    static let hevcMain10 = 2
    static let hevcMainStillPicture = 3
    /// Format range extensions: 4:2:2, 4:4:4, 12-bit and more.
    static let hevcRangeExtensions = 4

    // AAC (ISO/IEC 14496-3 audio object type − 1; FFmpeg's FF_PROFILE_AAC_*).
    static let aacMain = 0
    static let aacLow = 1
    static let aacSSR = 2
    static let aacLTP = 3
    static let aacHE = 4
    static let aacHEv2 = 28
    static let aacLD = 22
    static let aacELD = 38

    /// The profile's name as libavcodec gives it, so as `ffprobe` prints it, for every codec
    /// (`"High 4:2:2"`, `"Main 10"`, `"Profile 2"` for VP9, `"Main"` for AV1 and MPEG-2,
    /// `"Simple Profile"` for MPEG-4 Part 2); `"profile N"` for a number libavcodec does not name.
    static func name(_ profile: Int, codec: Codec) -> String {
        FFmpegLibrary.profileName(profile, codec: codec) ?? "profile \(profile)"
    }
}

extension MediaInfo {
    /// The video's profile by name (`"High 10"`), or a JPEG's coding process (`"progressive
    /// (SOF2)"`), for reports; `nil` when unknown.
    var profileName: String? {
        guard let profile else { return nil }
        if kind == .image, codec == .jpeg { return JPEGFrameHeader.processName(marker: profile) }
        guard let codec = kind == .video ? codec : nil else { return nil }
        return CodecProfile.name(profile, codec: codec)
    }
}

/// Names of channel layouts, as FFmpeg's `av_channel_layout_describe` gives them for the native
/// layouts it names (libavutil/channel_layout.c, FFmpeg 5.1).
enum ChannelLayout {
    private static let names: [UInt64: String] = [
        0x4: "mono", 0x3: "stereo", 0xB: "2.1", 0x7: "3.0", 0x103: "3.0(back)", 0x107: "4.0", 0x33: "quad",
        0x603: "quad(side)", 0xF: "3.1", 0x37: "5.0", 0x607: "5.0(side)", 0x10F: "4.1", 0x3F: "5.1",
        0x60F: "5.1(side)", 0x707: "6.0", 0x70F: "6.1", 0x13F: "6.1(back)", 0x637: "7.0", 0x63F: "7.1",
        0xFF: "7.1(wide)", 0x6CF: "7.1(wide-side)", 0x60B: "2.2",
    ]

    /// The layout's name for a native channel `mask`; `"N channels"` when there is no mask or it
    /// has no name (`"mono"`/`"stereo"` for 1 or 2 channels without a mask).
    static func name(mask: UInt64?, channels: Int) -> String? {
        if let mask, let name = names[mask] { return name }
        switch channels {
        case ..<1: return nil
        case 1 where mask == nil: return "mono"
        case 2 where mask == nil: return "stereo"
        default: return "\(channels) channels"
        }
    }
}
