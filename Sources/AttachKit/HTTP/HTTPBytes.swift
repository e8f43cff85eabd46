/// The byte classes of HTTP/1.1's grammar (RFC 9110 §5.6, RFC 9112), for ``RequestHead``.
enum HTTPBytes {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")

    /// `tchar`: what a token (a method, a field name, a coding) is made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    /// `VCHAR`: visible ASCII.
    static func isVisible(_ byte: UInt8) -> Bool { (0x21...0x7E).contains(byte) }

    /// What a field value may hold once trimmed: visible ASCII, space, tab, and `obs-text`
    /// (0x80-0xFF); never a control byte (NUL, CR, LF, DEL...).
    static func isFieldValueByte(_ byte: UInt8) -> Bool { isVisible(byte) || isBlank(byte) || byte >= 0x80 }

    /// SP or HTAB (`OWS`).
    static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// `text` with A-Z lowered and every other byte as it is: how HTTP compares field names and
    /// codings (RFC 9110 §5.1, §8.4.1). Unicode lowering is wrong here: it turns the Kelvin sign
    /// (U+212A) into `k`, so `chun\u{212A}ed` read as `chunked` to this parser and as nothing to
    /// libmicrohttpd.
    static func asciiLowercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// `bytes` without the spaces and tabs at either end.
    static func trimmingBlanks(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var trimmed = bytes
        while let first = trimmed.first, isBlank(first) { trimmed.removeFirst() }
        while let last = trimmed.last, isBlank(last) { trimmed.removeLast() }
        return trimmed
    }

    /// `text` without the spaces and tabs at either end.
    static func trimmed(_ text: Substring) -> String { String(decoding: trimmingBlanks(ArraySlice(text.utf8)), as: UTF8.self) }

    /// `Host = uri-host [ ":" port ]` (RFC 9110 §7.2): a bracketed IP literal or a reg-name
    /// (unreserved, sub-delims, pct-encoded; empty allowed), then digits after a colon.
    static func isHost(_ text: String) -> Bool {
        var host = Substring(text)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let literal = host[host.index(after: host.startIndex)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
            host = host[host.index(after: close)...]
            return host.isEmpty || (host.first == ":" && host.utf8.dropFirst().allSatisfy(isDigit))
        }
        if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].utf8.allSatisfy(isDigit) else { return false }
            host = host[..<colon]
        }
        return host.utf8.allSatisfy { isAlphanumeric($0) || "-._~%!$&'()*+,;=".utf8.contains($0) }
    }

    /// Bytes as a quoted string for a message (escapes shown, at most 60 bytes).
    static func shown(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(60), as: UTF8.self).debugDescription
        return bytes.count > 60 ? text + "…" : text
    }
}
