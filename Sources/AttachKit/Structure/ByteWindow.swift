/// A moving read-ahead window over a ``FileReader`` for walks that take many small steps (GIF
/// sub-blocks, MP3 frames, Ogg pages, JPEG markers): one `pread` per window instead of one per
/// step. Memory stays at one window whatever the file size.
///
/// The reader is passed to every call (a noncopyable reader cannot be stored beside the window).
struct ByteWindow {
    /// Bytes fetched per refill. Default 64 KiB.
    let capacity: Int
    private var start: Int64 = 0
    private var bytes: [UInt8] = []

    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
    }

    /// The byte at `offset`, or `nil` past the end of the file (or before its start).
    mutating func byte(at offset: Int64, in reader: borrowing FileReader) -> UInt8? {
        guard offset >= 0, offset < reader.size else { return nil }
        if offset < start || offset >= start + Int64(bytes.count) {
            bytes = reader.read(at: offset, count: capacity)
            start = offset
        }
        let index = Int(offset - start)
        return index < bytes.count ? bytes[index] : nil
    }

    /// The window's buffer and the index in it of the byte at `offset`, with `count` bytes
    /// from there (fewer at the end of the file; `count` capped as in ``bytes(at:count:in:)``),
    /// without copying them out: for walks that look at a few bytes per step (ADTS headers).
    mutating func view(at offset: Int64, count: Int, in reader: borrowing FileReader) -> (bytes: [UInt8], index: Int) {
        guard offset >= 0, offset < reader.size, count > 0 else { return ([], 0) }
        let available = Int(min(Int64(min(count, capacity)), reader.size - offset))
        if offset < start || offset + Int64(available) > start + Int64(bytes.count) {
            bytes = reader.read(at: offset, count: capacity)
            start = offset
        }
        return (bytes, Int(offset - start))
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file). `count` is capped at the
    /// window capacity, so a hostile length field never drives a large allocation.
    mutating func bytes(at offset: Int64, count: Int, in reader: borrowing FileReader) -> [UInt8] {
        guard offset >= 0, offset < reader.size, count > 0 else { return [] }
        let wanted = min(count, capacity)
        let available = Int(min(Int64(wanted), reader.size - offset))
        if offset < start || offset + Int64(available) > start + Int64(bytes.count) {
            bytes = reader.read(at: offset, count: capacity)
            start = offset
        }
        let from = Int(offset - start)
        let to = min(from + available, bytes.count)
        return from < to ? Array(bytes[from..<to]) : []
    }
}
