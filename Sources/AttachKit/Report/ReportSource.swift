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
    let unreadLines: Int
    /// One entry per input, in byte order of the relative path.
    let entries: [ReportEntry]

    /// Reads the manifests in `outputRoot`. Shards each hold their own inputs; should one input
    /// appear in more than one manifest (an earlier split's manifest left beside a later one's),
    /// the line whose input hash is the input's content now wins, and of those the one recorded
    /// last (``ManifestRecord/isNewer(than:)``: by `recordedAt`, never by the manifest's name).
    /// A torn or foreign line is passed over, as a batch passes over it.
    /// - Throws: ``BatchReportError/noManifest(_:)`` when the folder holds no manifest (or is
    ///   not a folder).
    init(outputRoot: String) throws(BatchReportError) {
        guard let root = PathResolver.realPath(PathResolver.absolute(outputRoot)), FileSystem.isDirectory(root) else {
            throw .noManifest(outputRoot)
        }
        let read = ManifestRecord.latestPerManifest(in: root)
        guard !read.manifests.isEmpty else { throw .noManifest(root) }
        let inputRoot = Self.inputRoot(of: read.byPath.values.joined().compactMap { record in record.json["input"]?.stringValue.map { (record.path.text, $0) } })
        let chosen = read.byPath.compactMapValues { Self.choose($0, inputRoot: inputRoot) }
        self.outputRoot = root
        manifests = read.manifests
        unreadLines = read.unread
        entries = chosen.keys.sorted().compactMap { chosen[$0].flatMap { ReportEntry(line: $0.json) } }
    }

    /// Of the lines several manifests hold for one input, the one to show: those whose input hash
    /// is the input's content now (hashed only when the lines disagree, and when the input can be
    /// read beneath `inputRoot`), newest first.
    static func choose(_ records: [ManifestRecord], inputRoot: String?) -> ManifestRecord? {
        let newest = records.sorted { $0.isNewer(than: $1) }
        guard Set(newest.map(\.inputHash)).count > 1, let inputRoot, let hash = currentHash(of: newest[0].path.text, under: inputRoot) else {
            return newest.first
        }
        return newest.first { $0.inputHash == hash } ?? newest.first
    }

    /// SHA-256 of the input `relative` beneath `inputRoot` now, read through a ledger of that
    /// folder (no link followed out of it); `nil` when it cannot be read.
    static func currentHash(of relative: String, under inputRoot: String) -> String? {
        guard let scope = try? AccessScope.folder(inputRoot) else { return nil }
        return AccessLedger(scopes: [scope]).withAccess(inputRoot + "/" + relative, refused: { _ in String?.none }) { handle in
            do throws(FileReadError) {
                return SHA256.hex(file: try FileReader(path: handle.path))
            } catch {
                return nil
            }
        }
    }

    /// The folder most of `inputs` (relative path, absolute input path) name: an input's
    /// absolute path is the folder, `/`, and its relative path.
    static func inputRoot(of inputs: [(relative: String, absolute: String)]) -> String? {
        var counts: [String: Int] = [:]
        for (relative, absolute) in inputs {
            let tail = Array(("/" + relative).utf8)
            let input = Array(absolute.utf8)
            guard input.count > tail.count, input.suffix(tail.count).elementsEqual(tail) else { continue }
            counts[String(decoding: input.dropLast(tail.count), as: UTF8.self), default: 0] += 1
        }
        return counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
    }

    /// The batch's input folder: the one most lines name (an input's absolute path is the folder,
    /// `/`, and its relative path); `nil` when no line tells (every input refused before it was
    /// found, or a manifest from before inputs were recorded).
    var inputRoot: String? {
        Self.inputRoot(of: entries.compactMap { entry in entry.input.map { (entry.path, $0) } })
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
