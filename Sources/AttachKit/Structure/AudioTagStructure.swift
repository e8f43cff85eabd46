/// The metadata tags an elementary audio stream (MP3, ADTS AAC) may carry beside its frames:
/// ID3v2 (usually at the start, sometimes appended), and at the end ID3v1 (`TAG`), APEv2
/// (`APETAGEX`) and Lyrics3 (`LYRICSBEGIN` ... `LYRICS200`/`LYRICSEND`). Frame walks skip these
/// instead of calling them garbage.
enum AudioTagStructure {
    /// Where the tags stacked at the end of the file begin (the file size when there are none).
    /// Never earlier than `floor`.
    static func trailingTagsStart(_ reader: borrowing FileReader, floor: Int64) -> Int64 {
        var end = reader.size
        for _ in 0..<8 {
            let tail = reader.read(at: max(floor, end - 128), count: Int(min(128, end - floor)))
            let count = Int64(tail.count)
            if count == 128, tail.matches("TAG", at: 0) {
                end -= 128
                continue
            }
            if count >= 32, tail.matches("APETAGEX", at: Int(count) - 32) {
                let footer = Array(tail[(Int(count) - 32)...])
                let hasHeader = footer.le32(20) & 0x8000_0000 != 0
                let total = Int64(footer.le32(12)) + (hasHeader ? 32 : 0)
                guard total >= 32, total <= end - floor else { return end }
                end -= total
                // Some writers set the header flag in the header alone: a header just before the
                // items is part of the tag whatever the footer says.
                if !hasHeader, end - 32 >= floor, reader.read(at: end - 32, count: 8).matches("APETAGEX", at: 0) { end -= 32 }
                continue
            }
            if count >= 15, tail.matches("LYRICS200", at: Int(count) - 9) {
                guard let size = Int64(tail.ascii(Int(count) - 15, 6)), size >= 0, size + 15 <= end - floor else { return end }
                end -= size + 15
                continue
            }
            if count >= 10, tail.matches("3DI", at: Int(count) - 10) {
                let footer = Array(tail[(Int(count) - 10)...])
                let total = syncsafe(footer, at: 6) + 20
                guard total <= end - floor else { return end }
                end -= total
                continue
            }
            if count >= 9, tail.matches("LYRICSEND", at: Int(count) - 9) {
                // Lyrics3 v1: up to 5100 bytes of text after "LYRICSBEGIN", no size field.
                let window = reader.read(at: max(floor, end - 5120), count: Int(min(5120, end - floor)))
                guard let begin = lastIndex(of: Array("LYRICSBEGIN".utf8), in: window) else { return end }
                end -= Int64(window.count - begin)
                continue
            }
            return end
        }
        return end
    }

    /// The length of a tag that starts at `offset` (ID3v2, APEv2 with header, ID3v1), or `nil`
    /// when the bytes there are not a tag.
    static func tagLength(_ reader: borrowing FileReader, at offset: Int64) -> Int64? {
        let head = reader.read(at: offset, count: 32)
        if head.matches("ID3", at: 0), head.count >= 10, head.u8(3) < 0xFF {
            return 10 + syncsafe(head, at: 6) + ((head.u8(5) & 0x10) != 0 ? 10 : 0)
        }
        if head.matches("APETAGEX", at: 0), head.count == 32 {
            return Int64(head.le32(12)) + 32
        }
        if head.matches("TAG", at: 0), reader.size - offset >= 128 { return 128 }
        return nil
    }

    /// A 28-bit "syncsafe" integer (7 bits per byte), as ID3v2 stores sizes.
    private static func syncsafe(_ bytes: [UInt8], at i: Int) -> Int64 {
        Int64(bytes.u8(i) & 0x7F) << 21 | Int64(bytes.u8(i + 1) & 0x7F) << 14
            | Int64(bytes.u8(i + 2) & 0x7F) << 7 | Int64(bytes.u8(i + 3) & 0x7F)
    }

    private static func lastIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for i in stride(from: bytes.count - pattern.count, through: 0, by: -1) where bytes.matches(pattern, at: i) {
            return i
        }
        return nil
    }
}
