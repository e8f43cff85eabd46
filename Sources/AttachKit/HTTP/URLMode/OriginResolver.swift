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
        NetworkAddress.resolve(host).compactMap(OriginAddress.init(bytes:))
    }
}
