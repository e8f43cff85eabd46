import AttachKit

/// One `attachkit` subcommand: declares its options, checks them in `init` (usage errors exit 64
/// before any work), then runs.
protocol Command {
    static var name: String { get }
    /// One line for `attachkit --help`.
    static var summary: String { get }
    /// The full usage text for `attachkit help NAME`.
    static var usage: String { get }
    /// Options that take a value.
    static var options: Set<String> { get }
    /// Boolean flags.
    static var flags: Set<String> { get }

    init(_ arguments: Arguments) throws(UsageError)
    func run() -> ExitCode
}

/// Files named on the command line, with folders expanded, and the access ledger that grants them.
struct InputSet {
    /// Files in the order given; a folder contributes its files (recursively, sorted, hidden ones skipped).
    let files: [String]
    let ledger: AccessLedger
    /// The scopes of ``ledger``: each folder named, each file named, and `allow`.
    let scopes: [AccessScope]
    /// Folders named, or what beneath them, that could not be listed or looked at (their files are
    /// missing from ``files``), each with the reason.
    let unlistable: [(path: String, reason: String)]
    /// ``unlistable`` by path.
    private let walkFailures: [ExactPath: String]

    /// - Throws: ``UsageError`` when nothing is named or a named path does not exist.
    init(_ paths: [String], allow: [String] = []) throws(UsageError) {
        guard !paths.isEmpty else { throw UsageError("no input files") }
        var files: [String] = []
        var scopes: [AccessScope] = []
        var unlistable: [(path: String, reason: String)] = []
        do {
            for folder in allow { scopes.append(try AccessScope.folder(folder)) }
            for path in paths {
                if FileSystem.isDirectory(path) {
                    scopes.append(try AccessScope.folder(path))
                    let listing = FileSystem.listing(under: path)
                    let prefix = path.hasSuffix("/") ? path : path + "/"
                    files += listing.files.map { prefix + $0 }
                    unlistable += listing.unlistable.map { ($0.folder.isEmpty ? path : prefix + $0.folder, $0.reason) }
                } else {
                    // A file named explicitly is an explicit grant; a missing one is reported per file.
                    if let scope = try? AccessScope.file(path) { scopes.append(scope) }
                    files.append(path)
                }
            }
        } catch {
            throw UsageError(error.description)
        }
        if scopes.isEmpty, let anyFolder = try? AccessScope.folder(".") { scopes.append(anyFolder) }
        self.files = files
        self.unlistable = unlistable
        self.walkFailures = Dictionary(unlistable.map { (ExactPath($0.path), $0.reason) }, uniquingKeysWith: { first, _ in first })
        self.scopes = scopes
        self.ledger = AccessLedger(scopes: scopes)
    }

    /// Every path to report on: ``files``, then each entry of ``unlistable`` (which fails with its
    /// reason through ``withAccess(_:refused:_:)``).
    var paths: [String] { files + unlistable.map(\.path) }

    /// The ledger's `withAccess` for a path of ``paths``: an entry the walk could not list or look
    /// at is refused (`unreadable`, with the walk's reason) like a file that cannot be read.
    func withAccess<Value>(_ path: String, refused: (AccessError) -> Value, _ body: (borrowing AccessHandle) -> Value) -> Value {
        if let reason = walkFailures[ExactPath(path)] {
            return refused(.unusable(path: path, reason: "the walk cannot list or look at it (\(reason)); its files are left out"))
        }
        return ledger.withAccess(path, refused: refused, body)
    }

    /// Prints any access-handle problem to stderr; `.software` when there is one.
    func checkLedger() -> ExitCode? {
        let report = ledger.report
        guard !report.isClean else { return nil }
        for problem in report.problems { Output.error("attachkit: \(problem)") }
        return .software
    }
}
