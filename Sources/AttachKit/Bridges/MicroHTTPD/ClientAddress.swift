#if canImport(Glibc)
import Glibc
#endif

/// A client's address as `accept(2)` gave it: what `MHD_add_connection` is handed, and its text
/// (`127.0.0.1`, `::1`), the key the per-client limits count by.
struct ClientAddress: Sendable {
    /// The `sockaddr` bytes.
    private let bytes: [UInt8]
    /// The numeric host (no port).
    let text: String

    init(_ storage: sockaddr_storage, length: socklen_t) {
        var copy = storage
        bytes = withUnsafeBytes(of: &copy) { Array($0.prefix(Int(length))) }
        text = Self.host(of: &copy)
    }

    /// Runs `body` with the address as a `sockaddr` and its length.
    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        bytes.withUnsafeBytes { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count)) }
    }

    /// `inet_ntop` of the address (`?` for a family other than IPv4 and IPv6).
    private static func host(of storage: inout sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(storage.ss_family)
        let converted: UnsafePointer<CChar>? = withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET {
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    withUnsafePointer(to: address.pointee.sin_addr) { inet_ntop(AF_INET, $0, &text, socklen_t(text.count)) }
                }
            }
            guard family == AF_INET6 else { return nil }
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                withUnsafePointer(to: address.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &text, socklen_t(text.count)) }
            }
        }
        return converted == nil ? "?" : String(decoding: text.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
    }
}
