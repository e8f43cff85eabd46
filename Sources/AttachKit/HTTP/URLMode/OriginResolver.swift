#if canImport(Glibc)
import Glibc
#endif

/// The addresses a source's host resolves to (`getaddrinfo`, IPv4 and IPv6), every one checked:
/// a host with any address that is not public is refused unless private origins are allowed
/// (``OriginAddress/privateKind``). The addresses checked are the ones the transfer is pinned to
/// (``CurlRequest/pinnedAddresses``), so a name that resolves otherwise a moment later (DNS
/// rebinding) cannot lead the connection elsewhere.
package enum OriginResolver {
    /// - Throws: ``ServiceError`` `origin-failed` (502) when the name does not resolve,
    ///   `access-denied` (403) naming the first address refused.
    package static func addresses(of host: String, allowPrivate: Bool) throws(ServiceError) -> [OriginAddress] {
        let found = resolve(host)
        guard !found.isEmpty else {
            throw ServiceError(code: .originFailed, message: "the origin's host \(host.debugDescription) does not resolve")
        }
        if !allowPrivate, let refused = found.first(where: { $0.privateKind != nil }) {
            throw ServiceError(code: .accessDenied, message: "the origin's host \(host.debugDescription) resolves to \(refused.text), \(Self.article(refused.privateKind!)) \(refused.privateKind!) address: refused (--allow-private-origins allows it)")
        }
        return found
    }

    /// `an` before a vowel, else `a`.
    static func article(_ word: String) -> String { "aeiouAEIOU".contains(word.first ?? "x") ? "an" : "a" }

    private static func resolve(_ host: String) -> [OriginAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [OriginAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = address(current.pointee), !found.contains(address) { found.append(address) }
            entry = current.pointee.ai_next
        }
        return found
    }

    private static func address(_ info: addrinfo) -> OriginAddress? {
        guard let raw = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            return raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { OriginAddress(bytes: Array($0)) }
            }
        case AF_INET6:
            return raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { OriginAddress(bytes: Array($0)) }
            }
        default:
            return nil
        }
    }
}
