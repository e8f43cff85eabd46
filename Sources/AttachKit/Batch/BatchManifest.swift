/// `OUT/manifest.jsonl` (or `manifest-shard-I-of-N.jsonl`): one JSON line per input, appended with
/// a single `write(2)` as each finishes, so a batch killed at any point leaves only whole lines (a
/// torn last line, possible only on power loss, is ignored when read back). A line that cannot be
/// written whole (a full disk, a file-size limit) is cut off again and the failure reported, so a
/// later line never lands glued to a torn one.
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
        /// The failure's code, for a failed input (`nil` when the line names none this version knows).
        let errorCode: ErrorCode?
        let line: String
        /// The manifest the line was read from (its file name); `nil` for this run's own.
        var source: String? = nil
        /// When the line was recorded (``ManifestRecord/recordedAt``); `""` when unknown.
        var recordedAt: String = ""

        /// The recorded failure's code and message (from the line's `error`), for a failed input.
        var failure: (code: ErrorCode, message: String) {
            let error = (try? JSONValue.parse(line))?["error"]
            return (errorCode ?? .processingFailed, error?["message"]?.stringValue ?? "recorded as failed")
        }

        /// Whether a rerun can skip the input: it was prepared, or it failed for a reason the same
        /// bytes and options will always give (see ``ErrorCode/isRetryable``).
        var isFinal: Bool {
            guard !ok, let errorCode else { return true }
            return !errorCode.isRetryable
        }
    }

    /// Writes bytes like `write(2)`: the count written (possibly short), or the `errno`.
    /// Tests inject failures through it.
    typealias Writer = @Sendable (_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int

    let path: String
    private let optionsHash: String
    private let fd: FileDescriptor
    private let writer: Writer
    /// This shard's lock on the manifest, held as long as the manifest is open (released when it
    /// is deallocated, at the end of the run).
    private let hold: BatchLock
    /// The file's size before a line whose failed write could not be cut off yet (the cut is
    /// retried before the next line); `nil` when the file ends with a whole line.
    private let pendingCut = Locked<Int64?>(nil)

    /// Opens (creating) the manifest at `path` after compacting it, and returns the entries of
    /// earlier runs that are valid for `optionsHash` and `currentPaths`, and the files every earlier
    /// line (any options) wrote for each current input (``earlierFiles(in:outputRoot:currentPaths:)``).
    /// The manifest holds `lock` (taken on `path`) until it is deallocated.
    /// - Throws: ``OutputError`` when the manifest cannot be written.
    static func open(path: String, optionsHash: String, currentPaths: Set<ExactPath>, outputRoot: String, lock: consuming BatchLock,
                     writer: @escaping Writer = { (fd, bytes) throws(SystemError) in try FileDescriptor.write(fd, bytes) })
        throws(OutputError) -> (BatchManifest, [ExactPath: Entry], earlierFiles: [ExactPath: Set<RecordedFile>]) {
        let earlier = earlierFiles(in: path, outputRoot: outputRoot, currentPaths: currentPaths)
        let entries = try compact(path: path, optionsHash: optionsHash, currentPaths: currentPaths)
        let fd = try FileSystem.openOwnFile(path, flags: [.writeOnly, .append])
        return (BatchManifest(path: path, optionsHash: optionsHash, fd: fd, writer: writer, lock: lock), entries, earlier)
    }

    /// The outputs and thumbnails every line of the manifest at `path` recorded for each of
    /// `currentPaths`, relative to `outputRoot` (a line of any options: compaction drops the lines
    /// of other options, and with them the only record of those files). Paths outside the output
    /// root, or climbing out of it, are left out.
    static func earlierFiles(in path: String, outputRoot: String, currentPaths: Set<ExactPath>) -> [ExactPath: Set<RecordedFile>] {
        recordedFiles(in: path, outputRoot: outputRoot) { currentPaths.contains($0) }
    }

    /// Every output and thumbnail any line of the manifest at `path` recorded, relative to
    /// `outputRoot`, each with the inputs and stamps (``RecordedWrite``) the lines recorded of it:
    /// what the batch's runs wrote, and so may replace for the same input while it is still the
    /// version written (``OutputLayout``).
    static func writtenFiles(in path: String, outputRoot: String) -> [ExactPath: Set<RecordedWrite>] {
        var written: [ExactPath: Set<RecordedWrite>] = [:]
        for (input, files) in recordedFiles(in: path, outputRoot: outputRoot, including: { _ in true }) {
            for file in files { written[file.path, default: []].insert(RecordedWrite(input: input, stamp: file.stamp)) }
        }
        return written
    }

    /// The names of every batch manifest in `folder` (`manifest.jsonl`, `manifest-shard-I-of-N.jsonl`
    /// of any split), whichever split this run is.
    static func manifestNames(in folder: String) -> [String] {
        FileSystem.names(in: folder).filter { name in
            name == "manifest.jsonl" || (name.hasPrefix("manifest-shard-") && name.hasSuffix(".jsonl") && name.contains("-of-"))
        }.sorted()
    }

    /// The files each line of the manifest at `path` whose input `including` accepts recorded, by input.
    private static func recordedFiles(in path: String, outputRoot: String, including: (ExactPath) -> Bool) -> [ExactPath: Set<RecordedFile>] {
        guard let reader = try? FileReader(path: path) else { return [:] }
        var files: [ExactPath: Set<RecordedFile>] = [:]
        let text = String(decoding: reader.read(at: 0, count: Int(min(reader.size, 1 << 30))), as: UTF8.self)
        for line in text.split(separator: "\n") {
            guard let json = try? JSONValue.parse(String(line)), let relative = json["path"]?.stringValue.map(ExactPath.init),
                  including(relative) else { continue }
            files[relative, default: []].formUnion(recordedFiles(of: json, outputRoot: outputRoot))
        }
        return files
    }

    /// The output and thumbnail one line records, relative to `outputRoot`, with their stamps.
    /// Paths outside the output root, or climbing out of it, are left out.
    static func recordedFiles(of json: JSONValue, outputRoot: String) -> [RecordedFile] {
        let written = [(json["outputPath"]?.stringValue, OutputStamp(json: json[OutputStamp.outputKey])),
                       (json["thumbnail"]?.stringValue.flatMap { $0.hasPrefix(outputRoot + "/") ? String($0.dropFirst(outputRoot.count + 1)) : nil },
                        OutputStamp(json: json[OutputStamp.thumbnailKey]))]
        return written.compactMap { file, stamp in
            guard let file, !file.hasPrefix("/"), !file.split(separator: "/").contains("..") else { return nil }
            return RecordedFile(path: ExactPath(file), stamp: stamp)
        }
    }

    private init(path: String, optionsHash: String, fd: consuming FileDescriptor, writer: @escaping Writer, lock: consuming BatchLock) {
        self.path = path
        self.optionsHash = optionsHash
        self.fd = fd
        self.writer = writer
        self.hold = lock
    }

    /// Appends one line, whole or not at all: with a single write (so concurrent appends never
    /// interleave), and after a failed or short write the file is truncated back to its size
    /// before the line.
    /// - Throws: ``OutputError/system(operation:path:reason:)`` (`write-failed`) when the line
    ///   was not written; the caller must then count the input as failed.
    func append(_ json: JSONValue) throws(OutputError) {
        let bytes = Array((json.serialized + "\n").utf8)
        try pendingCut.withLock { pending throws(OutputError) in
            if let size = pending {
                do throws(SystemError) { try fd.truncate(to: size) } catch { throw failure("truncate", error) }
                pending = nil
            }
            let before: Int64
            do throws(SystemError) { before = try fd.seekToEnd() } catch { throw failure("append a line to", error) }
            var offset = 0
            while offset < bytes.count {
                let n: Int
                do throws(SystemError) {
                    n = try SystemCall.retrying { () throws(SystemError) in
                        try bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try writer(fd.rawValue, UnsafeRawBufferPointer(rebasing: raw[offset...])) } }.get()
                    }
                } catch {
                    // ENOSPC, EFBIG (RLIMIT_FSIZE), EIO...
                    if (try? fd.truncate(to: before)) == nil { pending = before }
                    throw failure("append a line to", error)
                }
                guard n > 0 else {
                    // A write of 0 bytes makes no progress either.
                    if (try? fd.truncate(to: before)) == nil { pending = before }
                    throw failure("append a line to", .noSpace)
                }
                offset += n
            }
        }
    }

    private func failure(_ operation: String, _ error: SystemError) -> OutputError {
        .system(operation: operation, path: path, reason: error.description)
    }

    /// The lock's descriptor, for the run's worker processes to inherit (see ``BatchLock``).
    var lockDescriptor: Int32 { hold.descriptor.rawValue }

    /// What the compaction temporary's name adds to the manifest's.
    static let compactionSuffix = ".compact.tmp"

    /// Compacts the file now (end of a run).
    func compact(currentPaths: Set<ExactPath>) throws(OutputError) {
        try pendingCut.withLock { pending throws(OutputError) in
            _ = try Self.compact(path: path, optionsHash: optionsHash, currentPaths: currentPaths)
            pending = nil
        }
    }

    /// Reads the manifest, keeps the last line per current input made with `optionsHash`, and
    /// rewrites it atomically in path order.
    private static func compact(path: String, optionsHash: String, currentPaths: Set<ExactPath>) throws(OutputError) -> [ExactPath: Entry] {
        // A manifest that is a link is neither read nor replaced: the run stops naming it.
        try FileSystem.checkOwnFileIfPresent(path)
        var kept: [ExactPath: Entry] = [:]
        if let reader = try? FileReader(path: path) {
            let text = String(decoding: reader.read(at: 0, count: Int(min(reader.size, 1 << 30))), as: UTF8.self)
            for line in text.split(separator: "\n") {
                guard let json = try? JSONValue.parse(String(line)),
                      let relative = json["path"]?.stringValue.map(ExactPath.init), currentPaths.contains(relative),
                      let hash = json["inputHash"]?.stringValue,
                      json["optionsHash"]?.stringValue == optionsHash else { continue }
                kept[relative] = Entry(relativePath: relative.text, inputHash: hash, output: json["outputPath"]?.stringValue,
                                       ok: json["ok"]?.boolValue ?? false, errorCode: json["error"]?["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)),
                                       line: String(line), recordedAt: json[ManifestRecord.timeKey]?.stringValue ?? "")
            }
        }
        try write(lines: kept.keys.sorted().map { kept[$0]!.line }, to: path)
        return kept
    }

    /// Replaces the manifest at `path` with `lines` atomically: written whole to its compaction
    /// temporary (``compactionSuffix``), flushed, then renamed over it. The caller holds the
    /// manifest's lock.
    /// - Throws: ``OutputError/system(operation:path:reason:)`` when it cannot be written; the
    ///   manifest is then as it was.
    static func write(lines: [String], to path: String) throws(OutputError) {
        let temporary = path + compactionSuffix
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        // A new file of its own (a leftover, even a link planted there, is removed, never written through).
        try? FileNames.remove(temporary)
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(temporary, [.writeOnly, .create, .exclusive, .noFollow], mode: 0o644) } catch {
            throw .system(operation: "create", path: temporary, reason: error.description)
        }
        do { try fd.writeAll(bytes) } catch {
            fd.close()
            try? FileNames.remove(temporary)
            throw .system(operation: "write", path: temporary, reason: error.description)
        }
        try? fd.sync()
        fd.close()
        do { try FileNames.rename(temporary, to: path) } catch {
            try? FileNames.remove(temporary)
            throw .system(operation: "rename", path: path, reason: error.description)
        }
    }
}
