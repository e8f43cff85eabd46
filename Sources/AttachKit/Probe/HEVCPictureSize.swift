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
        var bits = RBSPReader(nal: nal, headerBytes: 2)
        guard bits.skip(4) else { return nil }                         // sps_video_parameter_set_id
        guard let maxSubLayersMinus1 = bits.bits(3), bits.skip(1) else { return nil }  // temporal_id_nesting
        // profile_tier_level(1, maxSubLayersMinus1): 88 bits of general profile, 8 of level.
        guard bits.skip(96) else { return nil }
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let profile = bits.bits(1), let level = bits.bits(1) else { return nil }
            profilePresent.append(profile == 1)
            levelPresent.append(level == 1)
        }
        if maxSubLayersMinus1 > 0 { guard bits.skip(2 * (8 - Int(maxSubLayersMinus1))) else { return nil } }
        for layer in 0..<Int(maxSubLayersMinus1) {
            if profilePresent[layer] { guard bits.skip(88) else { return nil } }
            if levelPresent[layer] { guard bits.skip(8) else { return nil } }
        }
        guard bits.unsigned() != nil, let chroma = bits.unsigned() else { return nil }  // sps id, chroma_format_idc
        if chroma == 3 { guard bits.skip(1) else { return nil } }     // separate_colour_plane_flag
        guard let width = bits.unsigned(), let height = bits.unsigned(),
              width > 0, height > 0, width <= UInt32(Int32.max), height <= UInt32(Int32.max) else { return nil }
        return (Int(width), Int(height))
    }
}
