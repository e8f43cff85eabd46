/// Raw AAC (ADTS) layout, from the first frame (after any ID3v2 tag): every frame follows the
/// previous one directly with the same MPEG version, profile and sample rate, the last frame is
/// complete, and nothing but tags (ID3v2, APEv2, ID3v1, Lyrics3) sits between or after frames
/// (zero bytes from the last frame to the end are padding).
enum ADTSStructure {
    static func check(_ reader: borrowing FileReader, from start: Int64) -> StructureVerdict {
        var window = ByteWindow()
        let first = window.bytes(at: start, count: 7, in: reader)
        guard ADTSFrame(first, at: 0) != nil else {
            return .corrupt(reason: "no ADTS frame header at byte \(start)")
        }
        let audioEnd = AudioTagStructure.trailingTagsStart(reader, floor: start)
        var position = start
        var frames = 0
        while position < audioEnd {
            let header = window.bytes(at: position, count: 7, in: reader)
            if let frame = ADTSFrame(header, at: 0), sameStream(header, first) {
                let length = Int64(frame.length)
                guard length <= audioEnd - position else {
                    return .corrupt(reason: "frame \(frames + 1) at byte \(position) needs \(length) bytes but the audio ends at byte \(audioEnd) (truncated)")
                }
                position += length
                frames += 1
            } else if let tag = AudioTagStructure.tagLength(reader, at: position), tag <= audioEnd - position {
                position += tag
            } else if StructureChecker.isZeroFilled(reader, from: position, to: audioEnd) {
                break  // Zero padding up to the end (or the trailing tags).
            } else {
                return .corrupt(reason: "no ADTS frame sync at byte \(position) after \(frames) frame(s): garbage between frames")
            }
        }
        return .intact
    }

    /// MPEG version, profile and sample-rate index match the first frame.
    private static func sameStream(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.u8(1) & 0x08 == b.u8(1) & 0x08 && a.u8(2) & 0xFC == b.u8(2) & 0xFC
    }
}
