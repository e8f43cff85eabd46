/// Finding the temporaries of processes that died, whatever their stems: `serve` and its worker
/// pool do not know the stems a dead worker was writing, but its pid is in every name.
extension AtomicOutput {
    /// The process id in the name of any temporary an ``AtomicOutput`` makes
    /// (`.STEM.PID.RANDOM.tmp` or `.STEM.PID.RANDOM.retry.tmp`, read from the right, since stems
    /// may hold dots), `nil` for any other name.
    static func owner(ofAnyTemporary name: String) -> Int32? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        var rest = name.dropFirst().dropLast(4)
        if rest.hasSuffix(".retry") { rest = rest.dropLast(6) }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let stem = parts.dropLast(2).joined(separator: ".")
        return stem.isEmpty ? nil : owner(ofTemporary: name, stem: stem)
    }

    /// Removes, in `folder`, the temporaries of process `pid` (a worker that died in a job), never
    /// those of a process that is alive.
    /// - Returns: how many were removed.
    @discardableResult
    static func removeTemporaries(in folder: String, ofProcess pid: Int32) -> Int {
        guard Processes.isGone(pid) else { return 0 }
        return sweep(folder) { owner(ofAnyTemporary: $0) == pid }
    }

    /// Removes, in every folder beneath `root` (at most `limit` entries looked at, hidden folders
    /// skipped, no symbolic link followed), the temporaries whose process is gone: what a killed
    /// `serve` left. Returns how many were removed.
    @discardableResult
    static func removeStaleTemporaries(beneath root: String, limit: Int = 50_000) -> Int {
        var folders = [root]
        var seen = 0
        var removed = 0
        while let folder = folders.popLast(), seen < limit {
            removed += sweep(folder) { owner(ofAnyTemporary: $0).map(Processes.isGone) ?? false }
            guard var stream = try? DirectoryStream(path: folder) else { continue }
            while seen < limit, let entry = stream.next() {
                seen += 1
                let name = entry.name
                guard !name.hasPrefix(".") else { continue }
                let isFolder = entry.kind == .directory
                    || (entry.kind == nil && FileNames.statusIfPresent(folder + "/" + name, followingLinks: false)?.kind == .directory)
                if isFolder { folders.append(folder + "/" + name) }
            }
        }
        return removed
    }

    /// Unlinks the entries of `folder` whose name `doomed` accepts (the one way temporaries are
    /// removed: callers decide by exact name and owner). Returns how many were removed.
    static func sweep(_ folder: String, _ doomed: (String) -> Bool) -> Int {
        guard var stream = try? DirectoryStream(path: folder) else { return 0 }
        var names: [String] = []
        while let entry = stream.next() {
            let name = entry.name
            if name.hasPrefix("."), name.hasSuffix(".tmp"), doomed(name) { names.append(name) }
        }
        let directory = stream.descriptor
        return names.filter { (try? FileNames.remove($0, in: directory)) != nil }.count
    }
}
