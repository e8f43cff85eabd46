/// The identification header of an Ogg Opus stream (RFC 7845, section 5.1), read from the first
/// page of the file: what the probe needs of it is the pre-skip, the samples at 48 kHz a decoder
/// drops at the start.
enum OggOpusHeader {
    /// The pre-skip in seconds; `nil` when the file does not start with an Ogg page whose first
    /// packet is an `OpusHead` (another codec, a chained or multiplexed file whose first stream is
    /// not Opus).
    static func preSkipSeconds(_ reader: borrowing FileReader) -> Double? {
        let page = reader.read(at: 0, count: 27 + 255 + 19)
        guard page.count >= 27, page.matches("OggS", at: 0), page[5] & 0x02 != 0 else { return nil }
        let payload = 27 + Int(page[26])
        guard page.count >= payload + 12, page.matches("OpusHead", at: payload) else { return nil }
        let samples = Int(page[payload + 10]) | Int(page[payload + 11]) << 8
        return Double(samples) / 48_000
    }
}
