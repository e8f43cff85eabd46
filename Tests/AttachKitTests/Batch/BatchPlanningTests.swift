import Foundation
import Testing
@testable import AttachKit

@Suite("Batch planning: shards, output names, manifest, temporaries")
struct BatchPlanningTests {
    @Test("shards partition any input set exactly")
    func shardsPartition() throws {
        let paths = (0..<500).map { "folder\($0 % 7)/file-\($0).jpg" }
        for count in [1, 2, 3, 8] {
            let shards = try (0..<count).map { try Shard(index: $0, count: count) }
            for path in paths {
                #expect(shards.filter { $0.contains(relativePath: path) }.count == 1)
            }
            if count > 1 {
                let sizes = shards.map { shard in paths.filter { shard.contains(relativePath: $0) }.count }
                #expect(sizes.allSatisfy { $0 > 500 / count / 2 }, "unbalanced: \(sizes)")
            }
        }
    }

    @Test("shard syntax", arguments: ["0/1", "3/4", "9999/10000"])
    func shardParses(text: String) throws {
        #expect(try Shard(parsing: text).description == text)
    }

    @Test("bad shards are refused (a split of 10⁹ took 2 GB before its first input)", arguments: ["4/4", "-1/2", "1", "a/b", "1/0", "0/10001", "0/1000000000"])
    func shardRefused(text: String) {
        #expect(throws: ShardError.self) { try Shard(parsing: text) }
    }

    @Test("two inputs never share an output name, thumbnails included; names are claimed in byte order")
    func outputNames() throws {
        let layout = try OutputLayout(relativePaths: ["a.jpeg", "a.jpg", "a.png", "sub/a.jpg", "a-jpg.gif", "b", "a.thumbnail.jpg"],
                                      inputRoot: "/nonexistent-in", outputRoot: "/nonexistent-out")
        let names = Dictionary(uniqueKeysWithValues: layout.assignments.map { ($0.key.text, [$0.value.folder, $0.value.stem]) })
        #expect(names["a-jpg.gif"] == ["", "a-jpg"])
        #expect(names["a.jpeg"] == ["", "a"])
        #expect(names["a.jpg"] == ["", "a-2"])
        #expect(names["a.png"] == ["", "a-png"])
        #expect(names["sub/a.jpg"] == ["sub", "a"])
        #expect(names["b"] == ["", "b"])
        #expect(names["a.thumbnail.jpg"] == ["", "a.thumbnail-jpg"])
        let root = layout.assignments.values.filter { $0.folder.isEmpty }.map { $0.stem.lowercased() }
        #expect(Set(root).count == root.count)
    }

    @Test("the manifest keeps the last line per current input with the same options, and ignores torn lines")
    func manifestCompaction() throws {
        let folder = TestEnvironment.temporaryFolder("manifest")
        let path = folder.appendingPathComponent("manifest.jsonl").path
        let lines = [
            #"{"path":"a.jpg","inputHash":"h1","optionsHash":"o","ok":false}"#,
            #"{"path":"a.jpg","inputHash":"h2","optionsHash":"o","ok":true,"outputPath":"a.jpg"}"#,
            #"{"path":"b.jpg","inputHash":"h3","optionsHash":"other","ok":true}"#,
            #"{"path":"gone.jpg","inputHash":"h4","optionsHash":"o","ok":true}"#,
            #"{"path":"c.jpg","inputHash":"h5","optionsHash":"o","ok":tr"#,
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let (manifest, entries, _) = try BatchManifest.open(path: path, optionsHash: "o", currentPaths: Self.exact(["a.jpg", "b.jpg", "c.jpg"]),
                                                            outputRoot: "/out", lock: try BatchLock(manifestPath: path))
        #expect(entries.keys.sorted() == [ExactPath("a.jpg")])
        #expect(entries[ExactPath("a.jpg")]?.inputHash == "h2" && entries[ExactPath("a.jpg")]?.ok == true && entries[ExactPath("a.jpg")]?.output == "a.jpg")
        try manifest.append(.object([("path", .string("b.jpg")), ("inputHash", .string("h3")), ("optionsHash", .string("o")), ("ok", .bool(true))]))
        try manifest.compact(currentPaths: Self.exact(["a.jpg", "b.jpg", "c.jpg"]))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2)
    }

    @Test("one lock per manifest: a second holder is refused with the first one's pid, another shard's manifest is free, a released lock can be taken again")
    func manifestLock() throws {
        // Given a run holding the lock of OUT/manifest.jsonl
        let folder = TestEnvironment.temporaryFolder("lock")
        let path = folder.appendingPathComponent("manifest.jsonl").path
        let first = try BatchLock(manifestPath: path)

        // When another run asks for the same manifest, Then it is refused at once, naming this pid
        do {
            _ = try BatchLock(manifestPath: path)
            Issue.record("a second lock on the same manifest was granted")
        } catch {
            guard case .busy(let manifest, let pid) = error else { Issue.record("\(error)"); return }
            #expect(manifest == path && pid == getpid())
            #expect(error.description.contains("pid \(getpid())"), "\(error.description)")
        }
        #expect(try String(contentsOfFile: path + ".lock", encoding: .utf8) == "\(getpid())\n")

        // And another shard's manifest in the same folder locks independently
        let shard = try BatchLock(manifestPath: folder.appendingPathComponent("manifest-shard-1-of-2.jsonl").path)
        _ = consume shard

        // And once the holder is gone, the lock can be taken again
        _ = consume first
        _ = try BatchLock(manifestPath: path)
    }

