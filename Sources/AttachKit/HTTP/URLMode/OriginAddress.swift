/// One address a source's host resolves to, and whether URL mode may connect to it. Refused
/// unless `--allow-private-origins`: what is not the public Internet — unspecified, loopback,
/// private (RFC 1918, IPv6 unique local), shared (100.64/10, RFC 6598, where cloud metadata such as
/// 100.100.100.200 lives), link-local (169.254/16 with the cloud metadata address
/// 169.254.169.254, fe80::/10), multicast, reserved and broadcast (240/4), benchmarking
/// (198.18/15, 2001:2::/48), IETF protocol assignments (192.0.0/24), the 6to4 relay anycast
/// (192.88.99/24), documentation (192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32,
/// 3fff::/20), IPv6's reserved, discard-only, Teredo, ORCHID and local-use NAT64 ranges
/// (64:ff9b:1::/48), and IPv4 inside IPv6 (mapped `::ffff:`,
/// NAT64 `64:ff9b::`, compatible `::a.b.c.d`, 6to4 `2002:AABB:CCDD::`) by the IPv4 address inside.
package struct OriginAddress: Sendable, Equatable {
    /// 4 or 16 bytes.
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A numeric address (`192.0.2.1`, `2001:db8::1`); `nil` for anything else.
    package init?(_ text: String) {
        guard let bytes = NetworkAddress.parse(text) else { return nil }
        self.init(bytes: bytes)
    }

    /// As `inet_ntop` writes it (what libcurl reports as the connected address).
    package var text: String { NetworkAddress.text(bytes) }

    /// Why the address is not on the public Internet; `nil` when it is.
    package var privateKind: String? {
        bytes.count == 4 ? Self.v4Kind(bytes) : v6Kind
    }

    private var v6Kind: String? {
        let b = bytes
        if b.allSatisfy({ $0 == 0 }) { return "unspecified" }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return "loopback" }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return Self.v4Kind(Array(b[12...])) }
        if b[0..<12].allSatisfy({ $0 == 0 }) { return Self.v4Kind(Array(b[12...])) ?? "IPv4-compatible" }
        if b[0..<12] == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return Self.v4Kind(Array(b[12...])) }
        // Local-use NAT64 (RFC 8215): a translator of the operator's own, to any IPv4 address.
        if b[0..<6] == [0, 0x64, 0xFF, 0x9B, 0, 1] { return "local-use NAT64 (64:ff9b:1::/48)" }
        if b[0] == 0 { return "reserved (::/8)" }
        if b[0..<8] == [0x01, 0, 0, 0, 0, 0, 0, 0] { return "discard-only (100::/64)" }
        if b[0..<4] == [0x20, 0x01, 0, 0] { return "Teredo (2001::/32)" }
        if b[0..<6] == [0x20, 0x01, 0, 0x02, 0, 0] { return "benchmarking (2001:2::/48)" }
        if b[0..<3] == [0x20, 0x01, 0] && (b[3] & 0xF0 == 0x10 || b[3] & 0xF0 == 0x20) { return "ORCHID (2001:10::/28, 2001:20::/28)" }
        if b[0] == 0x3F && b[1] & 0xF0 == 0xF0 { return "documentation (3fff::/20)" }
        if b[0] == 0x5F { return "reserved (5f00::/16)" }
        if b[0] == 0x20 && b[1] == 0x02 { return Self.v4Kind(Array(b[2..<6])) }   // 6to4: 2002:AABB:CCDD::/48
        if b[0] == 0xFF { return "multicast" }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return "link-local" }
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return "site-local" }
        if b[0] & 0xFE == 0xFC { return "private (unique local, or cloud metadata)" }
        if b[0..<4] == [0x20, 0x01, 0x0D, 0xB8] { return "documentation (2001:db8::/32)" }
        return nil
    }

    private static func v4Kind(_ b: [UInt8]) -> String? {
        switch (b[0], b[1]) {
        case (0, _): return "unspecified (0/8)"
        case (10, _), (172, 16...31), (192, 168): return "private"
        case (100, 64...127): return "shared (100.64/10, cloud metadata)"
        case (127, _): return "loopback"
        case (169, 254): return "link-local (cloud metadata)"
        case (192, 0) where b[2] == 0: return "IETF protocol assignments (192.0.0/24)"
        case (198, 18...19): return "benchmarking (198.18/15)"
        case (192, 88) where b[2] == 99: return "6to4 relay anycast (192.88.99/24)"
        case (192, 0) where b[2] == 2, (198, 51) where b[2] == 100, (203, 0) where b[2] == 113:
            return "documentation (192.0.2/24, 198.51.100/24, 203.0.113/24)"
        case (224...239, _): return "multicast"
        case (240...255, _): return "reserved or broadcast"
        default: return nil
        }
    }
}
