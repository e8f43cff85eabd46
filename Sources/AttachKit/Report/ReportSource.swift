/// What a batch report is drawn from: every batch manifest in an output folder
/// (``BatchManifest/manifestNames(in:)``: `manifest.jsonl` and the shards'
/// `manifest-shard-I-of-N.jsonl`), merged into one entry per input.
struct ReportSource: Sendable {
    /// The output folder's real path.
    let outputRoot: String
    /// The manifests read, by name.
    let manifests: [String]
    /// Lines of the manifests that are not a batch's lines (not JSON, or no path): left out of
    /// the report, and counted so that it says it is incomplete.
    private(set) var unreadLines = 0
    /// One entry per input, in byte order of the relative path.
    let entries: [ReportEntry]

    /// Reads the manifests in `outputRoot`. Shards each hold their own inputs; should one input
    /// appear in more than one line (an earlier split's manifest left beside a later one), the
    /// last line read wins, manifests read in name order. A torn or foreign line is passed over,
    /// as a batch passes over it.
    /// - Throws: ``BatchReportError/noManifest(_:)`` when the folder holds no manifest (or is
    ///   not a folder).
    init(outputRoot: String) throws(BatchReportError) {
        guard let root = PathResolver.realPath(PathResolver.absolute(outputRoot)), FileSystem.isDirectory(root) else {
            throw .noManifest(outputRoot)
        }
        let names = BatchManifest.manifestNames(in: root)
        guard !names.isEmpty else { throw .noManifest(root) }
        var byPath: [ExactPath: ReportEntry] = [:]
        for name in names {
            guard let reader = try? FileReader(path: root + "/" + name) else { continue }
            let text = String(decoding: reader.read(at: 0, count: Int(min(reader.size, 1 << 30))), as: UTF8.self)
            for line in text.split(separator: "\n") {
                guard let json = try? JSONValue.parse(String(line)), let entry = ReportEntry(line: json) else {
                    if !line.allSatisfy(\.isWhitespace) { unreadLines += 1 }
                    continue
                }
                byPath[ExactPath(entry.path)] = entry
            }
        }
        self.outputRoot = root
        manifests = names
        entries = byPath.keys.sorted().map { byPath[$0]! }
    }

    /// The batch's input folder: the one most lines name (an input's absolute path is the folder,
    /// `/`, and its relative path); `nil` when no line tells (every input refused before it was
    /// found, or a manifest from before inputs were recorded).
    var inputRoot: String? {
        var counts: [String: Int] = [:]
        for entry in entries {
            let tail = Array(("/" + entry.path).utf8)
            guard let input = entry.input.map({ Array($0.utf8) }), input.count > tail.count, input.suffix(tail.count).elementsEqual(tail) else { continue }
            counts[String(decoding: input.dropLast(tail.count), as: UTF8.self), default: 0] += 1
        }
        return counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
    }

    /// Every distinct profile and options the lines record, the most common first; empty for a
    /// manifest written before lines recorded them.
    var settings: [BatchSettings] {
        var found: [(BatchSettings, Int)] = []
        for entry in entries {
            guard let settings = entry.settings else { continue }
            if let index = found.firstIndex(where: { $0.0 == settings }) { found[index].1 += 1 } else { found.append((settings, 1)) }
        }
        return found.sorted { $0.1 > $1.1 }.map(\.0)
    }
}
