#if canImport(Glibc)
import Glibc
#endif

/// Prepares every file under a folder into a mirrored output folder, in parallel, with a resumable
/// manifest. One bad file never stops the batch: its failure is a manifest line like any other.
///
/// Safe against interruption: outputs are atomic (temporary name + rename), the manifest only
/// ever gains whole lines, stale temporaries of a killed run are removed when the next run starts,
/// and a rerun with the same options skips inputs whose content hash matches a finished line.
public struct BatchRunner: Sendable {
    public let options: BatchOptions

    public init(options: BatchOptions) {
        self.options = options
    }

    /// Runs the batch, calling `onEvent` (from worker threads) as it goes.
    /// - Parameter stop: checked between items; once set, no new item starts and in-flight ones finish.
    /// - Throws: ``BatchError`` when the folders or the manifest cannot be used; per-file problems
    ///   are recorded in the summary and the manifest instead.
    public func run(stop: StopSignal = StopSignal(), onEvent: @escaping @Sendable (BatchEvent) -> Void = { _ in }) throws(BatchError) -> BatchSummary {
        let start = ContinuousClock.now
        guard let inputRoot = PathResolver.realPath(PathResolver.absolute(options.inputRoot)) else {
            throw .inputFolder(options.inputRoot)
        }
        guard FileSystem.makeFolders(options.outputRoot), let outputRoot = PathResolver.realPath(PathResolver.absolute(options.outputRoot)) else {
            throw .outputFolder(options.outputRoot)
        }
        let ledger: AccessLedger
        do {
            ledger = AccessLedger(scopes: [try AccessScope.folder(inputRoot), try AccessScope.folder(outputRoot)])
        } catch {
            throw .inputFolder(error.description)
        }
        // Everything under the input folder, except the output folder when it is nested inside.
        // The output folder may sit inside the input folder (its files are then not inputs), but
        // must not be the input folder itself or contain it.
        guard outputRoot != inputRoot, !inputRoot.hasPrefix(outputRoot + "/") else { throw .overlappingFolders(input: inputRoot, output: outputRoot) }
        // Before anything else touches the output folder: a second run of this shard refuses here.
        // The manifest's lock first (a second run of this very shard is told the holder's pid),
        // then the folder's split (runs of another split are refused too).
        let lock = try BatchLock(manifestPath: outputRoot + "/" + options.manifestName)
        let split = try BatchSplitLock(outputRoot: outputRoot, shards: options.shard.count)
        let outputPrefix = outputRoot.hasPrefix(inputRoot + "/") ? String(outputRoot.dropFirst(inputRoot.count + 1)) + "/" : nil
        let all = InputWalker.files(under: inputRoot).filter { outputPrefix == nil || !$0.hasPrefix(outputPrefix!) }
        let layout = OutputLayout(relativePaths: all)
        let mine = all.filter { options.shard.contains(relativePath: $0) }
        Self.removeStaleTemporaries(of: mine.map { layout.assignments[$0]! }, under: outputRoot, manifest: options.manifestName)

        let optionsHash = options.prepare.fingerprint
        let manifest: BatchManifest
        let finished: [String: BatchManifest.Entry]
        do {
            (manifest, finished) = try BatchManifest.open(path: outputRoot + "/" + options.manifestName,
                                                         optionsHash: optionsHash, currentPaths: Set(mine), lock: lock)
        } catch {
            throw .manifest(error.description)
        }

        let executor: BatchExecutor
        do {
            executor = try BatchExecutor(options: options, inputRoot: inputRoot, outputRoot: outputRoot, ledger: ledger)
        } catch {
            throw .workers(error.message)
        }
        let work = BatchWork(layout: layout, inputRoot: inputRoot, outputRoot: outputRoot, finished: finished,
                             optionsHash: optionsHash, ledger: ledger, manifest: manifest, executor: executor)
        onEvent(.planned(total: mine.count, skipped: mine.filter { finished[$0]?.isFinal == true }.count,
                         bytes: mine.reduce(Int64(0)) { $0 + FileSystem.size(inputRoot + "/" + $1) }, isolation: executor.summary))

        // Largest inputs first (longest-processing-time-first): the big transcodes start early
        // instead of leaving one core busy at the end while the other idles.
        let order = mine.map { ($0, FileSystem.size(inputRoot + "/" + $0)) }.sorted { $0.1 > $1.1 }.map(\.0)
        let summary = Locked(BatchSummary())
        // Once stopped, no new item starts; those in flight finish.
        WorkerPool(threads: min(options.jobs, max(1, mine.count))).runAll(order) { relative in
            guard !stop.isStopped else { return }
            let item = work.handle(relative)
            summary.withLock { $0.add(item) }
            onEvent(.finished(item))
        }

        do {
            try manifest.compact(currentPaths: Set(mine))
        } catch {
            throw .manifest(error.description)
        }
        var result = summary.withLock { $0 }
        result.total = mine.count
        result.interrupted = stop.isStopped && result.prepared + result.skipped + result.failed < mine.count
        let elapsed = ContinuousClock.now - start
        result.elapsedSeconds = elapsed.seconds
        result.accessProblems = ledger.report.problems
        result.isolation = executor.summary
        result.workerRestarts = executor.restarts
        withExtendedLifetime(split) {}  // the split is held until the run ends (the manifest holds its own lock)
        return result
    }


