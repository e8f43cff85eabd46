/// One version of one file: its identity (device and inode) with the size, modification time and
/// status-change time it had when seen. What a batch may replace is named this way: a file
/// deleted after the plan frees its inode, which the file system soon gives to a new file (a
/// user's, put at the same name); the size and times tell the two apart where the inode alone
/// does not. The change time is the one a user cannot set: an edit of the same size whose
/// modification time was put back (`touch -d`) still moves it.
struct FileVersion: Sendable, Hashable, Comparable {
    let identity: FileIdentity
    let size: Int64
    /// Modification time, nanoseconds since the epoch.
    let modified: Int64
    /// Status-change time (`st_ctim`), nanoseconds since the epoch.
    let changed: Int64

    /// The file `name` names in the folder `directory`, never following a link; `nil` when there
    /// is nothing there.
    init?(named name: String, in directory: Int32) {
        guard let status = FileNames.statusIfPresent(name, in: directory, followingLinks: false) else { return nil }
        identity = FileIdentity(status)
        size = status.size
        modified = status.modified
        changed = status.changed
    }

    /// The file at `path` (absolute, or relative to the working directory), never following a link.
    init?(path: String) {
        self.init(named: path, in: FileNames.workingDirectory)
    }

    /// `DEVICE:INODE:SIZE:MTIME_NS:CTIME_NS` in decimal: how a batch names a file its worker may replace.
    var text: String { "\(identity.device):\(identity.inode):\(size):\(modified):\(changed)" }

    /// The version ``text`` names; `nil` when `text` is not in that form.
    init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 5, let device = UInt64(parts[0]), let inode = UInt64(parts[1]),
              let size = Int64(parts[2]), let modified = Int64(parts[3]), let changed = Int64(parts[4]) else { return nil }
        identity = FileIdentity(device: device, inode: inode)
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    static func < (a: FileVersion, b: FileVersion) -> Bool {
        (a.identity.device, a.identity.inode, a.size, a.modified, a.changed) < (b.identity.device, b.identity.inode, b.size, b.modified, b.changed)
    }
}
