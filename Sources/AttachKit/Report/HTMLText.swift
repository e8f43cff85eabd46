/// Text from outside (file names, paths, messages that quote them, notes) made safe to put in an
/// HTML page, the one way the batch report writes any value it did not write itself.
enum HTMLText {
    /// `text` for an HTML text node or a quoted attribute value: `&`, `<`, `>`, `"` and `'` as
    /// character references, so a name holding `<script>` or `" onerror=` is shown as text and
    /// runs nothing. What would disguise a name is made visible as the terminal output shows it
    /// (docs/cli.md): `\` as `\\`; newline, carriage return and tab as `\n`, `\r`, `\t`; every
    /// other control character (C0, C1, DEL), the line and paragraph separators and every format
    /// character (bidi overrides and isolates, zero-width spaces, the soft hyphen...) but the
    /// zero-width joiner of emoji sequences, as `\u{XXXX}`.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if isHidden(scalar) {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        case .format: return scalar.value != 0x200D
        default: return false
        }
    }
}
