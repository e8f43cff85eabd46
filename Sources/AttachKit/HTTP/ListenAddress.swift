/// Where `attachkit http` listens: `HOST:PORT` with a numeric IPv4 host (`127.0.0.1:8080`,
/// `0.0.0.0:8080`) or a bracketed IPv6 one (`[::1]:8080`); port 0 lets the kernel choose (the
/// ready line says which).
public struct ListenAddress: Sendable, CustomStringConvertible {
    public let host: String
    public let port: UInt16
    public var isIPv6: Bool { host.contains(":") }

    /// - Throws: ``ServiceError`` `bad-options` when it is not `HOST:PORT` with a numeric host.
    public init(parsing text: String) throws(ServiceError) {
        let bad = ServiceError(code: .badOptions, message: "--listen must be HOST:PORT with a numeric IPv4 host or a bracketed IPv6 one (127.0.0.1:8080, [::1]:8080), not \(text.debugDescription)")
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { throw bad }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let ipv4 = host.split(separator: ".", omittingEmptySubsequences: false)
        let isIPv4 = ipv4.count == 4 && ipv4.allSatisfy { UInt8($0) != nil }
        let isIPv6 = text.hasPrefix("[") && host.contains(":") && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        guard isIPv4 || isIPv6 else { throw bad }
        self.host = host
        self.port = port
    }

    /// The same host with another port (the one the kernel chose).
    public func with(port: UInt16) -> ListenAddress { ListenAddress(host: host, port: port) }

    private init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