    /// A writer that writes the first `limit` bytes of the file for real, then fails like a full disk.
    static func fullDisk(after limit: Int) -> BatchManifest.Writer {
        { (fd, bytes) throws(SystemError) in
            let size = Int(lseek(fd, 0, SEEK_END))
            let room = max(0, limit - size)
            guard room > 0 else { throw .noSpace }
            return try FileDescriptor.write(fd, UnsafeRawBufferPointer(rebasing: bytes[..<min(room, bytes.count)]))
        }
    }

    @Test("a line that cannot be written whole is cut off again and reported; the next whole line still reads back")
    func tornLineCutBack() throws {
        // Given a manifest on a "disk" with room for one line and a half
        let folder = TestEnvironment.temporaryFolder("torn")
        let path = folder.appendingPathComponent("manifest.jsonl").path
        func line(_ name: String) -> JSONValue {
            .object([("path", .string(name)), ("inputHash", .string("h")), ("optionsHash", .string("o")), ("ok", .bool(true))])
        }
        let width = line("a.jpg").serialized.utf8.count + 1
        let (manifest, _, _) = try BatchManifest.open(path: path, optionsHash: "o", currentPaths: Self.exact(["a.jpg", "b.jpg", "c.jpg"]),
                                                      outputRoot: "/out", lock: try BatchLock(manifestPath: path),
                                                      writer: Self.fullDisk(after: width + width / 2))
        try manifest.append(line("a.jpg"))

        // When the second line only half fits, Then the append throws write-failed and the half line is gone
        #expect(throws: OutputError.self) { try manifest.append(line("b.jpg")) }
        do { try manifest.append(line("c.jpg")) } catch {
            #expect(error.code == "write-failed")
            #expect(error.description.contains("No space left on device"), "\(error.description)")
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == line("a.jpg").serialized + "\n")

        // And compaction (start of the next run) reads back exactly the whole line
        try manifest.compact(currentPaths: Self.exact(["a.jpg", "b.jpg", "c.jpg"]))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test("stale temporaries of this shard's inputs are removed; other files, other shards' temporaries and outputs are kept")
    func staleTemporaries() throws {
        let folder = TestEnvironment.temporaryFolder("stale")
        _ = try folder.appendingPathComponent("sub", isDirectory: true).creatingFolder()
        // Temporaries are `.STEM.PID.XXXXXX.tmp`: a process id no process has (over pid_max) is a
        // killed run's; this process and pid 1 are alive, and their in-flight files stay.
        let dead = "2147483646"
        let t = AtomicOutput.hostToken
        let mine = [".a.\(dead).\(t)Xy12Zq.tmp", "sub/.b.\(dead).\(t)aaaaaa.tmp", ".a.thumbnail.jpg.\(dead).\(t)Q1w2E3.tmp",
                    ".a.\(dead).\(t)abc123.retry.tmp", "manifest.jsonl.compact.tmp"]
        // Another host's (no token: a look-alike), another stem's, a live process's: kept
        let others = [".c.\(dead).\(t)Zz9Yy8.tmp", ".a.b.\(dead).\(t)Xy12Zq.tmp", ".a.\(dead).\(t)toolong7.tmp", ".a.\(getpid()).\(t)Live12.tmp",
                      ".a.1.\(t)Init12.tmp", ".a.Xy12Zq.tmp", ".notes.tmp", "keep.jpg", "sub/keep.png", ".a.\(dead).Xy12Zq.tmp",
                      "manifest-shard-1-of-2.jsonl.compact.tmp"]
        for name in mine + others { try Data([1]).write(to: folder.appendingPathComponent(name)) }
        let assignments = [("", "a"), ("sub", "b")].map { OutputLayout.Assignment(folder: $0.0, stem: $0.1, wanted: $0.1, reason: nil) }
        BatchRunner.removeStaleTemporaries(of: assignments, under: folder.path, manifest: "manifest.jsonl")
        #expect(InputWalker.filesIncludingHidden(under: folder.path).sorted() == others.sorted())
    }

    @Test("a failure that may pass next time is retried by a rerun; a permanent one is skipped")
    func finalFailures() {
        func entry(ok: Bool, code: ErrorCode?) -> BatchManifest.Entry {
            BatchManifest.Entry(relativePath: "a", inputHash: "h", output: nil, ok: ok, errorCode: code, line: "")
        }
        #expect(entry(ok: true, code: nil).isFinal)
        #expect(entry(ok: false, code: "corrupt").isFinal)
        #expect(entry(ok: false, code: "cannot-fit").isFinal)
        #expect(!entry(ok: false, code: "write-failed").isFinal)
        #expect(!entry(ok: false, code: "deadline-exceeded").isFinal)
    }

    @Test("the walker lists files, skips hidden ones and never descends a linked folder")
    func walker() throws {
        let folder = TestEnvironment.temporaryFolder("walk")
        try folder.appendingPathComponent("a/b", isDirectory: true).creatingFolder()
        try Data([1]).write(to: folder.appendingPathComponent("a/b/x.jpg"))
        try Data([1]).write(to: folder.appendingPathComponent(".hidden.jpg"))
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("loop").path, withDestinationPath: folder.path)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("out.jpg").path, withDestinationPath: "/etc/hostname")
        #expect(InputWalker.files(under: folder.path) == ["a/b/x.jpg", "loop", "out.jpg"])
    }

    static func exact(_ paths: [String]) -> Set<ExactPath> { Set(paths.map(ExactPath.init)) }

    /// A batch's input folder holding `files` of TestMedia (by their paths there), and its options.
    static func batch(_ name: String, files: [String], shard: Shard = .all) throws -> BatchOptions {
        let root = TestEnvironment.temporaryFolder(name)
        for file in files {
            let target = root.appendingPathComponent("in").appendingPathComponent(file)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture(file), toPath: target.path)
        }
        let out = root.appendingPathComponent("out").path
        return BatchOptions(inputRoot: root.appendingPathComponent("in").path, outputRoot: out,
                            prepare: PrepareOptions(outputFolder: out), jobs: 2, shard: shard)
    }

    @Test("planning alone: this shard's inputs costliest first (HEIC and video before a larger WAV), every output named, the locks held, nothing prepared")
    func planAlone() throws {
        // Given a folder of four files: a 160 KB WAV, a 78 KB MP4, a 70 KB HEIC and a 21 KB GIF
        let files = ["images/gif_static_320x240.gif", "video/mp4_h264_aac_320x240_2s.mp4", "audio/wav_s16le_16k_mono_5s.wav",
                     "images/heic_800x600.heic"]
        let options = try Self.batch("plan", files: files)
        let runner = BatchRunner(options: options)

        // When it is planned
        let plan = try runner.plan()

        // Then the costliest come first — the HEIC (an HEVC picture to decode), the video, then the
        // larger of the plain files — each with its output name, none done yet
        let sizes = files.map { FileSystem.size(TestEnvironment.fixture($0)) }
        #expect(plan.order == ["images/heic_800x600.heic", "video/mp4_h264_aac_320x240_2s.mp4", "audio/wav_s16le_16k_mono_5s.wav",
                               "images/gif_static_320x240.gif"])
        #expect(plan.bytes == sizes.reduce(0, +))
        let assigned = try #require(plan.layout.assignments[ExactPath("images/gif_static_320x240.gif")])
        #expect(assigned.folder == "images" && assigned.stem == "gif_static_320x240" && assigned.reason == nil)
        #expect(plan.skipped.isEmpty && plan.finished.isEmpty)
        #expect(InputWalker.files(under: options.outputRoot).filter { !$0.hasPrefix("manifest") }.isEmpty, "planning wrote outputs")
        // And a second run of the same shard is refused while the plan holds the lock
        #expect(throws: BatchError.self) { _ = try runner.plan() }
        _ = consume plan
        _ = try runner.plan()
    }

    @Test("executing a plan alone prepares exactly its inputs; the next plan skips them as finished")
    func executeAlone() throws {
        // Given a plan of two files
        let options = try Self.batch("execute", files: ["images/gif_static_320x240.gif", "malformed/json_named_as.webp"])
        let runner = BatchRunner(options: options)
        let events = Locked<[String]>([])

        // When it is executed
        let summary = try runner.execute(try runner.plan()) { event in
            switch event {
            case .planned(let total, let skipped, _, _): events.withLock { $0.append("planned \(total) \(skipped)") }
            case .finished(let item): events.withLock { $0.append(item.relativePath) }
            case .queued, .started, .progress: break
            }
        }

        // Then both are recorded, the plan event first
        #expect(summary.total == 2 && summary.prepared == 1 && summary.failed == 1, "\(summary)")
        #expect(events.withLock { $0 }.first == "planned 2 0")
        #expect(Set(events.withLock { $0 }.dropFirst()) == ["images/gif_static_320x240.gif", "malformed/json_named_as.webp"])
        // And the next plan finds both finished (the unrecognized file is final, not retried)
        let next = try runner.plan()
        #expect(next.skipped.count == 2 && next.order.isEmpty && Set(next.finished.keys) == Self.exact(next.skipped))
    }
}
