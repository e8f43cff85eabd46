/// The index an AVI's `idx1` chunk declares, counted before libavformat reads it: it keeps a
/// 24-byte index entry for each 16-byte `idx1` entry (4 M entries, a 64 MB file, took 140 MB to
/// probe), so the count is held against ``SafetyLimits/maxSamples``. The OpenDML index (`indx`
/// and `ix##` chunks, 8 bytes an entry) is bounded by libavformat itself, which refuses to read
/// any of it twice.
enum AVIIndex {
    /// Entries of the first `RIFF` list's `idx1` (as many as its size declares and the file holds);
    /// 0 without one. Walks the top-level chunks only.
    static func entries(_ reader: borrowing FileReader) -> Int64 {
        let head = reader.read(at: 0, count: 12)
        guard head.matches("RIFF", at: 0), head.matches("AVI ", at: 8) else { return 0 }
        let end = min(reader.size, 8 + Int64(head.le32(4)))
        var position: Int64 = 12
        while position + 8 <= end {
            let chunk = reader.read(at: position, count: 8)
            guard chunk.count == 8 else { return 0 }
            let size = Int64(chunk.le32(4))
            if chunk.matches("idx1", at: 0) { return min(size, reader.size - position - 8) / 16 }
            position += 8 + size + (size & 1)
        }
        return 0
    }

    /// The cap the `idx1` entries are over; `nil` within it.
    static func violation(_ reader: borrowing FileReader, of limits: SafetyLimits) -> SafetyViolation? {
        let count = entries(reader)
        guard count > limits.maxSamples else { return nil }
        return SafetyViolation(cap: "maxSamples", detail: "the idx1 index declares \(count) entries > \(limits.maxSamples)")
    }
}
