/// A line (or lines) of text for people: the one place a value — a file name, a path, a message
/// that quotes one — becomes text on a terminal. Literal text is kept as written; every
/// interpolated value is escaped by ``escape(_:)``, so a name holding a newline, a terminal
/// escape or a bidi override cannot break the one-line-per-file output (tables, progress lines,
/// messages) or make one name look like another. Machine output (`--json`) goes through
/// ``Output/json(_:)`` instead: JSON escapes what it must itself.
struct HumanText: ExpressibleByStringInterpolation, CustomStringConvertible {
    private(set) var description: String

    init(stringLiteral value: String) { description = value }

    init(stringInterpolation: StringInterpolation) { description = stringInterpolation.text }

    struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity + 16 * interpolationCount) }

        mutating func appendLiteral(_ literal: String) { text += literal }

        /// A value from outside: escaped.
        mutating func appendInterpolation<Value>(_ value: Value) { text += HumanText.escape(String(describing: value)) }

        /// Text already made for people from escaped parts (a rendered ``Table``, a usage text).
        mutating func appendInterpolation(rendered text: String) { self.text += text }
    }

    /// `text` with what would break a line or mislead a reader made visible: `\` as `\\`; newline,
    /// carriage return and tab as `\n`, `\r`, `\t`; every other C0 and C1 control, DEL, and the
    /// bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and marks (U+200E,
    /// U+200F, U+061C) as `\u{XXXX}`. Everything else is kept.
    static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars { out += needsEscape(scalar) ? escaped(scalar) : String(scalar) }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x5C, 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: return true
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
}
