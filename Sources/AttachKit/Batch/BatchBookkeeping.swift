/// The files a batch keeps in its output folder (manifests, their locks and compaction
/// temporaries, the split's locks: ``BatchOptions/rootFiles``) are written, truncated and
/// compacted as the run goes. One already there must be one a batch wrote, judged by its
/// content, before any of them is opened: a user's `manifest.jsonl` was compacted to nothing, a
/// user's `manifest.jsonl.lock` overwritten with a process id. Anything else is left untouched
/// and the run stops, naming it.
enum BatchBookkeeping {
    /// - Throws: ``BatchError/manifest(_:)`` naming the first file at one of `names` in
    ///   `outputRoot` that no batch wrote.
    static func checkOwnFiles(_ names: [(name: String, role: String)], in outputRoot: String) throws(BatchError) {
        for (name, role) in names {
            let path = outputRoot + "/" + name
            guard let reader = try? FileReader(path: path), reader.size > 0 else { continue }
            let isManifest = name.hasSuffix(".jsonl") || name.hasSuffix(".jsonl" + BatchManifest.compactionSuffix)
            let ours = isManifest ? looksLikeManifest(reader) : looksLikeLock(reader)
            guard ours else {
                throw .manifest("\(path) is not \(role) of attachkit batch (its content is something else): it is left as it is; move it, or give another --out")
            }
        }
    }

    /// A lock file holds a number and a newline (a process id, a shard count).
    private static func looksLikeLock(_ reader: borrowing FileReader) -> Bool {
        guard reader.size <= 32 else { return false }
        return reader.read(at: 0, count: Int(reader.size)).allSatisfy { (0x30...0x39).contains($0) || $0 == 0x0A }
    }

    /// Every whole line is a manifest line: a JSON object with `path` and `inputHash` (a last line
    /// with no newline may be cut short by a killed run). Read in full up to 1 GiB.
    private static func looksLikeManifest(_ reader: borrowing FileReader) -> Bool {
        let bytes = reader.read(at: 0, count: Int(min(reader.size, 1 << 30)))
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let whole = index < lines.count - 1
            guard let json = try? JSONValue.parse(String(decoding: line, as: UTF8.self)),
                  json["path"]?.stringValue != nil, json["inputHash"]?.stringValue != nil else {
                if whole { return false }
                continue
            }
        }
        return true
    }
}
