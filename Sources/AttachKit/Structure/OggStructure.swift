/// Ogg layout (Vorbis, Opus, FLAC, Theora in Ogg): back-to-back pages from byte 0 to the end of
/// the file, each with the `OggS` capture pattern, stream structure version 0, only the three
/// defined header-type flags, a segment table and body inside the file, and a matching CRC. The
/// first page must begin a logical stream (BOS flag). Anything between or after pages is corrupt.
enum OggStructure {
    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        var position: Int64 = 0
        var pages = 0
        while position < reader.size {
            let header = reader.read(at: position, count: 27 + 255)
            guard header.matches("OggS", at: 0) else {
                return .corrupt(reason: "no Ogg page at byte \(position) after \(pages) page(s)")
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
            var page = reader.read(at: position, count: pageLength)
            let stored = page.le32(22)
            for i in 22..<26 { page[i] = 0 }
            guard OggCRC.checksum(page) == stored else {
                return .corrupt(reason: "CRC mismatch in the page at byte \(position)")
            }
            pages += 1
            position += Int64(pageLength)
        }
        return pages > 0 ? .intact : .corrupt(reason: "no Ogg page")
    }
}
