/// Text from outside (a file name, a path, a message that quotes one) made safe to show on a
/// terminal: the one escaping behind the CLI's `HumanText` and ``BatchProgressView``.
package enum TerminalText {
    /// `text` with what would break a line or mislead a reader made visible: `\` as `\\`; newline,
    /// carriage return and tab as `\n`, `\r`, `\t`; every other control (C0, C1, DEL, so every
    /// terminal escape), the line and paragraph separators (U+2028, U+2029) and every format
    /// character (general category Cf: the bidi embeddings, overrides, isolates and marks,
    /// zero-width spaces, the soft hyphen...) but the zero-width joiner of emoji sequences, as
    /// `\u{XXXX}`. Everything else is kept.
    package static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars { out += needsEscape(scalar) ? escaped(scalar) : String(scalar) }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\\" { return true }
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        case .format: return scalar.value != 0x200D
        default: return false
        }
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\\": return "\\\\"
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        default: return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }

    /// The columns `text` takes on a terminal: two for an East Asian wide or full-width character
    /// or an emoji shown as a picture, one for any other character (with its combining marks).
    /// Meant for escaped text (no controls).
    package static func columns(_ text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    package static func columns(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.count > 1, first.properties.isEmojiPresentation || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) {
            return 2
        }
        if first.properties.isEmojiPresentation { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `text` cut to at most `width` columns, from the end (`…` standing for what was cut).
    package static func truncated(_ text: String, to width: Int) -> String {
        guard columns(text) > width else { return text }
        guard width > 0 else { return "" }
        var out = "", used = 0
        for character in text {
            let w = columns(of: character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// `text` cut to at most `width` columns from the start, keeping its end (a path's file name):
    /// `…/folder/clip.webm`.
    package static func truncatedKeepingEnd(_ text: String, to width: Int) -> String {
        guard columns(text) > width else { return text }
        guard width > 0 else { return "" }
        var kept: [Character] = [], used = 0
        for character in text.reversed() {
            let w = columns(of: character)
            if used + w > width - 1 { break }
            kept.append(character)
            used += w
        }
        return "…" + String(kept.reversed())
    }
}
