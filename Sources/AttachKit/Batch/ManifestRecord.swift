/// One line of a batch manifest, read back: what the report, the merge (``BatchMerge``) and a run
/// of another split (``BatchRunner/plan()``) compare across manifests.
///
/// Lines are chosen by when they were recorded, never by the manifest's name: every line a batch
/// writes carries `recordedAt` (UTC, `2026-12-02T10:13:08.123Z`, which sorts as it reads); a
/// line from before it was recorded counts as recorded when its manifest was last written (the
/// file's modification time: a run compacts its manifest when it ends).
struct ManifestRecord: Sendable {
    /// The manifest's file name in the output root.
    let manifest: String
    /// The line's place in its manifest (0-based): within one manifest a later line is newer.
    let index: Int
    let json: JSONValue
    let line: String
    /// The input, relative to the input root.
    let path: ExactPath
    let inputHash: String
    let optionsHash: String?
    /// The line's `recordedAt`, else its manifest's modification time in the same form.
    let recordedAt: String
    /// Whether ``recordedAt`` is the line's own.
    let stamped: Bool

    var ok: Bool { json["ok"]?.boolValue ?? false }
    /// The output's path relative to the output root, when the line names one.
    var outputPath: String? { json["outputPath"]?.stringValue }

    /// The line as a resumable entry of ``BatchManifest``.
    var entry: BatchManifest.Entry {
        BatchManifest.Entry(relativePath: path.text, inputHash: inputHash, output: outputPath, ok: ok,
                            errorCode: json["error"]?["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)), line: line,
                            source: manifest, recordedAt: recordedAt)
    }

    /// Whether `self` was recorded after `other`: the later `recordedAt`; in one manifest the later
    /// line; then the manifest later in byte order (only to be deterministic).
    func isNewer(than other: ManifestRecord) -> Bool {
        if manifest == other.manifest { return index > other.index }
        if recordedAt != other.recordedAt { return recordedAt > other.recordedAt }
        return ExactPath(other.manifest) < ExactPath(manifest)
    }

    /// The key under which a line records when it was written.
    static let timeKey = "recordedAt"

    /// Now, as a line records it.
    static func now() -> String { AccessLog.timestamp(AccessLog.now) }

    /// Every line of the manifest `name` in `folder` that names an input (a JSON object with
    /// `path`), and how many other non-blank lines it holds (torn, damaged or not a batch's).
    /// Read up to 1 GiB, as a batch reads it.
    static func read(_ name: String, in folder: String) -> (records: [ManifestRecord], unread: Int) {
        let path = folder + "/" + name
        guard let reader = try? FileReader(path: path) else { return ([], 0) }
        let fileTime = FileVersion(path: path).map { AccessLog.timestamp(Double($0.modified) / 1e9) } ?? ""
        let text = String(decoding: reader.read(at: 0, count: Int(min(reader.size, 1 << 30))), as: UTF8.self)
        var records: [ManifestRecord] = []
        var unread = 0
        for line in text.split(separator: "\n") {
            guard let json = try? JSONValue.parse(String(line)), let relative = json["path"]?.stringValue else {
                if !line.allSatisfy(\.isWhitespace) { unread += 1 }
                continue
            }
            let time = json[timeKey]?.stringValue
            records.append(ManifestRecord(manifest: name, index: records.count, json: json, line: String(line), path: ExactPath(relative),
                                          inputHash: json["inputHash"]?.stringValue ?? "", optionsHash: json["optionsHash"]?.stringValue,
                                          recordedAt: time ?? fileTime, stamped: time != nil))
        }
        return (records, unread)
    }

    /// Each manifest's last line per input, over every batch manifest in `folder`
    /// (``BatchManifest/manifestNames(in:)``), by input; and the lines that are not a batch's.
    static func latestPerManifest(in folder: String) -> (byPath: [ExactPath: [ManifestRecord]], unread: Int, manifests: [String]) {
        let names = BatchManifest.manifestNames(in: folder)
        var byPath: [ExactPath: [ManifestRecord]] = [:]
        var unread = 0
        for name in names {
            let read = read(name, in: folder)
            unread += read.unread
            var last: [ExactPath: ManifestRecord] = [:]
            for record in read.records { last[record.path] = record }
            for (path, record) in last { byPath[path, default: []].append(record) }
        }
        return (byPath, unread, names)
    }
}
