
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
    /// For `.read` the file must exist, resolve (symbolic links followed) inside a scope and be a
    /// regular file; it is opened there and then, once, beneath the scope's root descriptor, and
    /// every later read goes through that descriptor (``AccessHandle/path``). For `.write` the
    /// folder must exist and resolve inside a folder scope; the folder is opened the same way and
    /// the file itself may not exist yet (`..` is applied to the text of the path, and the name
    /// is never followed: outputs replace it, never what a link there points to).
    ///
    /// Symbolic links inside a scope that stay inside it are followed. The path is resolved first
    /// to choose the scope, then opened beneath the root with no link followed at all, so a link
    /// swapped in between fails the open instead of leading outside; a path that keeps changing
    /// is refused with ``AccessError/changed(path:)``.
    /// - Throws: ``AccessError/notFound(path:)``, ``AccessError/outsideScope(path:resolved:)``,
    ///   ``AccessError/noScope(path:)``, ``AccessError/changed(path:)``,
    ///   ``AccessError/unusable(path:reason:)`` (a folder, FIFO or device to read; a file to
    ///   write into).
    public func acquire(_ path: String, mode: AccessMode = .read,
                        fileID: String = #fileID, line: Int = #line) throws(AccessError) -> AccessHandle {
        guard !scopes.isEmpty else { throw .noScope(path: path) }
        let opened = mode == .read ? try openFile(path) : try openFolder(path)
        let record = Record(path: opened.resolved, mode: mode, acquiredAt: "\(fileID):\(line)")
        let token = state.withLock { state -> Token in
            let id = state.nextID
            state.nextID += 1
            state.outstanding[id] = record
            state.acquired += 1
            return Token(id: id)
        }
        return AccessHandle(descriptor: opened.descriptor, resolvedPath: opened.resolved, requestedPath: path, mode: mode,
                            fileName: opened.fileName, token: token, ledger: self)
    }

    /// How many times a path whose links change under the open is tried again before it is
    /// refused as ``AccessError/changed(path:)``.
    static let attempts = 4

    private struct Opened {
        let descriptor: Int32
        let resolved: String
        let fileName: String
    }

    /// Opens an existing regular file (`O_PATH`: no read happens, a FIFO cannot block, and each
    /// reader's own open is checked against the file's permissions as usual).
    private func openFile(_ path: String) throws(AccessError) -> Opened {
        let absolute = PathResolver.absolute(path)
        for _ in 0..<Self.attempts {
            let hint: String
            switch PathResolver.resolve(absolute) {
            case .success(let resolved): hint = resolved
            case .failure(let error): throw AccessError(resolving: path, error)
            }
            guard let scope = scopes.first(where: { $0.contains(resolvedPath: hint) }) else {
                throw .outsideScope(path: path, resolved: hint)
            }
            let result: Result<Int32, SystemError> = scope.kind == .folder
                ? Descriptors.open(beneath: scope.anchor.descriptor, scope.relative(hint), flags: .pathOnly)
                : Self.openGranted(file: hint, identity: scope.anchor.identity)
            switch result {
            case .success(let descriptor):
                if let kind = Descriptors.irregularKind(of: descriptor) {
                    FileDescriptor(adopting: descriptor).close()
                    throw .unusable(path: path, reason: "\(kind), not a regular file")
                }
                return Opened(descriptor: descriptor, resolved: Descriptors.location(of: descriptor) ?? hint, fileName: "")
            case .failure(let error) where Self.isRace(error):
                continue
            case .failure(let error):
                throw .unusable(path: path, reason: "cannot open: \(error)")
            }
        }
        throw .changed(path: path)
    }

    /// Opens the folder an output will be created in (read-only, for `fsync`; `O_PATH` when the
    /// folder cannot be listed), beneath a folder scope.
    private func openFolder(_ path: String) throws(AccessError) -> Opened {
        let normalized = PathResolver.normalized(PathResolver.absolute(path))
        let name = PathResolver.fileName(normalized)
        guard !name.isEmpty else { throw .notFound(path: path) }
        for _ in 0..<Self.attempts {
            let folder: String
            switch PathResolver.resolve(PathResolver.directory(normalized)) {
            case .success(let resolved): folder = resolved
            case .failure(let error): throw AccessError(resolving: PathResolver.directory(normalized), error)
            }
            let target = (folder == "/" ? "" : folder) + "/" + name
            guard let scope = scopes.first(where: { $0.kind == .folder && $0.contains(resolvedPath: folder) }) else {
                throw .outsideScope(path: path, resolved: target)
            }
            var result = Descriptors.open(beneath: scope.anchor.descriptor, scope.relative(folder), flags: [.readOnly, .directory])
            if case .failure(let error) = result, error == .permissionDenied {
                result = Descriptors.open(beneath: scope.anchor.descriptor, scope.relative(folder), flags: [.pathOnly, .directory])
            }
            switch result {
            case .success(let descriptor):
                let resolved = Descriptors.location(of: descriptor) ?? folder
                return Opened(descriptor: descriptor, resolved: (resolved == "/" ? "" : resolved) + "/" + name, fileName: name)
            case .failure(let error) where Self.isRace(error):
                continue
            case .failure(let error) where error == .notDirectory:
                throw .unusable(path: path, reason: "\(PathResolver.directory(normalized)) is not a folder")
            case .failure(let error):
                throw .unusable(path: path, reason: "cannot open the folder: \(error)")
            }
        }
        throw .changed(path: path)
    }

    /// Opens the file a file scope grants, by its resolved path, if it is still that file.
    private static func openGranted(file: String, identity: FileIdentity) -> Result<Int32, SystemError> {
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.open(file, [.pathOnly, .noFollow]) } catch { return .failure(error) }
        guard FileIdentity(descriptor: descriptor.rawValue) == identity else { return .failure(.crossDevice) }
        return .success(descriptor.release())
    }

    /// Failures that mean the path changed between resolving it and opening it: a symbolic link
    /// appeared (ELOOP), the walk would leave the root (EXDEV), or the entry vanished (ENOENT).
    private static func isRace(_ error: SystemError) -> Bool {
        error == .tooManySymbolicLinks || error == .crossDevice || error == .noEntry || error == .wouldBlock
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
