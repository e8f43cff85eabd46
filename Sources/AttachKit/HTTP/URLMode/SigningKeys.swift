/// The keys of `--signing-key-file FILE`: one hexadecimal key per line (at least 16 bytes, i.e.
/// 32 hex digits; `openssl rand -hex 32` makes one); blank lines and lines starting with `#` are
/// skipped. The first key signs (`attachkit sign`), all verify, so a new key is added second,
/// rolled out, then moved first, and the old one removed once no URL signed with it is in use.
public struct SigningKeys: Sendable {
    /// The keys, signing key first; never empty.
    public let keys: [[UInt8]]

    /// Shortest key accepted, bytes.
    public static let minimumBytes = 16

    /// Reads the keys from the file's text.
    /// - Throws: ``ServiceError`` `bad-options` naming the line that is not an even run of hex
    ///   digits or is too short, or saying the file holds no key.
    public init(text: String) throws(ServiceError) {
        var keys: [[UInt8]] = []
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = HTTPBytes.trimmed(raw)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let key = Self.hex(line), key.count >= Self.minimumBytes else {
                throw ServiceError(code: .badOptions, message: "line \(number + 1) of the signing key file is not a key: one key per line, at least \(Self.minimumBytes * 2) hex digits (openssl rand -hex 32)")
            }
            keys.append(key)
        }
        guard !keys.isEmpty else { throw ServiceError(code: .badOptions, message: "the signing key file holds no key (one hex key per line)") }
        self.keys = keys
    }

    /// Reads the keys from a file.
    /// - Throws: ``ServiceError`` `not-found` when it cannot be read, else as ``init(text:)``.
    public init(file path: String) throws(ServiceError) {
        guard let text = TextFile.contents(path) else {
            throw ServiceError(code: .notFound, message: "cannot read the signing key file \(path)")
        }
        try self.init(text: text)
    }

    /// The key that signs.
    public var signing: [UInt8] { keys[0] }

    private static func hex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, text.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(high)
        }
        return bytes
    }
}
