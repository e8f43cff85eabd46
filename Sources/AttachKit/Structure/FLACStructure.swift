/// Native FLAC layout, from `fLaC` (after any ID3v2 tag): a 34-byte `STREAMINFO` block first
/// (a maximum block size of at least 16, minimum ≤ maximum, a non-zero sample rate), a chain of
/// metadata blocks inside the file ending with the one flagged "last", then a valid frame header
/// (sync code `0xFFF8`/`0xFFF9`, CRC-8). Frames carry no length, so they are not walked; instead
/// the last frame must end exactly at the end of the audio, at the sample count STREAMINFO declares
/// (``lastFrameProblem(_:audioStart:nominalBlockSize:totalSamples:)``). A stream of 32-bit samples
/// is one FFmpeg 5.1 cannot decode (``StructureVerdict/cannotDecode(_:decoder:)``).
enum FLACStructure {
    static func check(_ reader: borrowing FileReader, from start: Int64) -> StructureVerdict {
        guard reader.read(at: start, count: 4).matches("fLaC", at: 0) else {
            return .corrupt(reason: "no fLaC signature at byte \(start)")
        }
        var position = start + 4
        var blocks = 0
        var totalSamples: UInt64 = 0
        var nominalBlockSize: UInt64 = 0
        var bitsPerSample = 0
        while true {
            let header = reader.read(at: position, count: 4)
            guard header.count == 4 else {
                return .corrupt(reason: "metadata block header at byte \(position) is cut off by the end of the file (truncated)")
            }
            let isLast = header[0] & 0x80 != 0
            let type = header[0] & 0x7F
            let length = Int64(header.be24(1))
            guard type != 127 else { return .corrupt(reason: "invalid metadata block type 127 at byte \(position)") }
            guard length <= reader.size - position - 4 else {
                return .corrupt(reason: "metadata block \(blocks + 1) (type \(type)) at byte \(position) claims \(length) bytes but the file ends at byte \(reader.size) (truncated)")
            }
            if blocks == 0 {
                guard type == 0, length == 34 else {
                    return .corrupt(reason: "the first metadata block (byte \(position)) is not a 34-byte STREAMINFO")
                }
                let info = reader.read(at: position + 4, count: 34)
                let minimumBlock = info.be16(0), maximumBlock = info.be16(2)
                let sampleRate = info.be24(10) >> 4
                guard maximumBlock >= 16, minimumBlock <= maximumBlock, sampleRate > 0 else {
                    return .corrupt(reason: "STREAMINFO at byte \(position) is invalid (block sizes \(minimumBlock)...\(maximumBlock), sample rate \(sampleRate))")
                }
                totalSamples = UInt64(info.u8(13) & 0x0F) << 32 | UInt64(info.be32(14))
                bitsPerSample = Int((info.u8(12) & 0x01) << 4 | info.u8(13) >> 4) + 1
                nominalBlockSize = UInt64(maximumBlock)
            } else if type == 0 {
                return .corrupt(reason: "a second STREAMINFO block at byte \(position)")
            }
            blocks += 1
            position += 4 + length
            if isLast { break }
        }
        // FLAC allows 32-bit samples (libFLAC 1.4); FFmpeg 5.1 decodes up to 24 bits and gives
        // nothing for 32: not damage, a decoder this machine lacks.
        if bitsPerSample == 32 { return .cannotDecode("32-bit FLAC") }
        if position == reader.size, totalSamples == 0 { return .intact }  // An empty stream.
        let first = reader.read(at: position, count: 24)
        guard first.count >= 2, first.be16(0) & 0xFFFE == 0xFFF8 else {
            if first.isEmpty {
                return .corrupt(reason: "no audio frames after the metadata (the file ends at byte \(reader.size))")
            }
            return .corrupt(reason: "no FLAC frame sync at byte \(position) after the metadata blocks")
        }
        guard frameHeader(first, at: 0) != nil else {
            return .corrupt(reason: "the first frame header (byte \(position)) is invalid or fails its CRC-8")
        }
        if let problem = lastFrameProblem(reader, audioStart: position, nominalBlockSize: nominalBlockSize, totalSamples: totalSamples) {
            return .corrupt(reason: problem)
        }
        return .intact
    }
}
