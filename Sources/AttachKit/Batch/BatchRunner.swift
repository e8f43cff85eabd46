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

    /// Runs the batch (``plan()``, then ``execute(_:stop:onEvent:)``), calling `onEvent` (from
    /// worker threads) as it goes.
    /// - Parameter stop: checked between items; once set, no new item starts and in-flight ones finish.
    /// - Throws: ``BatchError`` when the folders or the manifest cannot be used; per-file problems
    ///   are recorded in the summary and the manifest instead.
    public func run(stop: StopSignal = StopSignal(), onEvent: @escaping @Sendable (BatchEvent) -> Void = { _ in }) throws(BatchError) -> BatchSummary {
        let start = ContinuousClock.now
        return try execute(try plan(), stop: stop, start: start, onEvent: onEvent)
    }

    /// Decides what this run will do, before any file is prepared: resolves the folders, takes
    /// this shard's locks, walks the input folder, plans every path the run writes (``OutputLayout``),
    /// keeps this shard's inputs, removes what a killed run of this shard left, opens (compacts) the
    /// manifest to learn what earlier runs finished, and settles which inputs are already done.
    /// - Throws: ``BatchError`` when a folder cannot be used, the folders overlap, another run
    ///   holds the locks, a file the run keeps in the output root is an input's, or the manifest
    ///   cannot be opened.
    func plan() throws(BatchError) -> BatchPlan {
        let (inputRoot, outputRoot) = try Self.roots(options)
        let ledger: AccessLedger
        do {
            ledger = AccessLedger(scopes: [try AccessScope.folder(inputRoot), try AccessScope.folder(outputRoot)])
        } catch {
            throw .inputFolder(error.description)
        }
        // Before anything else touches the output folder: a second run of this shard refuses here.
        // The manifest's lock first (a second run of this very shard is told the holder's pid),
        // then the folder's split (runs of another split are refused too).
        // A manifest or lock file somebody else put here is never written: refused, untouched.
        try BatchBookkeeping.checkOwnFiles(options.rootFiles, in: outputRoot)
        let lock = try BatchLock(manifestPath: outputRoot + "/" + options.manifestName)
        let split = try BatchSplitLock(outputRoot: outputRoot, shards: options.shard.count)
        let walk = Self.walk(inputRoot, outputRoot: outputRoot)
        let layout: OutputLayout
        do {
            // What any batch's runs recorded writing here (every manifest of any split) may be
            // replaced while it is still the version a line stamped; any other file at an
            // output's name is somebody else's (read before the manifest is compacted).
            var written: [ExactPath: Set<RecordedWrite>] = [:]
            for name in BatchManifest.manifestNames(in: outputRoot) {
                written.merge(BatchManifest.writtenFiles(in: outputRoot + "/" + name, outputRoot: outputRoot)) { $0.union($1) }
            }
            layout = try OutputLayout(relativePaths: walk.files, inputRoot: inputRoot, outputRoot: outputRoot, reserved: options.rootFiles,
                                      written: written)
        } catch {
            throw .manifest(error.description)
        }
        let mine = walk.files.filter { options.shard.contains(relativePath: $0) }
        let unwalkable = walk.unwalkable.filter { options.shard.contains(relativePath: $0.key.text) }
        Self.removeStaleTemporaries(of: mine.map { layout.assignments[ExactPath($0)]! }, under: outputRoot, manifest: options.manifestName)

        let optionsHash = options.prepare.fingerprint
        let manifest: BatchManifest
        let own: [ExactPath: BatchManifest.Entry]
        var earlierFiles: [ExactPath: Set<RecordedFile>]
        let current = Set(mine.map(ExactPath.init)).union(unwalkable.keys)
        // Other splits' manifests (an earlier shard count, an unsharded run, a merge), read
        // before this one is compacted: what they finished with these options is reused, and
        // what they wrote for these inputs is this run's to supersede.
        let others = Self.otherSplitsLines(in: outputRoot, besides: options.manifestName, inputs: current)
        do {
            (manifest, own, earlierFiles) = try BatchManifest.open(path: outputRoot + "/" + options.manifestName,
                                                                  optionsHash: optionsHash, currentPaths: current,
                                                                  outputRoot: outputRoot, lock: lock)
        } catch {
            throw .manifest(error.description)
        }
        var finished: [ExactPath: [BatchManifest.Entry]] = own.mapValues { [$0] }
        for (path, records) in others {
            earlierFiles[path, default: []].formUnion(records.flatMap { BatchManifest.recordedFiles(of: $0.json, outputRoot: outputRoot) })
            let reusable = records.filter { $0.optionsHash == optionsHash }.sorted { $0.isNewer(than: $1) }.map(\.entry)
            finished[path, default: []] += reusable
        }
        var done = BatchResume.alreadyDone(mine, finished: finished, inputRoot: inputRoot, outputRoot: outputRoot, ledger: ledger,
                                           threads: options.jobs, retryFailed: options.retryFailed)
        // A line another split's manifest recorded is copied into this one (saying where from),
        // so this manifest alone tells what this shard holds; one that cannot be copied is
        // prepared again instead.
        for (path, entry) in done where entry.source != nil {
            guard case .object(var fields)? = try? JSONValue.parse(entry.line) else { done[path] = nil; continue }
            fields.removeAll { $0.0 == Self.reusedKey }
            fields.append((Self.reusedKey, .string(entry.source ?? "")))
            do { try manifest.append(.object(fields)) } catch { done[path] = nil }
        }
        // Costliest inputs first (longest-processing-time-first, ``InputCost``): the big transcodes
        // start early instead of leaving one core busy at the end while the other idles. Ties in
        // byte order.
        let costed: [(String, Double)] = mine.filter { done[ExactPath($0)] == nil }.map { relative in
            (relative, ledger.withAccess(inputRoot + "/" + relative, refused: { _ in 0 }) { handle in InputCost.of(path: handle.path) })
        }
        let byCost = costed.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : ExactPath($0.0) < ExactPath($1.0) }
        let order = byCost.map(\.0) + unwalkable.keys.sorted().map(\.text)
        return BatchPlan(inputRoot: inputRoot, outputRoot: outputRoot, layout: layout, order: order,
                         skipped: mine.filter { done[ExactPath($0)] != nil }, unwalkable: unwalkable,
                         bytes: mine.reduce(Int64(0)) { $0 + FileSystem.size(inputRoot + "/" + $1) },
                         finished: done, earlierFiles: earlierFiles, optionsHash: optionsHash, ledger: ledger,
                         manifest: manifest, split: split)
    }

    /// What a line copied from another split's manifest adds: that manifest's name.
    static let reusedKey = "reusedFrom"

    /// Every line, by input of `inputs`, of the batch manifests in `outputRoot` other than
    /// `manifest` (this run's own) that belong to another split: `manifest.jsonl` and shards of
    /// another count. Shards of this run's own count hold other inputs and are left out.
    static func otherSplitsLines(in outputRoot: String, besides manifest: String, inputs: Set<ExactPath>) -> [ExactPath: [ManifestRecord]] {
        let ownSplit = Self.splitSuffix(manifest)
        var lines: [ExactPath: [ManifestRecord]] = [:]
        for name in BatchManifest.manifestNames(in: outputRoot) where name != manifest && (ownSplit == nil || Self.splitSuffix(name) != ownSplit) {
            for record in ManifestRecord.read(name, in: outputRoot).records where inputs.contains(record.path) {
                lines[record.path, default: []].append(record)
            }
        }
        return lines
    }

    /// `N.jsonl` for a shard's manifest (`manifest-shard-I-of-N.jsonl`), `nil` for `manifest.jsonl`.
    private static func splitSuffix(_ name: String) -> String? {
        guard name.hasPrefix("manifest-shard-"), let count = name.split(separator: "-").last else { return nil }
        return String(count)
    }

    /// The input and output folders' real paths (the output folder made when missing); the output
    /// folder may sit inside the input folder (its files are then not inputs), but must not be the
    /// input folder itself or contain it.
    private static func roots(_ options: BatchOptions) throws(BatchError) -> (input: String, output: String) {
        guard let inputRoot = PathResolver.realPath(PathResolver.absolute(options.inputRoot)) else {
            throw .inputFolder(options.inputRoot)
        }
        guard FileSystem.makeFolders(options.outputRoot), let outputRoot = PathResolver.realPath(PathResolver.absolute(options.outputRoot)) else {
            throw .outputFolder(options.outputRoot)
        }
        guard outputRoot != inputRoot, !inputRoot.hasPrefix(outputRoot + "/") else { throw .overlappingFolders(input: inputRoot, output: outputRoot) }
        return (inputRoot, outputRoot)
    }

    /// Everything under the input folder, except the output folder when it is nested inside; and
    /// what the walk could not list or look at, with the reason.
    private static func walk(_ inputRoot: String, outputRoot: String) -> (files: [String], unwalkable: [ExactPath: String]) {
        let outputPrefix = outputRoot.hasPrefix(inputRoot + "/") ? String(outputRoot.dropFirst(inputRoot.count + 1)) + "/" : nil
        let outside = { (path: String) in outputPrefix.map { !(path + "/").hasPrefix($0) } ?? true }
        let listing = InputWalker.listing(under: inputRoot)
        var unwalkable: [ExactPath: String] = [:]
        for entry in listing.unlistable where outside(entry.folder) {
            unwalkable[ExactPath(entry.folder.isEmpty ? "." : entry.folder)] = entry.reason
        }
        return (listing.files.filter(outside), unwalkable)
    }

    /// Prepares the plan's inputs: starts the executor (in this process or worker processes, which
    /// hold the run's locks while they live), reports the inputs already done, hands the others to
    /// ``options``' `jobs` threads in the plan's order, records each in the manifest, compacts it at
    /// the end and sums up. The plan's locks are held until it returns.
    /// - Parameter start: when the run began (for the elapsed time); default now.
    /// - Throws: ``BatchError/workers(_:)`` when worker processes cannot start,
    ///   ``BatchError/manifest(_:)`` when the final compaction fails.
    func execute(_ plan: consuming BatchPlan, stop: StopSignal = StopSignal(), start: ContinuousClock.Instant = .now,
                 onEvent: @escaping @Sendable (BatchEvent) -> Void = { _ in }) throws(BatchError) -> BatchSummary {
        let executor: BatchExecutor
        do {
            executor = try BatchExecutor(options: options, inputRoot: plan.inputRoot, outputRoot: plan.outputRoot, ledger: plan.ledger,
                                         locks: plan.lockDescriptors)
        } catch {
            throw .workers(error.message)
        }
        let work = BatchWork(layout: plan.layout, inputRoot: plan.inputRoot, outputRoot: plan.outputRoot, unwalkable: plan.unwalkable,
                             earlierFiles: plan.earlierFiles, optionsHash: plan.optionsHash, settings: BatchSettings(options.prepare), ledger: plan.ledger,
                             manifest: plan.manifest, executor: executor)
        let (order, skipped) = (plan.order, plan.skipped)
        let total = order.count + skipped.count
        onEvent(.planned(total: total, skipped: skipped.count, bytes: plan.bytes, isolation: executor.summary))
        let (inputRoot, fileProgress) = (plan.inputRoot, options.fileProgress)
        if fileProgress { onEvent(.queued(files: order.count, bytes: order.reduce(Int64(0)) { $0 + FileSystem.size(inputRoot + "/" + $1) })) }

        let summary = Locked(BatchSummary())
        for relative in skipped {
            let entry = plan.finished[ExactPath(relative)]
            var item = BatchItem(relativePath: relative, skipped: true, outcome: nil, ok: entry?.ok ?? true,
                                 inputBytes: 0, outputBytes: 0, elapsedMilliseconds: 0)
            if let entry, !entry.ok { item.recordedFailure = entry.failure }
            summary.withLock { $0.add(item) }
            onEvent(.finished(item))
        }
        // Once stopped, no new item starts; those in flight finish.
        WorkerPool(threads: min(options.jobs, max(1, order.count))).runAll(order) { relative in
            guard !stop.isStopped else { return }
            if fileProgress { onEvent(.started(relativePath: relative, bytes: FileSystem.size(inputRoot + "/" + relative))) }
            var progress: (@Sendable (Double) -> Void)?
            if fileProgress { progress = { fraction in onEvent(.progress(relativePath: relative, fraction: fraction)) } }
            let item = work.handle(relative, progress: progress)
            summary.withLock { $0.add(item) }
            onEvent(.finished(item))
        }

        do {
            try plan.manifest.compact(currentPaths: Set((order + skipped).map(ExactPath.init)))
        } catch {
            throw .manifest(error.description)
        }
        var result = summary.withLock { $0 }
        result.total = total
        result.interrupted = stop.isStopped && result.prepared + result.skipped + result.failed < total
        result.elapsedSeconds = (ContinuousClock.now - start).seconds
        result.accessProblems = plan.ledger.report.problems
        result.isolation = executor.summary
        result.workerRestarts = executor.restarts
        executor.stop()
        _ = consume plan  // the locks are held until here
        return result
    }

    /// Removes what a killed run of this batch (this shard) left: the temporaries of its own
    /// outputs and thumbnails (`.STEM.PID.XXXXXX.tmp` whose process is gone, exact names, see
    /// ``AtomicOutput``) and a half-written compaction of its own manifest. Other shards and runs
    /// writing into the same folder at the same time, and any other file, are never touched.
    static func removeStaleTemporaries(of assignments: [OutputLayout.Assignment], under root: String, manifest: String) {
        try? FileNames.remove(root + "/" + manifest + BatchManifest.compactionSuffix)
        var stemsByFolder: [ExactPath: Set<String>] = [:]
        for assignment in assignments { stemsByFolder[ExactPath(assignment.folder), default: []].insert(assignment.stem) }
        for (folder, stems) in stemsByFolder {
            AtomicOutput.removeStaleTemporaries(in: folder.text.isEmpty ? root : root + "/" + folder.text,
                                                stems: stems.union(stems.map { $0 + ".thumbnail.jpg" }))
        }
    }
}
