/// AIFF and AIFF-C layout: the `FORM` size against the file size, every chunk inside the form
/// (odd sizes padded to even), a `COMM` chunk of the right size (18 bytes, 22 for AIFF-C), and an
/// `SSND` chunk inside the file whenever `COMM` declares sample frames. A file with no sound at
/// all (`COMM` declaring 0 sample frames, or an `SSND` holding less than one sample frame after
/// its offset; any byte at all for AIFF-C, whose frames may be compressed) is refused as "no samples".
///
/// A form size one byte past the end of the file is accepted (a last odd-sized chunk without its
/// pad byte), and so are fewer than 8 zero bytes where no chunk header fits; bytes after the form
/// are not checked.
enum AIFFStructure {
    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        let header = reader.read(at: 0, count: 12)
        guard header.count == 12, header.matches("FORM", at: 0) else {
            return .corrupt(reason: "the FORM header needs 12 bytes but the file has \(reader.size) (truncated)")
        }
        let compressed = header.matches("AIFC", at: 8)
        guard compressed || header.matches("AIFF", at: 8) else {
            return .corrupt(reason: "FORM type is not AIFF or AIFC")
        }
        let formEnd = 8 + Int64(header.be32(4))
        guard formEnd <= reader.size + 1 else {
            return .corrupt(reason: "the FORM size says the file has \(formEnd) bytes but it ends at byte \(reader.size) (truncated)")
        }
        let end = min(formEnd, reader.size)
        var position: Int64 = 12
        var sampleFrames: UInt32?
        var frameBytes: Int64 = 1
        var soundData: (offset: Int64, bytes: Int64)?
        while position < end {
            let chunk = reader.read(at: position, count: 16)
            guard end - position >= 8, chunk.count >= 8 else {
                if StructureChecker.isZeroFilled(reader, from: position, to: end) { break }
                return .corrupt(reason: "\(end - position) stray byte(s) at byte \(position) where a chunk header should be (truncated chunk)")
            }
            let id = chunk.ascii(0, 4)
            guard (0..<4).allSatisfy({ (0x20...0x7E).contains(chunk.u8($0)) }) else {
                return .corrupt(reason: "invalid chunk id at byte \(position)")
            }
            let size = Int64(chunk.be32(4))
            guard size <= end - position - 8 else {
                return .corrupt(reason: "chunk '\(id)' at byte \(position) claims \(size) bytes but only \(end - position - 8) remain (the file ends at byte \(reader.size))")
            }
            switch id {
            case "COMM":
                let needed: Int64 = compressed ? 22 : 18
                guard size >= needed else {
                    return .corrupt(reason: "COMM chunk at byte \(position) has \(size) bytes, fewer than the \(needed) it needs")
                }
                guard chunk.be16(8) > 0 else {
                    return .corrupt(reason: "COMM chunk at byte \(position) declares zero channels")
                }
                sampleFrames = chunk.be32(10)
                if !compressed { frameBytes = max(1, Int64(chunk.be16(8)) * ((Int64(chunk.be16(14)) + 7) / 8)) }
            case "SSND":
                guard size >= 8 else {
                    return .corrupt(reason: "SSND chunk at byte \(position) has \(size) bytes, fewer than its 8-byte header")
                }
                soundData = (position, size - 8 - Int64(chunk.be32(8)))
            default:
                break
            }
            position += 8 + size + (size & 1)
        }
        guard let sampleFrames else { return .corrupt(reason: "no COMM chunk") }
        guard sampleFrames > 0 else { return .noSamples("COMM declares 0 sample frames") }
        guard let soundData else {
            return .corrupt(reason: "COMM declares \(sampleFrames) sample frames but there is no SSND chunk")
        }
        guard soundData.bytes >= frameBytes else {
            return .noSamples("the SSND chunk at byte \(soundData.offset) holds \(max(0, soundData.bytes)) byte(s) of sound, less than one sample frame (\(frameBytes) bytes)")
        }
        return .intact
    }
}
