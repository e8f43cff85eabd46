import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// Internet addresses as bytes (4 for IPv4, 16 for IPv6): what a host name resolves to, and the
/// numeric forms. URL mode checks every address before it connects (``OriginAddress``).
enum NetworkAddress {
    /// The addresses `host` resolves to (`getaddrinfo`, IPv4 and IPv6, stream sockets), each once,
    /// in the resolver's order; none when it does not resolve.
    static func resolve(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = ak_sock_stream()
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let bytes = bytes(of: current.pointee), !found.contains(bytes) { found.append(bytes) }
            entry = current.pointee.ai_next
        }
        return found
    }

    /// The bytes of a numeric address (`192.0.2.1`, `2001:db8::1`, `inet_pton`); `nil` for
    /// anything else.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// As `inet_ntop` writes it (what libcurl reports as the connected address); `bytes` is 4 or 16 long.
    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        bytes.withUnsafeBytes { raw in _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func bytes(of info: addrinfo) -> [UInt8]? {
        guard let raw = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            return raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) } }
        case AF_INET6:
            return raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) } }
        default:
            return nil
        }
    }
}
