/// What FFmpeg 5.1's AAC decoder outputs for one ADTS frame, read from the first syntactic
/// elements of its raw data block (ISO/IEC 14496-3 § 4.4.2.1): a frame outputs samples only when
/// it holds a channel element (SCE, CPE, CCE or LFE; a PCE is taken to precede one). A frame
/// whose payload is empty (a bare header) or holds only fill and data stream elements before its
/// END decodes to nothing. A fill element stamped `libfaac N.N` (libfaac's encoder delay) makes
/// the decoder drop the next 1024 samples it outputs (`decode_fill` sets `skip_samples`).
/// Reads at most ``maximumBytes`` of the payload; never traps on short or hostile bytes.
enum ADTSPayload {
    /// Payload bytes read at most: a fill element is at most 269 bytes, a data stream element 510.
    static let maximumBytes = 1024

    /// Whether the decoder outputs samples for the payload `bytes[index..<index + count]`, and
    /// whether it carries libfaac's stamp. Elements it cannot read to the end (more than
    /// ``maximumBytes``, or cut short) count as audio: the decoder, not this scan, decides them.
    static func read(_ bytes: [UInt8], at index: Int, count: Int) -> (audio: Bool, libfaac: Bool) {
        guard count > 0, index >= 0, index < bytes.count else { return (false, false) }
        let first = bytes[index] >> 5
        if first != 4, first != 6, first != 7 { return (true, false) }  // SCE, CPE, CCE, LFE, PCE: the common case
        var bits = Bits(bytes, from: index, count: min(count, maximumBytes, bytes.count - index))
        var libfaac = false
        while let element = bits.read(3) {
            switch element {
            case 7: return (false, libfaac)  // END before any channel element
            case 4:  // DSE: element_instance_tag, data_byte_align_flag, count (+ esc_count)
                guard bits.read(4) != nil, let align = bits.read(1), var length = bits.read(8) else { return (true, libfaac) }
                if length == 255 {
                    guard let more = bits.read(8) else { return (true, libfaac) }
                    length += more
                }
                if align == 1 { bits.align() }
                guard bits.skip(length * 8) else { return (true, libfaac) }
            case 6:  // FIL: count (+ esc_count - 1), then that many bytes of extension payload
                guard var length = bits.read(4) else { return (true, libfaac) }
                if length == 15 {
                    guard let more = bits.read(8) else { return (true, libfaac) }
                    length += more - 1
                }
                var stamp = bits
                if length * 8 - 4 >= 13 + 7 * 8, stamp.read(4) == 0, stamp.skip(13) {  // EXT_FILL, then decode_fill's 13 bits
                    libfaac = libfaac || Array("libfaac ".utf8).allSatisfy { stamp.read(8) == Int($0) }
                }
                guard bits.skip(length * 8) else { return (true, libfaac) }
            default:
                return (true, libfaac)
            }
        }
        return (true, libfaac)
    }

    /// Most-significant-bit-first reads over part of a byte array (no copy).
    private struct Bits {
        let bytes: [UInt8]
        let start: Int
        let end: Int
        var bit = 0

        init(_ bytes: [UInt8], from start: Int, count: Int) {
            self.bytes = bytes
            self.start = start
            end = start + max(0, count)
        }

        mutating func read(_ count: Int) -> Int? {
            guard start * 8 + bit + count <= end * 8 else { return nil }
            var value = 0
            for _ in 0..<count {
                let position = start * 8 + bit
                value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
                bit += 1
            }
            return value
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, start * 8 + bit + count <= end * 8 else { return false }
            bit += count
            return true
        }

        mutating func align() { bit = (bit + 7) & ~7 }
    }
}
