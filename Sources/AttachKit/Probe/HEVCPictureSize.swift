/// The picture size an HEVC sequence parameter set codes (`pic_width_in_luma_samples`,
/// `pic_height_in_luma_samples`, H.265 §7.3.2.2), read from the SPS in an `hvcC` record: what the
/// decoder allocates, whatever the container's `ispe` says. A 40 KB HEIC whose `ispe` said 64×64
/// over a 13000×13000 picture was judged by the 64×64 and decoded to 1 GB.
enum HEVCPictureSize {
    /// The size in the first SPS of an `hvcC` box's body (`record`: its bytes after the box
    /// header); `nil` when the record holds no SPS that parses.
    static func of(hvcC record: [UInt8]) -> (width: Int, height: Int)? {
        guard record.count > 23 else { return nil }
        var position = 23
        for _ in 0..<Int(record[22]) {
            guard position + 3 <= record.count else { return nil }
            let type = record[position] & 0x3F
            let count = Int(record.be16(position + 1))
            position += 3
            for _ in 0..<count {
                guard position + 2 <= record.count else { return nil }
                let length = Int(record.be16(position))
                position += 2
                guard position + length <= record.count else { return nil }
                if type == 33 { return size(sps: record[position..<(position + length)]) }
                position += length
            }
        }
        return nil
    }

    /// The size in one SPS NAL unit (its 2-byte header first).
    static func size(sps nal: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
        guard nal.count > 2 else { return nil }
        var bits = RBSPBits(nal.dropFirst(2))
        guard bits.skip(4) else { return nil }                         // sps_video_parameter_set_id
        guard let maxSubLayersMinus1 = bits.read(3), bits.skip(1) else { return nil }  // temporal_id_nesting
        // profile_tier_level(1, maxSubLayersMinus1): 88 bits of general profile, 8 of level.
        guard bits.skip(96) else { return nil }
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let profile = bits.read(1), let level = bits.read(1) else { return nil }
            profilePresent.append(profile == 1)
            levelPresent.append(level == 1)
        }
        if maxSubLayersMinus1 > 0 { guard bits.skip(2 * (8 - Int(maxSubLayersMinus1))) else { return nil } }
        for layer in 0..<Int(maxSubLayersMinus1) {
            if profilePresent[layer] { guard bits.skip(88) else { return nil } }
            if levelPresent[layer] { guard bits.skip(8) else { return nil } }
        }
        guard bits.exponentialGolomb() != nil, let chroma = bits.exponentialGolomb() else { return nil }  // sps id, chroma_format_idc
        if chroma == 3 { guard bits.skip(1) else { return nil } }     // separate_colour_plane_flag
        guard let width = bits.exponentialGolomb(), let height = bits.exponentialGolomb(),
              width > 0, height > 0, width <= UInt64(Int32.max), height <= UInt64(Int32.max) else { return nil }
        return (Int(width), Int(height))
    }
}

/// Bits of a NAL unit's payload, most significant first, with the emulation prevention bytes
/// (`00 00 03`) taken out as they are met (or, for AV1, which has none, every byte read).
struct RBSPBits {
    private let bytes: ArraySlice<UInt8>
    private let emulationPrevention: Bool
    private var index: Int
    private var bit = 0
    private var zeros = 0
    private var current: UInt8 = 0

    init(_ bytes: ArraySlice<UInt8>, emulationPrevention: Bool = true) {
        self.bytes = bytes
        self.emulationPrevention = emulationPrevention
        index = bytes.startIndex
    }

    /// AV1's `uvlc()` (§4.10.3); `nil` past the end or over 32 leading zeros.
    mutating func uvlc() -> UInt64? {
        var leading = 0
        while true {
            guard let next = read(1) else { return nil }
            if next == 1 { break }
            leading += 1
            guard leading < 32 else { return nil }
        }
        guard let rest = read(leading) else { return nil }
        return (UInt64(1) << leading) - 1 + UInt64(rest)
    }

    /// The next `count` bits (at most 32) as a number; `nil` past the end.
    mutating func read(_ count: Int) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let next = nextBit() else { return nil }
            value = value << 1 | UInt32(next)
        }
        return value
    }

    /// Skips `count` bits; `false` past the end.
    mutating func skip(_ count: Int) -> Bool {
        for _ in 0..<count where nextBit() == nil { return false }
        return true
    }

    /// An unsigned Exp-Golomb number (`ue(v)`); `nil` past the end or over 32 leading zeros.
    mutating func exponentialGolomb() -> UInt64? {
        var leading = 0
        while true {
            guard let next = nextBit() else { return nil }
            if next == 1 { break }
            leading += 1
            guard leading <= 32 else { return nil }
        }
        guard let rest = read(leading) else { return nil }
        return (UInt64(1) << leading) - 1 + UInt64(rest)
    }

    private mutating func nextBit() -> UInt8? {
        if bit == 0 {
            guard index < bytes.endIndex else { return nil }
            current = bytes[index]
            index += 1
            // 00 00 03: the 03 is an emulation prevention byte, not data.
            if emulationPrevention, zeros >= 2, current == 3 {
                zeros = 0
                guard index < bytes.endIndex else { return nil }
                current = bytes[index]
                index += 1
            }
            zeros = current == 0 ? zeros + 1 : 0
            bit = 8
        }
        bit -= 1
        return (current >> UInt8(bit)) & 1
    }
}
