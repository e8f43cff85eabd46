/// A video's high dynamic range, read from its stream's colour tags and side data (the probe's
/// `hdr` keys). `nil` in ``MediaInfo/hdr`` means standard dynamic range (or nothing says otherwise).
///
/// What AttachKit does with each format (README, "What plays"): PQ and HLG HEVC Main 10 that fits
/// the profile is stream-copied (iOS plays it, tags and metadata intact); whenever the picture is
/// decoded (a re-encode to 8-bit H.264, a poster frame) it is tone-mapped to SDR BT.709
/// (``ToneMapping``). Dolby Vision with an HDR10 (8.1) or HLG (8.4) compatible base layer is that
/// base layer (its RPU rides along in a stream copy, and is ignored when decoding). Dolby Vision
/// with no compatible base layer (profile 5: IPTPQc2, shown with wrong colours by any decoder that
/// does not apply the RPU's reshaping, which FFmpeg 5.1 does not) is refused rather than copied
/// under an `hvc1` tag or converted with wrong colours.
public struct HDRInfo: Sendable, Equatable {
    /// How the pictures' brightness is coded.
    public enum Format: String, Sendable, Equatable {
        /// SMPTE ST 2084 perceptual quantizer (H.273 transfer 16): HDR10, HDR10+, Dolby Vision 8.1.
        case pq
        /// ARIB STD-B67 hybrid log-gamma (H.273 transfer 18): HLG, Dolby Vision 8.4 (iPhone HDR video).
        case hlg
        /// Dolby Vision whose base layer is neither HDR10, HLG nor SDR (profile 5).
        case dolbyVision = "dolby-vision"

        /// As notes and messages name it: "PQ", "HLG", "Dolby Vision".
        public var name: String {
            switch self {
            case .pq: return "PQ"
            case .hlg: return "HLG"
            case .dolbyVision: return "Dolby Vision"
            }
        }
    }

    public var format: Format
    /// The Dolby Vision configuration record's profile and base-layer compatibility id (`"8.1"`,
    /// `"8.4"`, `"5"`...), `nil` without one.
    public var dolbyVision: String?
    /// The mastering display's luminance, cd/m² (SMPTE ST 2086, `mdcv`), when the stream carries it.
    public var masteringLuminance: ClosedRange<Double>?
    /// Content light level, cd/m² (CTA-861.3, `clli`): brightest pixel and brightest frame average.
    public var maxCLL: Int?
    public var maxFALL: Int?

    public init(format: Format, dolbyVision: String? = nil) {
        self.format = format
        self.dolbyVision = dolbyVision
    }

    /// H.273 transfer characteristics code points.
    public enum Transfer {
        public static let pq = 16
        public static let hlg = 18
    }

    /// The HDR format of a stream with H.273 transfer `transfer` and, when it has a Dolby Vision
    /// configuration record, that record's `profile` and `compatibility` (`dv_bl_signal_compatibility_id`:
    /// 0 none, 1 HDR10, 2 SDR BT.709, 4 HLG, 6 Blu-ray HDR10); `nil` for standard dynamic range.
    /// A Dolby Vision base layer decides over the tags: an SDR one (8.2) is SDR, none (profile 5) is
    /// ``Format/dolbyVision``.
    public static func format(transfer: Int, dolbyVision: (profile: Int, compatibility: Int)?) -> Format? {
        if let dolbyVision {
            switch dolbyVision.compatibility {
            case 1, 6: return .pq
            case 4: return .hlg
            case 2: return nil
            default: return .dolbyVision
            }
        }
        switch transfer {
        case Transfer.pq: return .pq
        case Transfer.hlg: return .hlg
        default: return nil
        }
    }

    /// "PQ", "HLG, Dolby Vision 8.4", "Dolby Vision 5".
    public var summary: String {
        guard let dolbyVision else { return format.name }
        return format == .dolbyVision ? "Dolby Vision \(dolbyVision)" : "\(format.name), Dolby Vision \(dolbyVision)"
    }
}
