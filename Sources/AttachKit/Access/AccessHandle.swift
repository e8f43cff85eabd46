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
public struct AccessHandle: ~Copyable {
    /// The resolved absolute path (symbolic links followed) every read or write must use.
    public let path: String
    /// The path as the caller gave it, for messages and reports.
    public let requestedPath: String
    public let mode: AccessMode
    let token: AccessLedger.Token
    private let ledger: AccessLedger
    private var released = false

    init(path: String, requestedPath: String, mode: AccessMode, token: AccessLedger.Token, ledger: AccessLedger) {
        self.path = path
        self.requestedPath = requestedPath
        self.mode = mode
        self.token = token
        self.ledger = ledger
    }

    /// Ends access. Consumes the handle.
    public consuming func release() {
        ledger.end(token)
        released = true
    }

    deinit {
        if !released { ledger.recordLeak(token) }
    }
}
