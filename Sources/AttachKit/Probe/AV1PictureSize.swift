/// The largest picture an AV1 sequence header allows (`max_frame_width_minus_1 + 1` ×
/// `max_frame_height_minus_1 + 1`, AV1 §5.5.1), read from the first OBUs of an AVIF item's data
/// or an `av1C` record's `configOBUs`: what the decoder may allocate, whatever the container's
/// `ispe` says. A 3.4 KB AVIF whose `ispe` said 100×100 over a 14000×14000 sequence was judged
/// by the 100×100 and decoded to 1.9 GB.
enum AV1PictureSize {
    /// The size in the first sequence header OBU of `bytes` (OBUs with size fields, as AVIF
    /// stores them); `nil` when there is none that parses.
    static func of(obus bytes: [UInt8]) -> (width: Int, height: Int)? {
        var position = 0
        for _ in 0..<4 {
            guard position < bytes.count else { return nil }
            let header = bytes[position]
            let type = (header >> 3) & 0x0F
            let hasExtension = header & 0x04 != 0
            let hasSize = header & 0x02 != 0
            position += hasExtension ? 2 : 1
            var size = bytes.count - position
            if hasSize {
                guard let (value, length) = leb128(bytes, at: position) else { return nil }
                position += length
                size = value
            }
            guard size >= 0, position + size <= bytes.count || !hasSize else { return nil }
            if type == 1 { return sequenceHeader(Array(bytes[position..<min(bytes.count, position + size)])) }
            guard hasSize else { return nil }
            position += size
        }
        return nil
    }

    /// The maximum frame size of a sequence header OBU's payload.
    static func sequenceHeader(_ payload: [UInt8]) -> (width: Int, height: Int)? {
        var bits = RBSPReader(raw: payload[...])
        guard bits.skip(3), let stillPicture = bits.bits(1), let reduced = bits.bits(1) else { return nil }
        _ = stillPicture
        if reduced == 1 {
            guard bits.skip(5) else { return nil }
        } else {
            guard let timing = bits.bits(1) else { return nil }
            var decoderModel: UInt32 = 0
            var bufferDelayLength = 0
            if timing == 1 {
                guard bits.skip(64), let equal = bits.bits(1) else { return nil }
                if equal == 1 { guard bits.uvlc() != nil else { return nil } }
                guard let present = bits.bits(1) else { return nil }
                decoderModel = present
                if present == 1 {
                    guard let length = bits.bits(5), bits.skip(32 + 5 + 5) else { return nil }
                    bufferDelayLength = Int(length) + 1
                }
            }
            guard let displayDelay = bits.bits(1), let points = bits.bits(5) else { return nil }
            for _ in 0...points {
                guard bits.skip(12), let level = bits.bits(5) else { return nil }
                if level > 7 { guard bits.skip(1) else { return nil } }
                if decoderModel == 1 {
                    guard let present = bits.bits(1) else { return nil }
                    if present == 1 { guard bits.skip(2 * bufferDelayLength + 1) else { return nil } }
                }
                if displayDelay == 1 {
                    guard let present = bits.bits(1) else { return nil }
                    if present == 1 { guard bits.skip(4) else { return nil } }
                }
            }
        }
        guard let widthBits = bits.bits(4), let heightBits = bits.bits(4),
              let width = bits.bits(Int(widthBits) + 1), let height = bits.bits(Int(heightBits) + 1) else { return nil }
        return (Int(width) + 1, Int(height) + 1)
    }

    /// An unsigned LEB128 number at `offset` (at most 8 bytes) and its length.
    private static func leb128(_ bytes: [UInt8], at offset: Int) -> (Int, Int)? {
        var value = 0
        for index in 0..<8 {
            guard offset + index < bytes.count else { return nil }
            let byte = bytes[offset + index]
            value |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        return nil
    }
}
