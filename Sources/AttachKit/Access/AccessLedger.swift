
/// Grants ``AccessHandle``s inside allowed scopes and keeps count: which handles are outstanding,
/// where each was acquired, and every misuse (a leak, a double release). Safe to share between
/// threads.
///
/// Tests assert ``report`` is clean after each use; the CLI prints it to stderr and exits with
/// status 70 when it is not.
public final class AccessLedger: Sendable {
    /// Identifies one acquisition.
    struct Token: Sendable, Hashable {
        let id: UInt64
    }

    /// One acquisition, for reports.
    public struct Record: Sendable, Equatable {
        public let path: String
        public let mode: AccessMode
        /// `file:line` of the `acquire` call.
        public let acquiredAt: String
    }

    /// A snapshot of the ledger.
    public struct Report: Sendable, Equatable {
        /// Handles acquired and not yet released.
        public var outstanding: [Record]
        /// Handles dropped without release.
        public var leaked: [Record]
        /// Releases of handles that were already released.
        public var doubleReleases: [Record]
        /// Handles acquired since the ledger was made.
        public var acquired: Int

        /// No handle outstanding, leaked or released twice.
        public var isClean: Bool { outstanding.isEmpty && leaked.isEmpty && doubleReleases.isEmpty }

        /// One line per problem, empty when clean.
        public var problems: [String] {
            leaked.map { AccessError.leaked(path: $0.path, acquiredAt: $0.acquiredAt).description }
                + doubleReleases.map { AccessError.doubleRelease(path: $0.path, acquiredAt: $0.acquiredAt).description }
                + outstanding.map { "access handle for \($0.path) (acquired at \($0.acquiredAt)) is still outstanding" }
        }
    }

    private struct State {
        var nextID: UInt64 = 1
        var outstanding: [UInt64: Record] = [:]
        /// The most recent releases, kept to name the path in a double-release report. Older ones
        /// are forgotten so a long-running worker's ledger stays small; any token below `nextID` that
        /// is not outstanding has been ended already, so detection does not depend on this cache.
        var recentlyReleased: [UInt64: Record] = [:]
        var releaseOrder: [UInt64] = []
        var leaked: [Record] = []
        var doubleReleases: [Record] = []
        var acquired = 0
    }

    private let state = Locked(State())
    /// The scopes handles may be granted in.
    public let scopes: [AccessScope]

    /// A ledger granting access inside `scopes`.
    public init(scopes: [AccessScope]) {
        self.scopes = scopes
    }

    /// Grants access to `path` inside one of the ledger's scopes.
    ///
    /// For `.read` the file must exist and resolve (symbolic links followed) inside a scope. For
    /// `.write` the folder must exist and resolve inside a folder scope; the file itself may not
    /// exist yet (and if it is a symbolic link, the link is resolved too).
    /// - Throws: ``AccessError/notFound(path:)``, ``AccessError/outsideScope(path:resolved:)``,
    ///   ``AccessError/noScope(path:)``.
    public func acquire(_ path: String, mode: AccessMode = .read,
                        fileID: String = #fileID, line: Int = #line) throws(AccessError) -> AccessHandle {
        guard !scopes.isEmpty else { throw .noScope(path: path) }
        let absolute = PathResolver.absolute(path)
        let resolved: String
        switch mode {
        case .read:
            guard let real = PathResolver.realPath(absolute) else { throw .notFound(path: path) }
            resolved = real
        case .write:
            if let real = PathResolver.realPath(absolute) {
                resolved = real
            } else {
                let normalized = PathResolver.normalized(absolute)
                guard let folder = PathResolver.realPath(PathResolver.directory(normalized)) else { throw .notFound(path: path) }
                resolved = (folder == "/" ? "" : folder) + "/" + PathResolver.fileName(normalized)
            }
        }
        let allowed = scopes.contains { scope in
            mode == .write && scope.kind == .file ? false : scope.contains(resolvedPath: resolved)
        }
        guard allowed else { throw .outsideScope(path: path, resolved: resolved) }
        let record = Record(path: resolved, mode: mode, acquiredAt: "\(fileID):\(line)")
        let token = state.withLock { state -> Token in
            let id = state.nextID
            state.nextID += 1
            state.outstanding[id] = record
            state.acquired += 1
            return Token(id: id)
        }
        return AccessHandle(path: resolved, requestedPath: path, mode: mode, token: token, ledger: self)
    }

    /// Ends an acquisition; a second end of the same token is recorded as a double release.
    func end(_ token: Token) {
        state.withLock { state in
            if let record = state.outstanding.removeValue(forKey: token.id) {
                state.recentlyReleased[token.id] = record
                state.releaseOrder.append(token.id)
                if state.releaseOrder.count > 1024 {
                    for id in state.releaseOrder.prefix(512) { state.recentlyReleased[id] = nil }
                    state.releaseOrder.removeFirst(512)
                }
            } else if token.id < state.nextID {
                let record = state.recentlyReleased[token.id]
                    ?? Record(path: "(handle #\(token.id))", mode: .read, acquiredAt: "unknown")
                state.doubleReleases.append(record)
            }
        }
    }

    /// Records that a handle went away without release.
    func recordLeak(_ token: Token) {
        state.withLock { state in
            if let record = state.outstanding.removeValue(forKey: token.id) {
                state.leaked.append(record)
            }
        }
    }

    /// The ledger's current counts.
    public var report: Report {
        state.withLock { state in
            Report(outstanding: state.outstanding.values.sorted { $0.acquiredAt < $1.acquiredAt },
                   leaked: state.leaked, doubleReleases: state.doubleReleases, acquired: state.acquired)
        }
    }
}
