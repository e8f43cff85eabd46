/// What a manifest line records of a file the batch committed (its output, its thumbnail): the
/// inode, the size, the modification and status-change times in nanoseconds, as `stat(2)` gave
/// them just after the rename, plus the device for the reader.
///
/// A later run may replace the file at that name only while it is still this version
/// (``matches(_:)``): a user who rewrote `out/photo.jpg` in place (same inode, another size or
/// time; or the same size with the modification time put back, which still moves the change
/// time) or put another file there has made it theirs, and it is never replaced or removed. The
/// device is recorded but not compared: a shared volume shows one file under another device
/// number on each machine (the inode, size and time are the server's).
///
/// In the line: `"outputFile": {"bytes": 171547, "mtimeNs": "1764670388123456789", "ctimeNs":
/// "1764670388123456789", "inode": "1234567", "device": "2049"}` (the large numbers as decimal
/// strings, which every JSON reader keeps exact). A line without it, or without `ctimeNs` (a
/// manifest from before they were recorded), proves nothing: its file is not replaced.
struct OutputStamp: Sendable, Hashable {
    let inode: UInt64
    let device: UInt64
    let size: Int64
    /// Modification time, nanoseconds since the epoch.
    let modified: Int64
    /// Status-change time, nanoseconds since the epoch.
    let changed: Int64

    init(_ version: FileVersion) {
        inode = version.identity.inode
        device = version.identity.device
        size = version.size
        modified = version.modified
        changed = version.changed
    }

    /// The stamp a line records under `json`; `nil` when there is none or it is malformed.
    init?(json: JSONValue?) {
        guard let json, let inode = json["inode"]?.stringValue.flatMap({ UInt64($0) }),
              let modified = json["mtimeNs"]?.stringValue.flatMap({ Int64($0) }),
              let changed = json["ctimeNs"]?.stringValue.flatMap({ Int64($0) }),
              let size = json["bytes"]?.doubleValue, size >= 0, size < 9.0e15 else { return nil }
        self.inode = inode
        self.device = json["device"]?.stringValue.flatMap { UInt64($0) } ?? 0
        self.size = Int64(size)
        self.modified = modified
        self.changed = changed
    }

    var json: JSONValue {
        .object([("bytes", .number(Double(size))), ("mtimeNs", .string(String(modified))), ("ctimeNs", .string(String(changed))),
                 ("inode", .string(String(inode))),
                 ("device", .string(String(device)))])
    }

    /// Whether `version` (a file on disk now) is the version this stamp recorded: the same inode,
    /// size, modification and change times.
    func matches(_ version: FileVersion) -> Bool {
        version.identity.inode == inode && version.size == size && version.modified == modified && version.changed == changed
    }

    /// The key under which a line records the stamp of the file it names under `key`
    /// (`outputPath` → `outputFile`, `thumbnail` → `thumbnailFile`).
    static let outputKey = "outputFile"
    static let thumbnailKey = "thumbnailFile"
}

/// A file a manifest line says the batch wrote, relative to the output root, with the stamp it
/// recorded (`nil`: none recorded, so it cannot be proved the batch's).
struct RecordedFile: Sendable, Hashable {
    let path: ExactPath
    let stamp: OutputStamp?
}

/// One manifest line's record of a file it wrote: for which input (its path relative to the
/// input root), with the stamp it recorded (``OutputLayout``: only that input's output may take
/// the file's name while it is still that version).
struct RecordedWrite: Sendable, Hashable {
    let input: ExactPath
    let stamp: OutputStamp?
}
