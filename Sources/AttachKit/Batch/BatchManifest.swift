#if canImport(Glibc)
import Glibc
#endif

/// `OUT/manifest.jsonl` (or `manifest-shard-I-of-N.jsonl`): one JSON line per input, appended with
/// a single `write(2)` as each finishes, so a batch killed at any point leaves only whole lines (a
/// torn last line, possible only on power loss, is ignored when read back).
///
/// The manifest is compacted when a run starts and when it ends: the last line for each current
/// input made with the current options is kept, everything else dropped, so after a finished run
/// it holds exactly one line per input. An open manifest owns its ``BatchLock``: no other run of
/// the same shard can compact it away underneath.
final class BatchManifest: Sendable {
    /// What a finished line says about one input.
    struct Entry: Sendable {
        let relativePath: String
        let inputHash: String
        /// The output's path relative to the output root; `nil` when the input failed.
        let output: String?
        let ok: Bool
        /// The failure's code, for a failed input.
        let errorCode: String?
        let line: String

        /// Whether a rerun can skip the input: it was prepared, or it failed for a reason the same
        /// bytes and options will always give (corrupt, not media, over a cap, cannot fit...).
        /// Failures that may pass next time (a full disk, a deadline, an I/O error) are retried.
        var isFinal: Bool {
            guard !ok, let errorCode else { return true }
            return !["write-failed", "deadline-exceeded", "processing-failed", "access-denied", "unreadable", "not-found"].contains(errorCode)
        }
    }

    let path: String
    private let optionsHash: String
    private let fd: Int32
    private let hold: BatchLock
    private let lock = Locked(())

    /// Opens (creating) the manifest at `path` after compacting it, and returns the entries of
    /// earlier runs that are valid for `optionsHash` and `currentPaths`. The manifest keeps `lock`
    /// (taken on `path`) until it is released.
    /// - Throws: ``OutputError`` when the manifest cannot be written.
    static func open(path: String, optionsHash: String, currentPaths: Set<String>, lock: consuming BatchLock)
        throws(OutputError) -> (BatchManifest, [String: Entry]) {
        let entries = try compact(path: path, optionsHash: optionsHash, currentPaths: currentPaths)
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw .system(operation: "open", path: path, reason: String(cString: strerror(errno))) }
        return (BatchManifest(path: path, optionsHash: optionsHash, fd: fd, lock: lock), entries)
    }

    private init(path: String, optionsHash: String, fd: Int32, lock: consuming BatchLock) {
        self.path = path
        self.optionsHash = optionsHash
        self.fd = fd
        self.hold = lock
    }

    deinit { close(fd) }

    /// Appends one line (a single write, so concurrent appends never interleave).
    func append(_ json: JSONValue) {
        let bytes = Array((json.serialized + "\n").utf8)
        lock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }

    /// Compacts the file now (end of a run).
    func compact(currentPaths: Set<String>) throws(OutputError) {
        try lock.withLock { _ throws(OutputError) in
            _ = try Self.compact(path: path, optionsHash: optionsHash, currentPaths: currentPaths)
        }
    }

    /// Reads the manifest, keeps the last line per current input made with `optionsHash`, and
    /// rewrites it atomically in path order.
    private static func compact(path: String, optionsHash: String, currentPaths: Set<String>) throws(OutputError) -> [String: Entry] {
        var kept: [String: Entry] = [:]
        if let reader = try? FileReader(path: path) {
            let text = String(decoding: reader.read(at: 0, count: Int(min(reader.size, 1 << 30))), as: UTF8.self)
            for line in text.split(separator: "\n") {
                guard let json = try? JSONValue.parse(String(line)),
                      let relative = json["path"]?.stringValue, currentPaths.contains(relative),
                      let hash = json["inputHash"]?.stringValue,
                      json["optionsHash"]?.stringValue == optionsHash else { continue }
                kept[relative] = Entry(relativePath: relative, inputHash: hash, output: json["outputPath"]?.stringValue,
                                       ok: json["ok"]?.boolValue ?? false, errorCode: json["error"]?["code"]?.stringValue,
                                       line: String(line))
            }
        }
        let temporary = path + ".compact.tmp"
        let bytes = Array(kept.keys.sorted().map { kept[$0]!.line + "\n" }.joined().utf8)
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(operation: "create", path: temporary, reason: String(cString: strerror(errno))) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw .system(operation: "write", path: temporary, reason: reason)
            }
            offset += n
        }
        fsync(fd)
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .system(operation: "rename", path: path, reason: reason)
        }
        return kept
    }
}
