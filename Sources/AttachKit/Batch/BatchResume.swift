/// Which inputs an earlier run already finished, decided once, when the run is planned: the
/// header's "already done" and the summary's are the same inputs.
enum BatchResume {
    /// The inputs of `paths` one of whose finished lines (``BatchManifest/Entry``, made with this
    /// run's options; `finished` lists each input's in the order they are preferred: this shard's
    /// own manifest first, then other splits' manifests, newest first) is final, has its output
    /// still there (or failed for good), and has the input's content hash: read through `ledger`,
    /// `threads` at once; each with the line that says so. With `retryFailed`, a line recording
    /// a failure does not count.
    static func alreadyDone(_ paths: [String], finished: [ExactPath: [BatchManifest.Entry]], inputRoot: String, outputRoot: String,
                            ledger: AccessLedger, threads: Int, retryFailed: Bool = false) -> [ExactPath: BatchManifest.Entry] {
        let usable = { @Sendable (done: BatchManifest.Entry) -> Bool in
            guard done.isFinal else { return false }
            if !done.ok { return !retryFailed }
            return done.output.map { FileSystem.exists(outputRoot + "/" + $0) } == true
        }
        let candidates = paths.filter { (finished[ExactPath($0)] ?? []).contains(where: usable) }
        let found = Locked<[ExactPath: BatchManifest.Entry]>([:])
        WorkerPool(threads: min(threads, max(1, candidates.count))).runAll(candidates) { path in
            let hash = ledger.withAccess(inputRoot + "/" + path, refused: { _ in String?.none }) { handle in
                do throws(FileReadError) {
                    return SHA256.hex(file: try FileReader(path: handle.path))
                } catch {
                    return nil
                }
            }
            guard let hash, let entry = finished[ExactPath(path)]?.first(where: { usable($0) && $0.inputHash == hash }) else { return }
            found.withLock { $0[ExactPath(path)] = entry }
        }
        return found.withLock { $0 }
    }
}
