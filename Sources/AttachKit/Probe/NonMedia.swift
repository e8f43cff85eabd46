/// Names bytes that are not media, so a refusal can say what they are: documents, archives,
/// executables, and text (JSON, HTML, SVG, XML, plain).
enum NonMedia {
    /// Binary formats with a signature: PDF (even with binary bytes), ZIP, gzip, ELF, Windows PE,
    /// Mach-O.
    static func binaryFormat(_ h: [UInt8]) -> Container? {
        if h.matches("%PDF-", at: 0) { return .pdf }
        if h.matches([0x50, 0x4B, 0x03, 0x04], at: 0) || h.matches([0x50, 0x4B, 0x05, 0x06], at: 0) { return .zip }
        if h.matches([0x1F, 0x8B, 0x08], at: 0) { return .gzip }
        if h.matches([0x7F, 0x45, 0x4C, 0x46], at: 0) { return .elf }
        if h.matches("MZ", at: 0), h.count >= 64 {
            let header = Int(h.le32(60))
            if header + 4 <= h.count, h.matches([0x50, 0x45, 0, 0], at: header) { return .pe }
        }
        let machO: [[UInt8]] = [[0xFE, 0xED, 0xFA, 0xCE], [0xFE, 0xED, 0xFA, 0xCF], [0xCE, 0xFA, 0xED, 0xFE], [0xCF, 0xFA, 0xED, 0xFE]]
        if machO.contains(where: { h.matches($0, at: 0) }) { return .machO }
        return nil
    }

    /// Text (valid UTF-8, or Latin-1, without control characters other than tab, line feed, form
    /// feed and carriage return), told apart by its first characters: JSON, SVG, HTML, XML or plain text.
    /// `nil` for anything else.
    static func textFormat(_ h: [UInt8]) -> Container? {
        var sample = Array(h.prefix(4096))
        if sample.starts(with: [0xEF, 0xBB, 0xBF]) { sample.removeFirst(3) }
        guard !sample.isEmpty, isText(sample) || isLatin1(sample) else { return nil }
        let lowered = String(decoding: sample, as: UTF8.self).lowercased()
        let start = lowered.drop { $0.isWhitespace }
        if start.hasPrefix("{") || start.hasPrefix("[") { return .json }
        guard start.hasPrefix("<") else { return .text }
        if lowered.contains("<svg") { return .svg }
        if start.hasPrefix("<!doctype html") || lowered.contains("<html") { return .html }
        if start.hasPrefix("<?xml") { return .xml }
        return .text
    }

    /// Whether `bytes` is UTF-8 text; a sequence cut off by the end of the sample is allowed.
    private static func isText(_ bytes: [UInt8]) -> Bool {
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x80 {
                guard byte >= 0x20 || [0x09, 0x0A, 0x0C, 0x0D].contains(byte), byte != 0x7F else { return false }
                i += 1
                continue
            }
            let length: Int
            switch byte {
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return false
            }
            for k in 1..<length where i + k < bytes.count {
                guard bytes[i + k] & 0xC0 == 0x80 else { return false }
            }
            i += length
        }
        return true
    }

    /// Whether `bytes` is Latin-1 text: printable ASCII, the four layout controls, and 0xA0...0xFF.
    private static func isLatin1(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || [0x09, 0x0A, 0x0C, 0x0D].contains($0) || $0 >= 0xA0 }
    }
}