    /// Removes what a killed run of this batch (this shard) left: the temporaries of its own
    /// outputs and thumbnails (`.STEM.PID.XXXXXX.tmp` whose process is gone, exact names, see
    /// ``AtomicOutput``) and a half-written compaction of its own manifest. Other shards and runs
    /// writing into the same folder at the same time, and any other file, are never touched.
    static func removeStaleTemporaries(of assignments: [(folder: String, stem: String)], under root: String, manifest: String) {
        unlink(root + "/" + manifest + ".compact.tmp")
        var stemsByFolder: [String: Set<String>] = [:]
        for assignment in assignments { stemsByFolder[assignment.folder, default: []].insert(assignment.stem) }
        for (folder, stems) in stemsByFolder {
            AtomicOutput.removeStaleTemporaries(in: folder.isEmpty ? root : root + "/" + folder,
                                                stems: stems.union(stems.map { $0 + ".thumbnail.jpg" }))
        }
    }
}

/// Why a batch could not run at all.
public enum BatchError: Error, Sendable, CustomStringConvertible {
    case inputFolder(String)
    case outputFolder(String)
    /// The output folder is the input folder or contains it.
    case overlappingFolders(input: String, output: String)
    case manifest(String)
    /// The worker processes could not be started.
    case workers(String)
    /// Another run (`pid`, when it could be read) holds the lock of this manifest: the same output
    /// folder and shard are being prepared right now.
    case busy(manifest: String, pid: Int32?)
    /// Runs with another split (unsharded, or another shard count) are writing the same output
    /// folder: their outputs would overwrite each other.
    case otherSplit(folder: String, shards: Int?)

    public var description: String {
        switch self {
        case .inputFolder(let path): return "input folder \(path) does not exist or cannot be read"
        case .outputFolder(let path): return "output folder \(path) cannot be created"
        case .overlappingFolders(let input, let output):
            return "the output folder \(output) is, or contains, the input folder \(input): choose an output folder apart from the input folder"
        case .manifest(let reason): return "cannot write the manifest: \(reason)"
        case .workers(let reason): return reason
        case .otherSplit(let folder, let shards):
            let split = shards.map { $0 == 1 ? "an unsharded batch" : "batches split into \($0) shards" } ?? "another batch"
            return "\(split) (see \(folder)/.attachkit-batch.lock) is writing \(folder): runs of one output folder must all be unsharded or all use the same shard count"
        case .busy(let manifest, let pid):
            return "another batch (\(pid.map { "pid \($0)" } ?? "pid unknown")) is writing \(manifest) (it holds \(manifest).lock until it ends)"
        }
    }
}

/// The per-item work of a batch, shared by its threads.
private struct BatchWork: Sendable {
    let layout: OutputLayout
    let inputRoot: String
    let outputRoot: String
    let finished: [String: BatchManifest.Entry]
    let optionsHash: String
    let ledger: AccessLedger
    let manifest: BatchManifest
    let executor: BatchExecutor

    func handle(_ relative: String) -> BatchItem {
        let start = ContinuousClock.now
        let assignment = layout.assignments[relative]!
        let folder = assignment.folder.isEmpty ? outputRoot : outputRoot + "/" + assignment.folder
        let input = inputRoot + "/" + relative
        return ledger.withAccess(input, refused: { error in
            let failure = relative.contains("\u{FFFD}")
                ? ServiceError(code: .unreadable, message: "the file name is not valid UTF-8 (shown here with U+FFFD); rename the file to prepare it")
                : ServiceError(error)
            return record(relative, hash: "", outcome: PrepareOutcome(input: input, error: failure), start: start)
        }) { handle in
            let hash: String
            do throws(FileReadError) {
                hash = SHA256.hex(file: try FileReader(path: handle.path))
            } catch {
                let outcome = PrepareOutcome(input: handle.resolvedPath, error: ServiceError(code: .unreadable, message: error.message))
                return record(relative, hash: "", outcome: outcome, start: start)
            }
            if let done = finished[relative], done.inputHash == hash, done.isFinal,
               !done.ok || done.output.map({ FileSystem.exists(outputRoot + "/" + $0) }) == true {
                return BatchItem(relativePath: relative, skipped: true, outcome: nil, ok: done.ok, inputBytes: 0, outputBytes: 0,
                                 elapsedMilliseconds: 0)
            }
            let outcome = FileSystem.makeFolders(folder)
                ? executor.prepare(handle, into: folder, stem: assignment.stem)
                : PrepareOutcome(input: handle.resolvedPath, error: ServiceError(code: .writeFailed, message: "cannot create the output folder \(folder): \(String(cString: strerror(errno)))"))
            return record(relative, hash: hash, outcome: outcome, start: start)
        }
    }

    private func record(_ relative: String, hash: String, outcome: PrepareOutcome, start: ContinuousClock.Instant) -> BatchItem {
        var outcome = outcome
        let outputRelative = outcome.output.map { $0.hasPrefix(outputRoot + "/") ? String($0.dropFirst(outputRoot.count + 1)) : $0 }
        var pairs: [(String, JSONValue)] = [("path", .string(relative)), ("inputHash", .string(hash)), ("optionsHash", .string(optionsHash))]
        if let outputRelative { pairs.append(("outputPath", .string(outputRelative))) }
        if case .object(let fields) = outcome.json { pairs += fields }
        do {
            try manifest.append(.object(pairs))
        } catch {
            // Not recorded, so not done: a rerun prepares it again.
            let earlier = outcome.error.map { " (before that: \($0.description))" } ?? ""
            outcome = PrepareOutcome(input: outcome.json["input"]?.stringValue ?? inputRoot + "/" + relative,
                                     error: ServiceError(code: error.code, message: "cannot record the result in the manifest: \(error.description)" + earlier))
        }
        let elapsed = ContinuousClock.now - start
        return BatchItem(relativePath: relative, skipped: false, outcome: outcome, ok: outcome.ok,
                         inputBytes: outcome.inputBytes ?? FileSystem.size(inputRoot + "/" + relative),
                         outputBytes: outcome.outputBytes ?? 0,
                         elapsedMilliseconds: elapsed.seconds * 1000)
    }
}
