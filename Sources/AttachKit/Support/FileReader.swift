/// A read-only file opened by path, read with `pread` at any offset. One owner; the descriptor is
/// closed when the reader goes away. Reads never run past the size seen at open time.
///
/// A ``window(at:count:)`` reads a part of the file as if it were a whole file (offset 0 is the
/// part's first byte): a camera raw's embedded JPEG preview, checked and measured by the JPEG
/// readers as they are.
struct FileReader: ~Copyable {
    private let fd: FileDescriptor
    /// File size in bytes when opened (a window's length).
    let size: Int64
    /// Where offset 0 is in the file (0 but for a window).
    private let base: Int64

    /// Opens `path` for reading, without blocking (a FIFO is refused as not a regular file, not
    /// waited on; reads of a regular file are not affected).
    /// - Throws: ``FileReadError`` with the `errno` meaning (missing, permission, not a regular file).
    init(path: String) throws(FileReadError) {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, [.readOnly, .nonBlocking]) } catch { throw FileReadError(path: path, error: error) }
        let status: FileStatus
        do { status = try fd.status() } catch { throw FileReadError(path: path, error: error) }
        guard status.kind == .regular else {
            throw FileReadError(path: path, error: .isDirectory, notRegular: true)
        }
        self.fd = fd
        self.size = status.size
        self.base = 0
    }

    private init(fd: consuming FileDescriptor, base: Int64, size: Int64) {
        self.fd = fd
        self.base = base
        self.size = size
    }

    /// The `count` bytes at `offset` read as a file of their own (through a duplicate of the
    /// descriptor), cut at the end of this one; `nil` when `offset` is outside it or the
    /// descriptor cannot be duplicated.
    func window(at offset: Int64, count: Int64) -> FileReader? {
        guard offset >= 0, offset <= size, count >= 0, let copy = try? fd.duplicate() else { return nil }
        return FileReader(fd: copy, base: base + offset, size: min(count, size - offset))
    }

    /// Up to `count` bytes starting at `offset`; fewer at the end of the file, none past it.
    func read(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, offset < size, count > 0 else { return [] }
        let wanted = Int(min(Int64(count), size - offset))
        var buffer = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        buffer.withUnsafeMutableBytes { raw in
            while filled < wanted {
                let n = (try? fd.read(fromAbsoluteOffset: base + offset + Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: raw[filled..<wanted]))) ?? 0
                if n > 0 { filled += n } else { break }
            }
        }
        if filled < wanted { buffer.removeLast(wanted - filled) }
        return buffer
    }

    /// Calls `body` with consecutive chunks from `offset` to the end of the file, stopping early
    /// when `body` returns `false`. Used by checks that scan a whole file in constant memory.
    func scan(from offset: Int64, chunkSize: Int = 1 << 16, _ body: (_ chunkOffset: Int64, _ chunk: [UInt8]) -> Bool) {
        var position = offset
        while position < size {
            let chunk = read(at: position, count: chunkSize)
            if chunk.isEmpty || !body(position, chunk) { return }
            position += Int64(chunk.count)
        }
    }
}

/// A file could not be opened or read.
struct FileReadError: Error, Sendable {
    let path: String
    let error: SystemError
    var notRegular = false

    var message: String {
        // A descriptor path (`/proc/self/fd/N`, an access handle's) means nothing to people: the
        // caller's message names the file.
        let subject = path.hasPrefix("/proc/self/fd/") ? nil : path
        if notRegular { return (subject ?? "it") + " is not a regular file" }
        return (subject.map { $0 + ": " } ?? "") + error.description
    }
}

/// Big- and little-endian integer reads from byte arrays, bounds-checked (missing bytes read as 0;
/// callers check lengths first where it matters).
extension Array where Element == UInt8 {
    func u8(_ i: Int) -> UInt32 { i >= 0 && i < count ? UInt32(self[i]) : 0 }
    func be16(_ i: Int) -> UInt32 { u8(i) << 8 | u8(i + 1) }
    func be24(_ i: Int) -> UInt32 { u8(i) << 16 | u8(i + 1) << 8 | u8(i + 2) }
    func be32(_ i: Int) -> UInt32 { be16(i) << 16 | be16(i + 2) }
    func be64(_ i: Int) -> UInt64 { UInt64(be32(i)) << 32 | UInt64(be32(i + 4)) }
    func le16(_ i: Int) -> UInt32 { u8(i) | u8(i + 1) << 8 }
    func le32(_ i: Int) -> UInt32 { le16(i) | le16(i + 2) << 16 }
    func le64(_ i: Int) -> UInt64 { UInt64(le32(i)) | UInt64(le32(i + 4)) << 32 }

    /// The bytes at `i..<i+n` as ASCII text (for four-character codes); empty when out of range.
    func ascii(_ i: Int, _ n: Int) -> String {
        guard i >= 0, n >= 0, i + n <= count else { return "" }
        return String(decoding: self[i..<(i + n)], as: UTF8.self)
    }

    /// Whether the bytes at `i` equal `pattern`.
    func matches(_ pattern: [UInt8], at i: Int) -> Bool {
        guard i >= 0, i + pattern.count <= count else { return false }
        for (k, byte) in pattern.enumerated() where self[i + k] != byte { return false }
        return true
    }

    func matches(_ text: String, at i: Int) -> Bool { matches(Array(text.utf8), at: i) }
}
