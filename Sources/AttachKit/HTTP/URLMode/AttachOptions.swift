/// The options segment of a URL-mode path (`/v1/attach/{signature}/{options}/{source}`): the
/// prepare options of ``OptionTable`` under their keys, as a query string would give them
/// (`maxBytes=500KB&maxEdge=1024`, a yes/no option as its key alone: `thumbnail`), in the table's
/// order, values percent-encoded where they are not URL-safe; `-` for none. Which keys a URL may
/// carry, and how each is read, come from the table and ``OptionsDecoder`` (through
/// ``UploadPlan``, as `POST /v1/prepare`'s query): no list of options is kept here.
package enum AttachOptions {
    /// The segment of a URL with no options.
    package static let none = "-"

    /// The segment for `options` (key, and text value or `nil` for a yes/no option given alone),
    /// written in ``OptionTable``'s order. Each key is written as given, so checking them is the
    /// caller's (``AttachURL/make(base:source:options:key:fileExtension:)`` checks through ``UploadPlan``).
    package static func segment(_ options: [(key: String, value: String?)]) -> String {
        let order = Dictionary(OptionTable.specs.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
        let sorted = options.enumerated().sorted { (order[$0.element.key] ?? Int.max, $0.offset) < (order[$1.element.key] ?? Int.max, $1.offset) }
        let pairs = sorted.map { item in
            item.element.value.map { escaped(item.element.key) + "=" + escaped($0) } ?? escaped(item.element.key)
        }
        return pairs.isEmpty ? none : pairs.joined(separator: "&")
    }

    /// The options a segment gives, as ``UploadPlan`` reads a query's.
    /// - Throws: ``ServiceError`` `malformed-request` for a segment that does not decode.
    package static func parameters(_ segment: Substring) throws(ServiceError) -> [(name: String, value: String?)] {
        segment == Substring(none) ? [] : try RequestTarget.parameters(segment)
    }

    /// `text` with every byte outside `A-Z a-z 0-9 - . _ ~ ,` percent-encoded.
    private static func escaped(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let safe = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~,".utf8.contains(byte)
            out += safe ? String(Unicode.Scalar(byte)) : "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
        }
        return out
    }
}
