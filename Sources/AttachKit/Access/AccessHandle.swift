/// Whether a handle reads an existing file or creates an output.
public enum AccessMode: String, Sendable {
    case read
    case write
}

/// Permission to use one resource inside an allowed scope, acquired from an ``AccessLedger`` and
/// released exactly once, like a `startAccessingSecurityScopedResource()` /
/// `stopAccessingSecurityScopedResource()` pair on iOS.
///
/// The type is noncopyable and ``release()`` consumes it, so the compiler rejects a second release
/// or a use after release. A handle that goes out of scope without ``release()`` is recorded in
/// the ledger as a leak, with the place it was acquired.
///
/// The handle owns a descriptor opened once, beneath its scope's root, when it was granted: the
/// file itself for `.read` (the file checked is the file every reader reads), the folder for
/// `.write` (outputs are created relative to it). The descriptor is closed when the handle goes
/// away, released or not.
public struct AccessHandle: ~Copyable {
    /// The path every read must use: for `.read`, `/proc/self/fd/N`, which reopens exactly the
    /// file that was checked (libvips loaders and libavformat open it by this path); for
    /// `.write`, the folder's descriptor path followed by the file name. Valid while the handle
    /// is held, in this process only; never shown to people (see ``resolvedPath``).
    public let path: String
    /// Where the file is (its real path when it was opened, symbolic links resolved), for
    /// messages and reports.
    public let resolvedPath: String
    /// The path as the caller gave it, for messages and reports.
    public let requestedPath: String
    public let mode: AccessMode
    let token: AccessLedger.Token
    /// The file (`.read`, opened `O_PATH`) or the folder (`.write`).
    let descriptor: Int32
    /// For `.write`: the name of the file to create in the folder.
    let fileName: String
    private let ledger: AccessLedger
    private var released = false
    private var ownsDescriptor = true

    init(descriptor: Int32, resolvedPath: String, requestedPath: String, mode: AccessMode, fileName: String,
         token: AccessLedger.Token, ledger: AccessLedger) {
        self.descriptor = descriptor
        self.path = Descriptors.path(of: descriptor) + (mode == .write ? "/" + fileName : "")
        self.resolvedPath = resolvedPath
        self.requestedPath = requestedPath
        self.mode = mode
        self.fileName = fileName
        self.token = token
        self.ledger = ledger
    }

    /// The identity of the file (or folder) the handle holds.
    var identity: FileIdentity? { FileIdentity(descriptor: descriptor) }

    /// Ends access. Consumes the handle.
    public consuming func release() {
        ledger.end(token)
        released = true
    }

    /// Ends access and hands the descriptor over to the caller, who must close it. Consumes the
    /// handle.
    consuming func releaseTakingDescriptor() -> Int32 {
        ledger.end(token)
        released = true
        ownsDescriptor = false
        return descriptor
    }

    deinit {
        if !released { ledger.recordLeak(token) }
        if ownsDescriptor { FileDescriptor(adopting: descriptor).close() }
    }
}
