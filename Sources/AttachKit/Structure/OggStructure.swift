/// Ogg layout (Vorbis, Opus, FLAC, Theora in Ogg): back-to-back pages from byte 0 to the end of
/// the file, each with the `OggS` capture pattern, stream structure version 0, only the three
/// defined header-type flags, a segment table and body inside the file, and a matching CRC. The
/// first page must begin a logical stream (BOS flag), as must every stream's first page. Junk between pages (up to the next whole
/// page with a matching CRC) or after the last one is stepped over as players do, and makes the
/// file recoverable (``SkippedBytes``); a damaged page, or an `OggS` page cut off at the end, is
/// corrupt.
/// Each logical stream's pages are numbered 0, 1, 2... (`page_sequence_number`, RFC 3533 §6): a
/// number skipped means pages were lost, which decoders step over without a word (a Vorbis file
/// missing a second of its sound passed `validate --deep`).
///
/// Each logical stream's last page carries the end-of-stream flag (EOS, header type `0x04`; RFC
/// 3533 §6). A stream whose last page lacks it was cut at a page boundary (or its writer never
/// finished): every page there is whole and players play them all, stopping where the pages
/// stop, so it is recoverable, as a last MP3 frame cut short is: `validate` warns that the end is
/// missing, and `prepare`'s output (a transcode: Ogg is not an attachment type) ends where the
/// sound does. It is not corrupt: nothing that is there is damaged, and how much is missing is
/// unknown (no Ogg header declares a length to hold it against).
enum OggStructure {
    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        var position: Int64 = 0
        var pages = 0
        /// The next page number each logical stream (by serial number) expects; bounded by the pages.
        var expected: [UInt32: UInt32] = [:]
        /// The last page of each logical stream not yet ended by an EOS page: its number and offset.
        var open: [UInt32: (sequence: UInt32, offset: Int64)] = [:]
        var skipped = SkippedBytes()
        while position < reader.size {
            let header = reader.read(at: position, count: 27 + 255)
            guard header.matches("OggS", at: 0) else {
                guard pages > 0 else { return .corrupt(reason: "no Ogg page at byte \(position)") }
                // Junk: players look for the next page, so does this walk.
                let next = nextPage(reader, after: position) ?? reader.size
                skipped.add(at: position, count: next - position, next < reader.size ? "between Ogg pages" : "after the last Ogg page")
                position = next
                continue
            }
            guard header.count >= 27 else {
                return .corrupt(reason: "page header at byte \(position) is cut off by the end of the file (truncated)")
            }
            guard header[4] == 0 else { return .corrupt(reason: "page at byte \(position) has stream structure version \(header[4])") }
            guard header[5] & 0xF8 == 0 else { return .corrupt(reason: "page at byte \(position) has undefined header-type flags") }
            if pages == 0, header[5] & 0x02 == 0 {
                return .corrupt(reason: "the first page does not begin a logical stream (no BOS flag)")
            }
            let segments = Int(header[26])
            guard header.count >= 27 + segments else {
                return .corrupt(reason: "the segment table of the page at byte \(position) is cut off by the end of the file (truncated)")
            }
            let body = header[27..<(27 + segments)].reduce(0) { $0 + Int($1) }
            let pageLength = 27 + segments + body
            guard Int64(pageLength) <= reader.size - position else {
                return .corrupt(reason: "page \(pages + 1) at byte \(position) needs \(pageLength) bytes but the file ends at byte \(reader.size) (truncated)")
            }
            let page = reader.read(at: position, count: pageLength)
            guard crcMatches(page) else {
                return .corrupt(reason: "CRC mismatch in the page at byte \(position)")
            }
            let serial = page.le32(14), sequence = page.le32(18)
            // A logical stream begins with its BOS page (RFC 3533 §6): a page of a serial number
            // never begun belongs to no stream a decoder has headers for (its pages were lost, or
            // the number is damaged). Past the table's bound, serials are not told apart.
            if expected[serial] == nil, page[5] & 0x02 == 0, expected.count < 1024 {
                return .corrupt(reason: "page \(sequence) at byte \(position) belongs to logical stream \(serial), which no beginning-of-stream page began")
            }
            if let next = expected[serial], sequence != next, page[5] & 0x02 == 0 {
                return .corrupt(reason: "page \(sequence) of logical stream \(serial) (byte \(position)) follows page \(next &- 1): \(sequence > next ? "pages are missing" : "pages are repeated or out of order")")
            }
            if expected.count < 1024 || expected[serial] != nil { expected[serial] = sequence &+ 1 }
            if page[5] & 0x04 != 0 {
                open[serial] = nil
            } else if open.count < 1024 || open[serial] != nil {
                open[serial] = (sequence, position)
            }
            pages += 1
            position += Int64(pageLength)
        }
        guard pages > 0 else { return .corrupt(reason: "no Ogg page") }
        guard let unended = open.min(by: { $0.value.offset < $1.value.offset }) else { return skipped.verdict }
        let end = "the last page of logical stream \(unended.key) (page \(unended.value.sequence), at byte \(unended.value.offset)) has no end-of-stream flag: the stream stops without its end (cut at a page boundary, or never finished); every page there is whole"
        guard case .recoverable(let junk) = skipped.verdict else { return .recoverable(reason: end) }
        return .recoverable(reason: "\(junk); \(end)")
    }

    /// The offset of the first whole page (capture pattern, header, segments and body inside the
    /// file, matching CRC) after `position`, or `nil`. Reads 64 KiB at a time.
    static func nextPage(_ reader: borrowing FileReader, after position: Int64) -> Int64? {
        var from = position + 1
        while from < reader.size {
            let piece = reader.read(at: from, count: 1 << 16)
            guard piece.count >= 4 else { return nil }
            for i in 0...(piece.count - 4) where piece[i] == 0x4F && piece.matches("OggS", at: i) {
                if isWholePage(reader, at: from + Int64(i)) { return from + Int64(i) }
            }
            from += Int64(piece.count - 3)
        }
        return nil
    }

    /// Whether a whole page with a matching CRC starts at `offset`.
    private static func isWholePage(_ reader: borrowing FileReader, at offset: Int64) -> Bool {
        let header = reader.read(at: offset, count: 27 + 255)
        guard header.count >= 27, header[4] == 0, header[5] & 0xF8 == 0 else { return false }
        let segments = Int(header[26])
        guard header.count >= 27 + segments else { return false }
        let length = 27 + segments + header[27..<(27 + segments)].reduce(0) { $0 + Int($1) }
        guard Int64(length) <= reader.size - offset else { return false }
        return crcMatches(reader.read(at: offset, count: length))
    }

    /// Whether a page's stored CRC (bytes 22–25) is the checksum of the page with those bytes zero.
    private static func crcMatches(_ page: [UInt8]) -> Bool {
        var zeroed = page
        for i in 22..<26 { zeroed[i] = 0 }
        return OggCRC.checksum(zeroed) == page.le32(22)
    }
}
