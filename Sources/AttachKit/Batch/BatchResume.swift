/// Which inputs an earlier run already finished, decided once, when the run is planned: the
/// header's "already done" and the summary's are the same inputs.
enum BatchResume {
    /// The inputs of `paths` whose finished line (``BatchManifest/Entry``) is final, whose output
    /// is still there (or which failed for good), and whose content hash is the line's: read
    /// through `ledger`, `threads` at once.
    /// With `retryFailed`, an input recorded as failed is not done.
    static func alreadyDone(_ paths: [String], finished: [ExactPath: BatchManifest.Entry], inputRoot: String, outputRoot: String,
                            ledger: AccessLedger, threads: Int, retryFailed: Bool = false) -> Set<ExactPath> {
        let candidates = paths.filter { path in
            guard let done = finished[ExactPath(path)], done.isFinal else { return false }
            if !done.ok { return !retryFailed }
            return done.output.map { FileSystem.exists(outputRoot + "/" + $0) } == true
        }
        let found = Locked<Set<ExactPath>>([])
        WorkerPool(threads: min(threads, max(1, candidates.count))).runAll(candidates) { path in
            let same = ledger.withAccess(inputRoot + "/" + path, refused: { _ in false }) { handle in
                do throws(FileReadError) {
                    return SHA256.hex(file: try FileReader(path: handle.path)) == finished[ExactPath(path)]?.inputHash
                } catch {
                    return false
                }
            }
            if same { found.withLock { _ = $0.insert(ExactPath(path)) } }
        }
        return found.withLock { $0 }
    }
}
