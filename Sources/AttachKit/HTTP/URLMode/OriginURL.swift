/// An `http://` or `https://` URL as URL mode fetches it, read strictly: a scheme, a host (a name
/// of `a-z 0-9 . -`, an IPv4 address, or an IPv6 address in brackets), an optional port, a path
/// and an optional query. Refused, so that what the origin list checks is what is fetched: user
/// info (`user@host`), a fragment, a backslash, spaces, control or non-ASCII bytes, dot segments
/// (`/../`, `/./`) and an encoded dot, slash or backslash in the path (`%2e`, `%2f`, `%5c`: an
/// origin decoding them could leave the allowed prefix).
package struct OriginURL: Sendable, Equatable {
    /// `http` or `https`, lower case.
    package let scheme: String
    /// Lower case; an IPv6 address without its brackets.
    package let host: String
    /// The port, the scheme's default when none is written.
    package let port: Int
    /// From its `/` (`/` when the URL has none), without the query.
    package let path: String
    /// The query with its `?`, or empty.
    package let query: String

    /// - Throws: ``ServiceError`` `access-denied` naming what is refused (403: a source that is
    ///   no fetchable URL is treated as one outside the origins).
    package init(_ text: String) throws(ServiceError) {
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "#") }) else {
            throw Self.refused(text, "holds a space, a control or non-ASCII byte, a backslash or a fragment")
        }
        guard let separator = text.firstRange(of: "://") else { throw Self.refused(text, "is not an absolute http(s) URL") }
        scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw Self.refused(text, "is not http or https") }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        (host, port) = try Self.authority(rest[..<authorityEnd], scheme: scheme, text: text)
        let tail = rest[authorityEnd...]
        let queryStart = tail.firstIndex(of: "?") ?? tail.endIndex
        path = tail[..<queryStart].isEmpty ? "/" : String(tail[..<queryStart])
        query = String(tail[queryStart...])
        guard path.hasPrefix("/") else { throw Self.refused(text, "has no path") }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let lowered = path.lowercased()
        guard !segments.contains(where: { $0 == "." || $0 == ".." }), !["%2e", "%2f", "%5c"].contains(where: { lowered.contains($0) }) else {
            throw Self.refused(text, "has a dot segment or an encoded dot, slash or backslash in its path")
        }
    }

    /// The URL as fetched.
    package var text: String { "\(scheme)://\(hostInURL)\(isDefaultPort ? "" : ":\(port)")\(path)\(query)" }

    /// The host as a URL writes it (an IPv6 address in brackets).
    package var hostInURL: String { host.contains(":") ? "[\(host)]" : host }

    private var isDefaultPort: Bool { port == Self.defaultPort(scheme) }

    private static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// The host and port of `user-info-free` authority text.
    private static func authority(_ text: Substring, scheme: String, text url: String) throws(ServiceError) -> (String, Int) {
        guard !text.contains("@") else { throw refused(url, "carries user info (user@host)") }
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw refused(url, "has an unclosed [ in its host") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw refused(url, "has bytes after its IPv6 host") }
            portText = after.isEmpty ? nil : after.dropFirst()
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { throw refused(url, "has a malformed IPv6 host") }
        } else {
            let colon = text.firstIndex(of: ":")
            host = colon.map { text[..<$0] } ?? text
            portText = colon.map { text[text.index(after: $0)...] }
            guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else {
                throw refused(url, "has a host that is not a name of a-z 0-9 . - or an IP address")
            }
        }
        var port = defaultPort(scheme)
        if let portText {
            guard let number = Int(portText), portText.allSatisfy(\.isNumber), (1...65_535).contains(number) else { throw refused(url, "has a bad port") }
            port = number
        }
        return (host.lowercased(), port)
    }

    private static func refused(_ text: String, _ why: String) -> ServiceError {
        ServiceError(code: .accessDenied, message: "the source \(String(text.prefix(200)).debugDescription) \(why): refused")
    }
}
