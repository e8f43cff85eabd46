#if canImport(Glibc)
import Glibc
#endif

/// A second file beside the output's temporary file, for an encode attempt that may or may not
/// beat the first: deleted when the value goes away unless it was moved over the output.
struct ScratchFile: ~Copyable {
    let path: String

    /// `BESIDE` with `.retry` before its `.tmp` suffix (same folder, so the move is a rename on one
    /// file system, and a killed run's leftover is still a `*.tmp` the next batch removes).
    init(beside path: String) {
        self.path = path.hasSuffix(".tmp") ? String(path.dropLast(4)) + ".retry.tmp" : path + ".retry.tmp"
        unlink(self.path)
    }

    deinit { unlink(path) }

    /// Renames the scratch file over `target` (the scratch name is then gone; `deinit` finds
    /// nothing to delete).
    /// - Throws: ``PrepareError/output(_:)`` when the rename fails (the scratch file is deleted).
    consuming func move(over target: String) throws(PrepareError) {
        guard rename(path, target) == 0 else {
            throw .output(.system(operation: "rename", path: target, reason: String(cString: strerror(errno))))
        }
    }
}
