#if canImport(Glibc)
import Glibc
#endif

/// Whole small text files (`/proc` files, which report a size of 0, and caches).
enum TextFile {
    /// The file's text (invalid UTF-8 repaired), `nil` when it cannot be opened, is not a regular
    /// file (a FIFO or a device in a cache's place would block or never end: opened without
    /// blocking, then refused), or is over `limit` bytes.
    static func contents(_ path: String, limit: Int = 4 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
            if bytes.count > limit { return nil }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
