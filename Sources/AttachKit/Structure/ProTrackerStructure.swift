/// ProTracker module layout (`M.K.` and kin at byte 1080): the header (31 sample headers, the
/// song length, a 128-entry order table, the tag), then every pattern the order table names
/// (64 rows × channels × 4 bytes each, the channels from the tag), then the sample data the
/// headers declare (lengths in 16-bit words). libopenmpt plays a module cut short as silence
/// where its patterns or samples are missing, so a file shorter than its header declares is
/// truncated.
enum ProTrackerStructure {
    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        let header = reader.read(at: 0, count: 1084)
        guard header.count == 1084, let channels = channels(header.ascii(1080, 4)) else {
            return .corrupt(reason: "the module header is cut off by the end of the file (truncated)")
        }
        let patterns = Int64(header[952..<1080].max() ?? 0) + 1
        let samples = (0..<31).reduce(Int64(0)) { sum, index in sum + Int64(header.be16(20 + 30 * index + 22)) * 2 }
        let declared = 1084 + patterns * 64 * Int64(channels) * 4 + samples
        guard reader.size >= declared else {
            return .corrupt(reason: "the module declares \(patterns) pattern(s) and \(samples) bytes of samples, \(declared) bytes in all, but the file ends at byte \(reader.size) (truncated)")
        }
        return .intact
    }

    /// Channels the tag names: `M.K.`-style tags 4, `6CHN` 6, `FLT8`/`8CHN`/`OKTA`/`CD81` 8, `xxCH` xx.
    static func channels(_ tag: String) -> Int? {
        switch tag {
        case "M.K.", "M!K!", "M&K!", "FLT4", "4CHN": return 4
        case "6CHN": return 6
        case "FLT8", "8CHN", "OKTA", "CD81": return 8
        default:
            guard tag.hasSuffix("CH"), let count = Int(tag.prefix(2)), count > 0 else { return nil }
            return count
        }
    }
}
