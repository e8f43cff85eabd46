/// Text made safe for roff (man(7)) source.
enum Roff {
    /// `text` as roff lines to print verbatim: `\` as `\e`, `-` as `\-` (so options copy as ASCII
    /// hyphen-minus), any character beyond ASCII as `\[uXXXX]`, and a line that would start with
    /// `.` or `'` (a request) guarded by `\&`.
    static func escaped(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let body = line.unicodeScalars.map(escaped).joined()
            return body.hasPrefix(".") || body.hasPrefix("'") ? "\\&" + body : body
        }.joined(separator: "\n")
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\\": return "\\e"
        case "-": return "\\-"
        case _ where scalar.isASCII: return String(scalar)
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
        }
    }
}
