/// An HTTP request target (`/v1/prepare?profile=ios&maxBytes=5MB`) split into its path and its
/// query parameters, percent-decoded strictly: a `%` not followed by two hex digits, bytes that
/// are not UTF-8, a NUL or an empty name is a `malformed-request`, never guessed at.
package struct RequestTarget: Sendable {
    /// The path, as sent (`/v1/prepare`).
    package let path: String
    /// Each parameter in order; `value` is `nil` for a name given without `=` (`?thumbnail`).
    package let parameters: [(name: String, value: String?)]

    /// Longest target accepted, bytes.
    package static let maxBytes = 8_192

    /// - Throws: ``ServiceError`` `malformed-request` naming what does not parse.
    package static func parse(_ target: String) throws(ServiceError) -> RequestTarget {
        guard target.utf8.count <= maxBytes else {
            throw malformed("a request target of \(target.utf8.count) bytes is longer than \(maxBytes)")
        }
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        guard path.hasPrefix("/") else { throw malformed("the request target must start with /") }
        return RequestTarget(path: path, parameters: parts.count == 2 ? try parameters(parts[1]) : [])
    }

    /// The parameters of a query (`a=1&b`), percent-decoded as ``parse(_:)`` does; also the
    /// options segment of a URL-mode path (``AttachOptions``).
    /// - Throws: ``ServiceError`` `malformed-request` naming what does not parse.
    package static func parameters(_ query: Substring) throws(ServiceError) -> [(name: String, value: String?)] {
        var parameters: [(name: String, value: String?)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let sides = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decode(sides[0])
            guard !name.isEmpty else { throw malformed("a query parameter without a name: \(String(pair).debugDescription)") }
            parameters.append((name, sides.count == 2 ? try decode(sides[1]) : nil))
        }
        return parameters
    }

    /// `+` is a space; `%XX` a byte; the result must be UTF-8 without NUL.
    private static func decode(_ text: Substring) throws(ServiceError) -> String {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    throw malformed("a % not followed by two hex digits in the query \(String(text).debugDescription)")
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        guard !bytes.contains(0), let decoded = String(validating: bytes, as: UTF8.self) else {
            throw malformed("the query \(String(text).debugDescription) does not decode to UTF-8 text without NUL")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func malformed(_ message: String) -> ServiceError { ServiceError(code: .malformedRequest, message: message) }
}
