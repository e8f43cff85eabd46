/// Whole small text files (`/proc` files, which report a size of 0, and caches).
enum TextFile {
    /// The file's text (invalid UTF-8 repaired), `nil` when it cannot be opened, is not a regular
    /// file (a FIFO or a device in a cache's place would block or never end: opened without
    /// blocking, then refused), or is over `limit` bytes.
    static func contents(_ path: String, limit: Int = 4 << 20) -> String? {
        guard let fd = try? FileDescriptor.open(path, [.readOnly, .nonBlocking]),
              (try? fd.status())?.kind == .regular else { return nil }
        return fd.readAll(limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }
}
