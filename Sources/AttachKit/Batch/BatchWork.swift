/// The per-item work of a batch, shared by its threads: one input from access to its manifest line.
struct BatchWork: Sendable {
    let layout: OutputLayout
    let inputRoot: String
    let outputRoot: String
    /// Entries the walk could not list or look at, with the reason: recorded as failures.
    let unwalkable: [ExactPath: String]
    /// Files earlier runs wrote for each input (relative to the output root): removed once this
    /// run settles the input otherwise (``removeSuperseded(_:keeping:)``).
    let earlierFiles: [ExactPath: Set<RecordedFile>]
    let optionsHash: String
    /// The profile and options, recorded on every line for the batch report.
    let settings: BatchSettings
    let ledger: AccessLedger
    let manifest: BatchManifest
    let executor: BatchExecutor

    /// - Parameter progress: receives the share of the output encoded (``PrepareProgress``); `nil`: none asked.
    func handle(_ relative: String, progress: (@Sendable (Double) -> Void)? = nil) -> BatchItem {
        let start = ContinuousClock.now
        let input = inputRoot + "/" + relative
        if let reason = unwalkable[ExactPath(relative)] {
            let error = ServiceError(code: .unreadable, message: "\(input): the walk cannot list or look at it (\(reason)); its files are not prepared")
            return record(relative, hash: "", outcome: PrepareOutcome(input: input, error: error), start: start)
        }
        let assignment = layout.assignments[ExactPath(relative)]!
        let folder = assignment.folder.isEmpty ? outputRoot : outputRoot + "/" + assignment.folder
        return ledger.withAccess(input, refused: { error in
            record(relative, hash: "", outcome: PrepareOutcome(input: input, error: ServiceError(error)), start: start)
        }) { handle in
            guard !handle.resolvedPath.hasPrefix(outputRoot + "/") else {
                let error = ServiceError(code: .accessDenied, message: "\(input) resolves to \(handle.resolvedPath), inside the output folder, whose files are not inputs")
                return record(relative, hash: "", outcome: PrepareOutcome(input: input, error: error), start: start)
            }
            let hash: String
            do throws(FileReadError) {
                hash = SHA256.hex(file: try FileReader(path: handle.path))
            } catch {
                let outcome = PrepareOutcome(input: handle.resolvedPath, error: ServiceError(code: .unreadable, message: error.message))
                return record(relative, hash: "", outcome: outcome, start: start)
            }
            let folderFailure = FileSystem.folderFailure(folder)
            let outcome = folderFailure == nil
                ? executor.prepare(handle, into: folder, stem: assignment.stem, replacing: assignment.replacing, progress: progress)
                : PrepareOutcome(input: handle.resolvedPath, error: ServiceError(code: .writeFailed, message: "cannot create the output folder \(folder): \(folderFailure!)"))
            return record(relative, hash: hash, outcome: outcome, start: start)
        }
    }

    /// Removes what earlier runs wrote for `relative` and this run did not write again: once the
    /// input is prepared into another file, or refused for good (it is corrupt, cannot fit...),
    /// an older output left in the folder would be taken for this run's. A failure that may pass
    /// on a rerun (a deadline, a write error) keeps them. Never an input's file, and only a file
    /// still as a line recorded it (``OutputLayout/replaceable``): one a user changed since, or
    /// one recorded without a stamp, stays.
    private func removeSuperseded(_ relative: String, keeping current: Set<ExactPath>) {
        for file in Set((earlierFiles[ExactPath(relative)] ?? []).map(\.path)) where !current.contains(file) {
            let path = outputRoot + "/" + file.text
            guard FileIdentity(path: path).map({ !layout.protected.contains($0) }) ?? false,
                  let version = FileVersion(path: path), layout.replaceable.contains(version) else { continue }
            try? FileNames.remove(path)
        }
    }

    /// The stamp of the file a preparation committed at `path` (absolute), as it is now; `nil`
    /// when there is none, or its size is not `bytes` (the one the report says was written), so
    /// a line never vouches for a file that is not the one written.
    private func stamp(_ path: String?, bytes: Int64?) -> JSONValue? {
        guard let path, let version = FileVersion(path: path), bytes.map({ $0 == version.size }) ?? true else { return nil }
        return OutputStamp(version).json
    }

    private func record(_ relative: String, hash: String, outcome: PrepareOutcome, start: ContinuousClock.Instant) -> BatchItem {
        var outcome = outcome
        let outputRelative = outcome.output.map(relativeToOutput)
        var pairs: [(String, JSONValue)] = [("path", .string(relative)), ("inputHash", .string(hash)), ("optionsHash", .string(optionsHash)),
                                              ("settings", settings.json), (ManifestRecord.timeKey, .string(ManifestRecord.now()))]
        if let outputRelative { pairs.append(("outputPath", .string(outputRelative))) }
        // What was committed, so a later run replaces it only while it is still this version.
        if outcome.ok, let file = stamp(outcome.output, bytes: outcome.outputBytes) { pairs.append((OutputStamp.outputKey, file)) }
        if let thumbnail = outcome.json["thumbnail"]?.stringValue, let file = stamp(thumbnail, bytes: nil) {
            pairs.append((OutputStamp.thumbnailKey, file))
        }
        if case .object(let fields) = outcome.json {
            pairs += fields
            // The name the plan gave, and why, unless the preparation itself says so.
            if !fields.contains(where: { $0.0 == "outputName" }), let name = layout.assignments[ExactPath(relative)]?.json {
                pairs.append(("outputName", name))
            }
        }
        do {
            try manifest.append(.object(pairs))
            if outcome.ok || outcome.error.map({ !$0.code.isRetryable }) == true {
                let thumbnail = outcome.json["thumbnail"]?.stringValue.map(relativeToOutput)
                removeSuperseded(relative, keeping: Set([outputRelative, thumbnail].compactMap { $0 }.map(ExactPath.init)))
            }
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

    private func relativeToOutput(_ path: String) -> String {
        path.hasPrefix(outputRoot + "/") ? String(path.dropFirst(outputRoot.count + 1)) : path
    }
}
