#if canImport(Glibc)
import Glibc
#endif

/// The per-item work of a batch, shared by its threads: one input from access to its manifest line.
struct BatchWork: Sendable {
    let layout: OutputLayout
    let inputRoot: String
    let outputRoot: String
    let finished: [String: BatchManifest.Entry]
    /// Files earlier runs wrote for each input (relative to the output root): removed once this
    /// run settles the input otherwise (``removeSuperseded(_:keeping:)``).
    let earlierFiles: [String: Set<String>]
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

    /// Removes what earlier runs wrote for `relative` and this run did not write again: once the
    /// input is prepared into another file, or refused for good (it is corrupt, cannot fit...),
    /// an older output left in the folder would be taken for this run's. A failure that may pass
    /// on a rerun (a deadline, a write error) keeps them.
    private func removeSuperseded(_ relative: String, keeping current: Set<String>) {
        for file in earlierFiles[relative] ?? [] where !current.contains(file) {
            unlink(outputRoot + "/" + file)
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
            if outcome.ok || outcome.error.map({ !$0.code.isRetryable }) == true {
                let thumbnail = outcome.json["thumbnail"]?.stringValue.map { $0.hasPrefix(outputRoot + "/") ? String($0.dropFirst(outputRoot.count + 1)) : $0 }
                removeSuperseded(relative, keeping: Set([outputRelative, thumbnail].compactMap { $0 }))
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
}
