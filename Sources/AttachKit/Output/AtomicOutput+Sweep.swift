#if canImport(Glibc)
import Glibc
#endif

/// Finding the temporaries of processes that died, whatever their stems: `serve` and its worker
/// pool do not know the stems a dead worker was writing, but its pid is in every name.
extension AtomicOutput {
    /// The process id in the name of any temporary an ``AtomicOutput`` makes
    /// (`.STEM.PID.RANDOM.tmp` or `.STEM.PID.RANDOM.retry.tmp`, read from the right, since stems
    /// may hold dots), `nil` for any other name.
    static func owner(ofAnyTemporary name: String) -> pid_t? {
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
    static func removeTemporaries(in folder: String, ofProcess pid: pid_t) -> Int {
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
            guard let stream = opendir(folder) else { continue }
            while let entry = readdir(stream), seen < limit {
                seen += 1
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                guard !name.hasPrefix(".") else { continue }
                var status = stat()
                let isFolder = entry.pointee.d_type == UInt8(DT_DIR)
                    || (entry.pointee.d_type == UInt8(DT_UNKNOWN) && lstat(folder + "/" + name, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
                if isFolder { folders.append(folder + "/" + name) }
            }
            closedir(stream)
        }
        return removed
    }

    /// Unlinks the entries of `folder` whose name `doomed` accepts (the one way temporaries are
    /// removed: callers decide by exact name and owner). Returns how many were removed.
    static func sweep(_ folder: String, _ doomed: (String) -> Bool) -> Int {
        guard let stream = opendir(folder) else { return 0 }
        defer { closedir(stream) }
        let directory = dirfd(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix("."), name.hasSuffix(".tmp"), doomed(name) { names.append(name) }
        }
        return names.filter { unlinkat(directory, $0, 0) == 0 }.count
    }
}
