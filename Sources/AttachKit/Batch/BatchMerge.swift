/// `attachkit merge OUT_DIR`: folds every batch manifest in an output folder (the shards'
/// `manifest-shard-I-of-N.jsonl` of any count, and `manifest.jsonl`) into one `manifest.jsonl`
/// with one line per input, then removes the shards' manifests (their lock files stay: a lock
/// file is never removed, see ``BatchLock``).
///
/// Per input, each manifest's last line is its say. When the manifests agree (the same input
/// hash and options hash), the line recorded last wins (``ManifestRecord/isNewer(than:)``). When
/// they disagree on the input's hash, the input's content now decides: the lines for bytes it no
/// longer has are stale and dropped. What is left that still disagrees (other options, or no
/// line matching the content) is a conflict, and so are two inputs whose lines name one output
/// or thumbnail. A conflict is named, and nothing is written or removed, unless
/// ``preferLatest`` resolves it: then the line recorded last wins, and an input whose output
/// another input's later line claims loses its line (the next run prepares it again).
///
/// The merge holds the folder as an unsharded run does (the manifest's ``BatchLock`` and the
/// folder's ``BatchSplitLock``, exclusively): it waits for no run, and refuses while any batch
/// is writing the folder. `manifest.jsonl` is replaced atomically (its compaction temporary,
/// then a rename), so a merge killed at any point leaves the manifests as they were or merged.
public struct BatchMerge: Sendable {
    /// The batch's output folder.
    public var outputRoot: String
    /// Resolve every conflict by taking the line recorded last. Default `false`.
    public var preferLatest = false

    public init(outputRoot: String, preferLatest: Bool = false) {
        self.outputRoot = outputRoot
        self.preferLatest = preferLatest
    }

    /// Two or more lines that cannot both stand.
    public struct Conflict: Sendable, Equatable, CustomStringConvertible {
        /// The input (relative path), or for an output claimed twice, the output (relative to the
        /// output folder).
        public let subject: String
        /// What disagrees, naming the manifests.
        public let message: String
        /// Resolved by ``BatchMerge/preferLatest``: how.
        public let resolution: String?

        public var description: String {
            "\(subject): \(message)" + (resolution.map { "; resolved: \($0)" } ?? "")
        }
    }

    /// What a merge did.
    public struct Result: Sendable {
        /// The merged manifest's path.
        public var path: String
        /// The manifests read, by name.
        public var manifests: [String] = []
        /// Inputs in the merged manifest.
        public var inputs = 0
        /// Lines dropped because a later line for the same input, bytes and options was kept.
        public var duplicates = 0
        /// Lines dropped because the input's content is no longer the one they were made from.
        public var stale = 0
        /// Lines that are not a batch's (torn, damaged): left out.
        public var unreadLines = 0
        public var conflicts: [Conflict] = []
        /// Whether `manifest.jsonl` was written (no conflict left unresolved).
        public var written = false
        /// The shard manifests removed after the merged one was in place.
        public var removed: [String] = []

        /// Conflicts ``BatchMerge/preferLatest`` did not resolve.
        public var unresolved: [Conflict] { conflicts.filter { $0.resolution == nil } }
    }

    /// The merged manifest's name.
    static let mergedName = "manifest.jsonl"

    /// Merges the manifests.
    /// - Throws: ``BatchError``: the folder is not there or holds no manifest (``BatchError/manifest(_:)``),
    ///   a file at a manifest's or lock's name is not a batch's, a batch is writing the folder
    ///   (``BatchError/busy(manifest:pid:)``, ``BatchError/otherSplit(folder:shards:)``), or the
    ///   merged manifest cannot be written.
    public func run() throws(BatchError) -> Result {
        guard let root = PathResolver.realPath(PathResolver.absolute(outputRoot)), FileSystem.isDirectory(root) else {
            throw .outputFolder(outputRoot)
        }
        let found = BatchManifest.manifestNames(in: root)
        guard !found.isEmpty else { throw .manifest("\(root) holds no batch manifest (manifest.jsonl or manifest-shard-I-of-N.jsonl)") }
        let unsharded = BatchOptions(inputRoot: root, outputRoot: root, prepare: PrepareOptions(outputFolder: root))
        try BatchBookkeeping.checkOwnFiles(unsharded.rootFiles + found.map { ($0, "the batch manifest") }, in: root)
        let lock = try BatchLock(manifestPath: root + "/" + Self.mergedName)
        let split = try BatchSplitLock(outputRoot: root, shards: 1)
        let result = try merge(root)
        _ = consume split
        _ = consume lock
        return result
    }

