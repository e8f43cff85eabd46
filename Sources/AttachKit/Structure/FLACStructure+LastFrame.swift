extension FLACStructure {
    /// How far back from the end the last frame header is looked for (real frames are a few KB to
    /// a few hundred KB).
    static let lastFrameWindow = 1 << 20
    /// Candidate headers tried before giving up (each costs a CRC over the rest of the window).
    private static let maximumCandidates = 64

    /// One decoded frame header.
    struct FrameHeader {
        /// Variable block size: ``number`` counts samples, not frames.
        let variable: Bool
        let number: UInt64
        let blockSize: UInt64
    }

    /// FLAC frames carry no length, but the last one must end exactly where the audio ends (before
    /// any ID3v1/APE tag): its header (found backwards, CRC-8 checked) and its CRC-16 footer (over
    /// the whole frame) tell. When STREAMINFO declares a total, that frame must end at it.
    /// - Returns: a problem description (the last frame is cut off, or whole frames are missing),
    ///   `nil` when the end is sound.
    static func lastFrameProblem(_ reader: borrowing FileReader, audioStart: Int64, nominalBlockSize: UInt64,
                                 totalSamples: UInt64) -> String? {
        let end = AudioTagStructure.trailingTagsStart(reader, floor: audioStart)
        let window = min(end - audioStart, Int64(lastFrameWindow))
        guard window >= 6 else { return "no complete audio frame after the metadata (truncated)" }
        let tail = reader.read(at: end - window, count: Int(window))
        guard tail.count == Int(window) else { return nil }
        let footer = UInt16(tail.be16(tail.count - 2))
        var candidates = 0
        for i in stride(from: tail.count - 6, through: 0, by: -1) where tail[i] == 0xFF {
            guard let header = frameHeader(tail, at: i) else { continue }
            candidates += 1
            if FLACCRC.crc16(tail[i..<(tail.count - 2)]) == footer {
                let offset = end - window + Int64(i)
                guard totalSamples > 0 else { return nil }
                let (first, overflow) = header.variable ? (header.number, false) : header.number.multipliedReportingOverflow(by: nominalBlockSize)
                guard !overflow else { return nil }
                let lastSample = first &+ header.blockSize
                if lastSample < totalSamples {
                    return "the last frame (byte \(offset)) ends at sample \(lastSample) but STREAMINFO declares \(totalSamples) samples: frames are missing (truncated)"
                }
                return nil
            }
            if candidates >= maximumCandidates { break }
        }
        guard window == end - audioStart || candidates > 0 else { return nil }  // Nothing to judge by.
        return "no complete frame ends at the end of the audio (byte \(end)): the last frame is cut off (truncated)"
    }

    /// The frame header at `i` when its fields are valid and its CRC-8 matches.
    static func frameHeader(_ b: [UInt8], at i: Int) -> FrameHeader? {
        guard i + 5 < b.count, b[i] == 0xFF, b[i + 1] & 0xFE == 0xF8 else { return nil }
        let variable = b[i + 1] & 0x01 == 1
        let blockCode = b[i + 2] >> 4, rateCode = b[i + 2] & 0x0F
        let channelCode = b[i + 3] >> 4, depthCode = (b[i + 3] >> 1) & 0x07
        guard blockCode != 0, rateCode != 15, channelCode < 11, depthCode != 3, b[i + 3] & 0x01 == 0 else { return nil }
        // The frame or sample number, coded like UTF-8 (up to 7 bytes).
        var p = i + 4
        let lead = b[p]
        let length = lead < 0x80 ? 1 : lead >= 0xC0 && lead <= 0xFE ? (~lead).leadingZeroBitCount : 0
        guard length > 0, length <= (variable ? 7 : 6), p + length < b.count else { return nil }
        var number = UInt64(lead & (length == 1 ? 0x7F : UInt8(0x7F >> length)))
        for k in 1..<max(length, 1) {
            guard b[p + k] & 0xC0 == 0x80 else { return nil }
            number = number << 6 | UInt64(b[p + k] & 0x3F)
        }
        p += length
        var blockSize: UInt64
        switch blockCode {
        case 1: blockSize = 192
        case 2...5: blockSize = 576 << UInt64(blockCode - 2)
        case 6:
            guard p < b.count else { return nil }
            blockSize = UInt64(b[p]) + 1
            p += 1
        case 7:
            guard p + 1 < b.count else { return nil }
            blockSize = UInt64(b.be16(p)) + 1
            p += 2
        default: blockSize = 256 << UInt64(blockCode - 8)
        }
        switch rateCode {
        case 12: p += 1
        case 13, 14: p += 2
        default: break
        }
        guard p < b.count, FLACCRC.crc8(b[i..<p]) == b[p] else { return nil }
        return FrameHeader(variable: variable, number: number, blockSize: blockSize)
    }
}
