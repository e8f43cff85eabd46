import AttachKit

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
    /// carriage return and tab as `\n`, `\r`, `\t`; every other control (C0, C1, DEL), the line and
    /// paragraph separators (U+2028, U+2029) and every format character (general category Cf: the
    /// bidi embeddings, overrides, isolates and marks, zero-width spaces, the soft hyphen...) but
    /// the zero-width joiner of emoji sequences, as `\u{XXXX}`. Everything else is kept.
    static func escape(_ text: String) -> String { TerminalText.escape(text) }
}
