/// What the probe needs from an H.264 sequence parameter set (ITU-T H.264 § 7.3.2.1.1): profile,
/// constraint flags, level, chroma format, bit depth, and whether the picture is full range
/// (VUI `video_full_range_flag`). Everything after the VUI's colour description is left unread.
struct H264SequenceParameters: Equatable {
    var profileIDC: Int
    /// `constraint_set0_flag` in bit 0 ... `constraint_set5_flag` in bit 5.
    var constraintFlags: Int
    var levelIDC: Int
    var chromaFormat: Int
    var bitDepth: Int
    /// `video_full_range_flag` when the VUI carries a video signal type; `nil` when it does not.
    var fullRange: Bool?
    /// `matrix_coefficients` when the VUI carries a colour description.
    var matrix: Int?

    /// Profiles whose SPS carries chroma format, bit depths and scaling matrices.
    static let highProfiles: Set<Int> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// Parses the SPS NAL unit `nal` (header byte included); `nil` when it is not an SPS or ends early.
    init?(nal: ArraySlice<UInt8>) {
        guard let header = nal.first, header & 0x1F == 7 else { return nil }
        var r = RBSPReader(nal: nal, headerBytes: 1)
        guard let profile = r.bits(8), let flags = r.bits(8), let level = r.bits(8), r.unsigned() != nil else { return nil }
        profileIDC = Int(profile)
        // The six flags are the top bits of the byte, set0 first.
        constraintFlags = (0..<6).reduce(0) { $0 | (Int(flags >> (7 - UInt32($1))) & 1) << $1 }
        levelIDC = Int(level)
        chromaFormat = 1
        bitDepth = 8
        if Self.highProfiles.contains(profileIDC) {
            guard let chroma = r.unsigned(), chroma <= 3 else { return nil }
            chromaFormat = Int(chroma)
            if chroma == 3 { guard r.flag() != nil else { return nil } }
            guard let luma = r.unsigned(), luma <= 6, r.unsigned() != nil, r.flag() != nil, let scaling = r.flag() else { return nil }
            bitDepth = 8 + Int(luma)
            if scaling {
                for list in 0..<(chroma != 3 ? 8 : 12) {
                    guard let present = r.flag() else { return nil }
                    if present { guard Self.skipScalingList(&r, size: list < 6 ? 16 : 64) else { return nil } }
                }
            }
        }
        guard r.unsigned() != nil, let pocType = r.unsigned() else { return nil }
        switch pocType {
        case 0:
            guard r.unsigned() != nil else { return nil }
        case 1:
            guard r.flag() != nil, r.signed() != nil, r.signed() != nil, let cycle = r.unsigned(), cycle <= 255 else { return nil }
            for _ in 0..<cycle { guard r.signed() != nil else { return nil } }
        case 2:
            break
        default:
            return nil
        }
        guard r.unsigned() != nil, r.flag() != nil, r.unsigned() != nil, r.unsigned() != nil, let frameOnly = r.flag() else { return nil }
        if !frameOnly { guard r.flag() != nil else { return nil } }
        guard r.flag() != nil, let cropping = r.flag() else { return nil }
        if cropping { for _ in 0..<4 { guard r.unsigned() != nil else { return nil } } }
        guard let vui = r.flag() else { return nil }
        fullRange = nil
        matrix = nil
        guard vui else { return }
        guard let aspect = r.flag() else { return nil }
        if aspect {
            guard let idc = r.bits(8) else { return nil }
            if idc == 255 { guard r.bits(32) != nil else { return nil } }
        }
        guard let overscan = r.flag() else { return nil }
        if overscan { guard r.flag() != nil else { return nil } }
        guard let signal = r.flag() else { return nil }
        guard signal else { return }
        guard r.bits(3) != nil, let range = r.flag(), let described = r.flag() else { return nil }
        fullRange = range
        if described {
            guard r.bits(16) != nil, let coefficients = r.bits(8) else { return nil }
            matrix = Int(coefficients)
        }
    }

    /// Skips one `scaling_list()` (§ 7.3.2.1.1.1); `false` when the bits run out.
    private static func skipScalingList(_ r: inout RBSPReader, size: Int) -> Bool {
        var last = 8, next = 8
        for _ in 0..<size {
            if next != 0 {
                guard let delta = r.signed() else { return false }
                next = ((last + delta) % 256 + 256) % 256
            }
            last = next == 0 ? last : next
        }
        return true
    }
}
