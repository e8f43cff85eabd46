/// The report's HTML file under construction: written piece by piece under a temporary name in
/// its folder (``AtomicOutput``) and renamed into place when whole, so a reader never sees half a
/// report and a failure leaves none.
///
/// What it may replace: only a batch report AttachKit wrote, recognised by ``marker``, the
/// comment that opens every report (so `batch --report` and `report` can be run again over the
/// same file). Anything else at the path (a user's page, an input, a link, a FIFO) is refused
/// with `output-collision` before any work, and the final rename never replaces a file that
/// appeared meanwhile (`RENAME_NOREPLACE`). A report is never written into the batch's input
/// folder (outside an output folder nested there), where the next run would take it for an input.
struct ReportFile: ~Copyable {
    /// The first bytes of every report, how a later run knows a report it may replace.
    static let marker = "<!DOCTYPE html>\n<!-- attachkit batch report"

    private let output: AtomicOutput
    private let name: String
    /// Text appended since the last flush.
    private var pending: [UInt8] = []

    /// Checks `path` and opens its temporary file.
    /// - Parameters:
    ///   - inputRoot: the batch's input folder, when known.
    ///   - inputs: the batch's inputs (absolute paths): never replaced, even by a report.
    /// - Throws: ``BatchReportError/output(_:)``: `output-collision` for a path the report may not
    ///   replace or a folder inside the input folder; `write-failed` when the folder is missing or
    ///   the temporary file cannot be made.
    init(path: String, inputRoot: String?, outputRoot: String, inputs: @autoclosure () -> [String]) throws(BatchReportError) {
        let absolute = PathResolver.absolute(path)
        name = PathResolver.fileName(absolute)
        guard !name.isEmpty, !path.hasSuffix("/"), let folder = PathResolver.realPath(PathResolver.directory(absolute)),
              FileSystem.isDirectory(folder), !FileSystem.isDirectory(absolute) else {
            throw .output(.system(operation: "write", path: path, reason: "give the report's file path in an existing folder (e.g. report.html)"))
        }
        if let inputRoot, Self.isBeneath(folder, inputRoot), !Self.isBeneath(folder, outputRoot) {
            throw .output(.collision(path: path, with: "it is inside the batch's input folder \(inputRoot), where the next run would take it for an input"))
        }
        let replaceable = try Self.replaceable(folder + "/" + name, shownAs: path, inputs: inputs)
        do {
            let ledger = AccessLedger(scopes: [try AccessScope.folder(folder)])
            output = try AtomicOutput(folder: folder, stem: name, ledger: ledger, guarding: OutputGuard(replaceable: replaceable))
        } catch let error as AccessError {
            throw .output(.access(error))
        } catch let error as OutputError {
            throw .output(error)
        } catch {
            throw .output(.system(operation: "write", path: path, reason: "\(error)"))
        }
    }

    /// Whether `path` is `folder` or beneath it (real paths).
    private static func isBeneath(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }

    /// The file at `path` the report may replace: none when nothing is there; the report there
    /// when it opens with ``marker`` and is no input.
    /// - Throws: ``OutputError/collision(path:with:)`` for anything else there.
    private static func replaceable(_ path: String, shownAs shown: String, inputs: () -> [String]) throws(BatchReportError) -> Set<FileVersion> {
        guard let version = FileVersion(path: path) else { return [] }
        let fd = try? FileDescriptor.open(path, [.readOnly, .noFollow, .nonBlocking])
        let head: [UInt8]
        if let fd, let status = try? fd.status(), status.kind == .regular, FileIdentity(status) == version.identity {
            var bytes = [UInt8](repeating: 0, count: marker.utf8.count)
            let count = (try? fd.read(into: &bytes, retryOnInterrupt: false)) ?? -1
            head = Array(bytes.prefix(max(0, count)))
        } else {
            head = []
        }
        guard head.elementsEqual(marker.utf8) else {
            throw .output(.collision(path: shown, with: "a file that is not a batch report AttachKit wrote is there, and is never replaced"))
        }
        if inputs().contains(where: { FileIdentity(path: $0, followingLinks: true) == version.identity }) {
            throw .output(.collision(path: shown, with: "it is an input of the batch"))
        }
        return [version]
    }

    /// Adds `text` to the report (written out in pieces of about 1 MB).
    mutating func append(_ text: String) throws(BatchReportError) {
        pending += text.utf8
        if pending.count >= 1 << 20 { try flush() }
    }

    private mutating func flush() throws(BatchReportError) {
        do { try output.append(pending) } catch { throw .output(error) }
        pending.removeAll(keepingCapacity: true)
    }

    /// Renames the whole report into place.
    /// - Returns: its absolute path.
    consuming func commit() throws(BatchReportError) -> String {
        try flush()
        do { return try output.commit(named: name) } catch { throw .output(error) }
    }
}
