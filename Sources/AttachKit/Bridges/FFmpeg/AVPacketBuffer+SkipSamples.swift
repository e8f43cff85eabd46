import CFFmpeg

extension AVPacketBuffer {
    /// Raises the leading skip a packet's `AV_PKT_DATA_SKIP_SAMPLES` side data asks for to at least
    /// 529 samples (the MP3 decoder's own delay), leaving its trailing skip as it is. FFmpeg 5.1's
    /// MP3 muxer takes the encoder delay for the copy's LAME tag from the first packet carrying
    /// that side data, as its leading skip less 529, with no floor: a copy cut from mid-file that
    /// reaches the last frame (whose side data holds only the end padding, leading skip 0) was
    /// tagged with a delay of −529 (3567 in 12 bits), and its first 3567 samples were lost on
    /// decoding (outside tester, round 56).
    func raiseLeadingSkip(toAtLeast samples: UInt32 = 529) {
        let packet = pointer.pointee
        guard let sides = packet.side_data else { return }
        for index in 0..<Int(packet.side_data_elems) where sides[index].type == AV_PKT_DATA_SKIP_SAMPLES && sides[index].size >= 4 {
            guard let data = sides[index].data else { continue }
            let leading = UInt32(data[0]) | UInt32(data[1]) << 8 | UInt32(data[2]) << 16 | UInt32(data[3]) << 24
            guard leading < samples else { continue }
            for byte in 0..<4 { data[byte] = UInt8(truncatingIfNeeded: samples >> (8 * UInt32(byte))) }
        }
    }
}
