/// Why a JSON text could not be parsed: the byte offset and what was wrong there.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259). Nesting deeper than `maxDepth` (default 64) is refused, so a
    /// hostile request line cannot exhaust the stack. A key that appears twice in one object is
    /// refused too (RFC 8259 §4 leaves its meaning to each reader; here no reader has to guess):
    /// requests, options and policy files all read through this parser.
    ///
    /// - Throws: ``JSONParseError`` with the offset of the first problem.
    public static func parse(_ text: String, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(text.utf8), maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    /// The members of the object `text` opens with that parse completely before its first
    /// problem, in order (a repeated key ends them: the first one stays): what can still be read of
    /// a text ``parse(_:maxDepth:)`` refuses, e.g. a request's `id` before the bad field that
    /// follows it. Empty when `text` does not start with an object.
    public static func leadingMembers(of text: String, maxDepth: Int = 64) -> [(String, JSONValue)] {
        var parser = JSONParser(bytes: Array(text.utf8), maxDepth: maxDepth)
        return parser.leadingMembers()
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected text after the value") }
        return value
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
        for byte in literal.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw fail("invalid literal") }
            index += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        var pairs: [(String, JSONValue)] = []
        try parseMembers(depth: depth, into: &pairs)
        return .object(pairs)
    }

    /// The members of the object at `index` (its `{` included), appended to `pairs` as each one
    /// completes, so a caller still has those read before a problem.
    mutating func parseMembers(depth: Int, into pairs: inout [(String, JSONValue)]) throws(JSONParseError) {
        index += 1
        var keys: Set<String> = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let keyOffset = index
            let key = try parseString()
            guard keys.insert(key).inserted else {
                throw JSONParseError(offset: keyOffset, reason: "duplicate key \(key.debugDescription) (each key may appear once)")
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            // A value counts once its token has ended: `{"id": 01` holds no id 0.
            guard index == bytes.count || [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}")].contains(bytes[index]) else {
                throw fail("expected ',' or '}'")
            }
            pairs.append((key, value))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return }
            throw fail("expected ',' or '}'")
        }
    }

    /// The top-level object's members read before its first problem (see
    /// ``JSONValue/leadingMembers(of:maxDepth:)``).
    mutating func leadingMembers() -> [(String, JSONValue)] {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return [] }
        var pairs: [(String, JSONValue)] = []
        try? parseMembers(depth: 0, into: &pairs)
        return pairs
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw fail("expected ',' or ']'")
        }
    }

    /// A number, keeping its text (RFC 8259 grammar checked here, so the text is valid JSON).
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid fraction") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // A number past Double's range reads as ±infinity (its text is kept): the value's reader
        // refuses it by name (an option out of its range), and an id echoes back as written.
        guard let value = Double(text) else { throw JSONParseError(offset: start, reason: "invalid number") }
        return .parsedNumber(value, text: text)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        var runStart = index
        var out = ""
        func flushRun(_ end: Int) throws(JSONParseError) {
            if end > runStart {
                guard let run = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                    throw JSONParseError(offset: runStart, reason: "invalid UTF-8 in string")
                }
                out += run
            }
        }
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flushRun(index)
                index += 1
                return out
            }
            if byte < 0x20 { throw fail("control character in string") }
            if byte == UInt8(ascii: "\\") {
                try flushRun(index)
                index += 1
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): out += "\""
                case UInt8(ascii: "\\"): out += "\\"
                case UInt8(ascii: "/"): out += "/"
                case UInt8(ascii: "b"): out += "\u{08}"
                case UInt8(ascii: "f"): out += "\u{0C}"
                case UInt8(ascii: "n"): out += "\n"
                case UInt8(ascii: "r"): out += "\r"
                case UInt8(ascii: "t"): out += "\t"
                case UInt8(ascii: "u"): out.unicodeScalars.append(try parseUnicodeEscape())
                default: throw fail("invalid escape")
                }
                runStart = index
                continue
            }
            index += 1
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xD800...0xDBFF).contains(first) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw fail("unpaired surrogate")
            }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw fail("invalid low surrogate") }
            let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(combined) else { throw fail("invalid code point") }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw fail("unpaired surrogate") }
        return scalar
    }
}