    /// The merge itself, under the locks.
    private func merge(_ root: String) throws(BatchError) -> Result {
        let read = ManifestRecord.latestPerManifest(in: root)
        var result = Result(path: root + "/" + Self.mergedName, manifests: read.manifests, unreadLines: read.unread)
        let inputRoot = ReportSource.inputRoot(of: read.byPath.values.joined().compactMap { record in
            record.json["input"]?.stringValue.map { (record.path.text, $0) }
        })
        var chosen: [ExactPath: ManifestRecord] = [:]
        for (path, records) in read.byPath {
            if let record = choose(path, records, inputRoot: inputRoot, into: &result) { chosen[path] = record }
        }
        settleOutputClaims(&chosen, root: root, into: &result)
        result.conflicts.sort { ExactPath($0.subject) < ExactPath($1.subject) }
        guard result.unresolved.isEmpty else { return result }
        do {
            try BatchManifest.write(lines: chosen.keys.sorted().map { chosen[$0]!.line }, to: result.path)
        } catch {
            throw .manifest(error.description)
        }
        result.written = true
        result.inputs = chosen.count
        for name in read.manifests where name != Self.mergedName {
            if (try? FileNames.remove(root + "/" + name)) != nil { result.removed.append(name) }
        }
        return result
    }

    /// The line that stands for one input, or `nil` when none does (a conflict left unresolved).
    private func choose(_ path: ExactPath, _ records: [ManifestRecord], inputRoot: String?, into result: inout Result) -> ManifestRecord? {
        var candidates = records.sorted { $0.isNewer(than: $1) }
        let key = { (record: ManifestRecord) in record.inputHash + " " + (record.optionsHash ?? "") }
        var unreadable = false
        if Set(candidates.map(key)).count > 1, Set(candidates.map(\.inputHash)).count > 1 {
            if let inputRoot, let hash = ReportSource.currentHash(of: path.text, under: inputRoot) {
                let current = candidates.filter { $0.inputHash == hash }
                if !current.isEmpty {
                    result.stale += candidates.count - current.count
                    candidates = current
                }
            } else {
                unreadable = true
            }
        }
        let kinds = Set(candidates.map(key))
        guard kinds.count > 1 else {
            result.duplicates += candidates.count - 1
            return candidates.first
        }
        let hashes = Set(candidates.map(\.inputHash)).count > 1
        let said = candidates.map { "\($0.manifest) (recorded \($0.recordedAt)\($0.stamped ? "" : ", the manifest's time"))" }
        let message = hashes
            ? "the manifests record different input bytes (input hashes differ), \(unreadable ? "and the input cannot be read now to tell which is current" : "none of them the input's content now"): \(said.joined(separator: ", "))"
            : "the manifests record the same input under different options (options hashes differ): \(said.joined(separator: ", "))"
        let newest = candidates[0]
        result.conflicts.append(Conflict(subject: path.text, message: message,
                                         resolution: preferLatest ? "kept the line recorded last, in \(newest.manifest)" : nil))
        return preferLatest ? newest : nil
    }

    /// Two inputs whose chosen lines name one output or thumbnail: a conflict; with
    /// ``preferLatest`` the line recorded last keeps the file and the other input loses its line.
    private func settleOutputClaims(_ chosen: inout [ExactPath: ManifestRecord], root: String, into result: inout Result) {
        var claims: [ExactPath: [ManifestRecord]] = [:]
        for record in chosen.values {
            for file in Set(BatchManifest.recordedFiles(of: record.json, outputRoot: root).map(\.path)) { claims[file, default: []].append(record) }
        }
        for (file, records) in claims.sorted(by: { $0.key < $1.key }) where Set(records.map(\.path)).count > 1 {
            let ordered = records.sorted { $0.isNewer(than: $1) }
            let said = ordered.map { "\($0.path.text) in \($0.manifest) (recorded \($0.recordedAt))" }.joined(separator: ", ")
            let kept = ordered[0]
            result.conflicts.append(Conflict(subject: file.text, message: "one output claimed by \(ordered.count) inputs: \(said)",
                                             resolution: preferLatest ? "kept \(kept.path.text)'s line; the others are prepared again on the next run" : nil))
            if preferLatest {
                for loser in ordered.dropFirst() where chosen[loser.path]?.line == loser.line { chosen[loser.path] = nil }
            } else {
                for record in ordered { chosen[record.path] = nil }
            }
        }
    }
}
