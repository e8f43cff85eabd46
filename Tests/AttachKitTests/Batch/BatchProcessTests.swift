import Foundation
import Testing
@testable import AttachKit

/// `attachkit batch` as a process: completing, being killed and resumed, interrupted, sharded.
@Suite("attachkit batch", .serialized)
struct BatchProcessTests {
    /// A fresh input folder holding hard links (or copies) of TestMedia's media, `copies` times.
    static func makeInput(_ name: String, copies: Int = 1, includeCorpus: Bool = false) throws -> URL {
        let root = TestEnvironment.temporaryFolder(name).appendingPathComponent("in", isDirectory: true)
        var sources: [(URL, String)] = []
        for folder in ["images", "audio", "video", "malformed"] {
            for file in InputWalker.files(under: TestEnvironment.testMedia.appendingPathComponent(folder).path) {
                sources.append((TestEnvironment.testMedia.appendingPathComponent(folder).appendingPathComponent(file), "\(folder)/\(file)"))
            }
        }
        if includeCorpus, TestEnvironment.corpus != nil {
            for row in CorpusRow.all() { sources.append((URL(fileURLWithPath: row.path), "corpus/\(row.file)")) }
        }
        for copy in 0..<copies {
            for (source, relative) in sources {
                let target = root.appendingPathComponent(copies == 1 ? relative : "copy\(copy)/\(relative)")
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                if (try? FileManager.default.linkItem(at: source, to: target)) == nil {
                    try FileManager.default.copyItem(at: source, to: target)
                }
            }
        }
        return root
    }

    static func manifestLines(_ out: URL, name: String = "manifest.jsonl") throws -> [JSONValue] {
        let text = try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    static func temporaries(_ out: URL) -> [String] {
        InputWalker.filesIncludingHidden(under: out.path).filter { $0.hasSuffix(".tmp") }
    }

    /// Every ok line's output exists, probes, and re-validates under the profile; one line per input.
    static func checkConsistent(input: URL, out: URL, profile: Profile = .ios, manifest: String = "manifest.jsonl",
                                inputs expected: [String]? = nil) throws {
        let lines = try manifestLines(out, name: manifest)
        let paths = lines.compactMap { $0["path"]?.stringValue }
        #expect(paths.count == Set(paths).count, "an input appears twice in the manifest")
        #expect(Set(paths) == Set(expected ?? InputWalker.files(under: input.path)))
        #expect(temporaries(out).isEmpty, "temporary files left: \(temporaries(out))")
        for line in lines where line["ok"] == .bool(true) {
            let output = try #require(line["outputPath"]?.stringValue)
            let path = out.appendingPathComponent(output).path
            let report = try Through.validate(path, scope: out, profile: profile)
            #expect(report.ok, "\(output): \(report.errors.map(\.message))")
        }
    }

    @Test("batch --json | head -1: the reader going away does not kill the run; every input is prepared and recorded, no temporary left")
    func readerGoneEarly() throws {
        let (input, out) = try BatchNamingTests.input((1...20).map { ("p\($0).jpg", "images/jpeg_progressive_800x600.jpg") })
        let script = "set -o pipefail; \"$1\" batch --json \"$2\" --out \"$3\" 2>/dev/null | head -1 >/dev/null; echo ${PIPESTATUS[0]}"
        let run = try TestEnvironment.run("bash", ["-c", script, "bash", TestEnvironment.attachkit, input.path, out.path])
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "batch's exit status: \(run.stdout) \(run.stderr)")
        #expect(try BatchNamingTests.lines(out).count == 20)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(!names.contains { $0.hasSuffix(".tmp") }, "\(names)")
    }

    @Test("a batch over TestMedia and the corpus completes; every output re-validates; one manifest line per input")
    func completes() throws {
        let input = try Self.makeInput("complete", includeCorpus: true)
        let out = input.deletingLastPathComponent().appendingPathComponent("out")
        let result = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--jobs", "2"])
        #expect([0, 1].contains(result.status), "\(result.stderr)")
        #expect(result.stdout.contains("manifest:"))
        try Self.checkConsistent(input: input, out: out)
        let lines = try Self.manifestLines(out)
        #expect(lines.filter { $0["ok"] == .bool(true) }.count >= lines.count / 2)
        // A second run with the same options does nothing again.
        let again = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--jobs", "2"])
        #expect(again.stdout.contains("0 prepared, \(lines.count) already done"), "\(again.stdout)")
        try Self.checkConsistent(input: input, out: out)
    }

    @Test("SIGKILL at a random point, then a rerun: every input done exactly once, no temporary left, outputs valid",
          arguments: [1, 2, 3])
    func killAndResume(seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        let input = try Self.makeInput("kill\(seed)", copies: 2)
        let out = input.deletingLastPathComponent().appendingPathComponent("out")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.attachkit)
        process.arguments = ["batch", input.path, "--out", out.path, "--jobs", "2"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: Double.random(in: 0.3...2.5, using: &generator))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let rerun = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--jobs", "2"])
        #expect([0, 1].contains(rerun.status), "\(rerun.stderr)")
        try Self.checkConsistent(input: input, out: out)
    }

    @Test("SIGINT stops cleanly: exit 130, a consistent manifest, no temporary left; a rerun finishes the rest")
    func interrupt() throws {
        let input = try Self.makeInput("sigint", copies: 3)
        let out = input.deletingLastPathComponent().appendingPathComponent("out")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.attachkit)
        process.arguments = ["batch", input.path, "--out", out.path, "--jobs", "1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1.0)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let lines = try Self.manifestLines(out)
        let all = InputWalker.files(under: input.path)
        #expect(lines.count < all.count, "the batch finished before the interrupt; make the input larger")
        #expect(Self.temporaries(out).isEmpty)
        try Self.checkConsistent(input: input, out: out, inputs: lines.compactMap { $0["path"]?.stringValue })
        let rerun = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--jobs", "2"])
        #expect([0, 1].contains(rerun.status))
        try Self.checkConsistent(input: input, out: out)
    }

    /// Starts `attachkit batch` with `arguments`, output discarded, without waiting for it.
    static func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.attachkit)
        process.arguments = ["batch"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits (up to 60 s) until the lock file beside `manifest` in `out` names `process`, i.e. it
    /// holds the manifest. Returns whether it did while `process` was still running.
    static func waitUntilLocked(_ out: URL, manifest: String = "manifest.jsonl", by process: Process) -> Bool {
        let path = out.appendingPathComponent(manifest + ".lock").path
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline {
            if (try? String(contentsOfFile: path, encoding: .utf8)) == "\(process.processIdentifier)\n" { return process.isRunning }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    @Test("a second batch on the same folder and shard refuses at once (exit 75, naming the holder's pid); the first records every input")
    func concurrentRunsRefused() throws {
        // Given a batch running on a folder
        let input = try Self.makeInput("concurrent")
        let out = input.deletingLastPathComponent().appendingPathComponent("out")
        let first = try Self.start([input.path, "--out", out.path, "--jobs", "1"])
        let holding = Self.waitUntilLocked(out, by: first)

        // When a second one starts on the same folder
        let second = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--jobs", "1"])
        let firstStillRunning = first.isRunning
        first.waitUntilExit()

        // Then it refuses, naming the first, which finishes with every input recorded
        #expect(holding && firstStillRunning, "the first batch finished before the second started; make the input larger")
        #expect(second.status == 75, "\(second.stderr)")
        #expect(second.stderr.contains("another batch (pid \(first.processIdentifier)) is writing"), "\(second.stderr)")
        #expect(second.stdout.isEmpty)
        #expect([0, 1].contains(first.terminationStatus))
        try Self.checkConsistent(input: input, out: out)
    }

    @Test("two shards on the same folder run at the same time, each under its own manifest's lock")
    func concurrentShards() throws {
        let input = try Self.makeInput("concurrentshards")
        let out = input.deletingLastPathComponent().appendingPathComponent("out")
        let shards = try (0..<2).map { try Self.start([input.path, "--out", out.path, "--shard", "\($0)/2", "--jobs", "1"]) }
        let together = zip(0..., shards).allSatisfy { Self.waitUntilLocked(out, manifest: "manifest-shard-\($0)-of-2.jsonl", by: $1) }
            && shards.allSatisfy(\.isRunning)
        for shard in shards { shard.waitUntilExit() }
        #expect(together, "the shards did not hold their locks at the same time")
        #expect(shards.map(\.terminationStatus).allSatisfy { [0, 1].contains($0) }, "\(shards.map(\.terminationStatus))")
        var recorded: [String] = []
        for index in 0..<2 {
            recorded += try Self.manifestLines(out, name: "manifest-shard-\(index)-of-2.jsonl").compactMap { $0["path"]?.stringValue }
        }
        #expect(recorded.sorted() == InputWalker.files(under: input.path))
        #expect(Self.temporaries(out).isEmpty)
    }

    @Test("manifest lines that cannot be written (a file-size limit) leave only whole lines and count as write-failed; a rerun records them")
    func manifestWriteFails() throws {
        // Given inputs that all fail (no output files), whose ~4.3 KB of lines cannot fit a 2 KB file-size limit
        let root = TestEnvironment.temporaryFolder("fsize")
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        for file in InputWalker.files(under: TestEnvironment.fixture("malformed")) {
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture("malformed/" + file), toPath: input.appendingPathComponent(file).path)
        }
        let all = InputWalker.files(under: input.path)
        let out = root.appendingPathComponent("out")

        // When the batch runs under RLIMIT_FSIZE (SIGXFSZ ignored, so write(2) fails with EFBIG)
        let limited = try TestEnvironment.run("bash", ["-c", "trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\"", TestEnvironment.attachkit,
                                                       "batch", input.path, "--out", out.path, "--jobs", "2"])

        // Then the manifest holds only whole lines, and every input is either recorded or failed as write-failed
        let text = try String(contentsOf: out.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        #expect(text.utf8.count <= 2048 && text.hasSuffix("\n"))
        let recorded = try Self.manifestLines(out).compactMap { $0["path"]?.stringValue }
        let unrecorded = limited.stdout.split(separator: "\n").filter { $0.contains("write-failed") && $0.contains("File too large") }
        #expect(!unrecorded.isEmpty, "\(limited.stdout)")
        #expect(recorded.count + unrecorded.count == all.count, "\(recorded.count) recorded, \(unrecorded.count) write-failed: \(limited.stdout)")
        #expect(limited.status == 1)

        // And a rerun without the limit records the rest (write-failed is retried)
        let rerun = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])
        #expect(rerun.stdout.contains("\(recorded.count) already done"), "\(rerun.stdout)")
        try Self.checkConsistent(input: input, out: out)
    }

    @Test("shards 0..2 of 3 together produce exactly the outputs of one unsharded run")
    func shards() throws {
        let input = try Self.makeInput("shards")
        let base = input.deletingLastPathComponent()
        let whole = base.appendingPathComponent("whole")
        _ = try TestEnvironment.runAttachKit(["batch", input.path, "--out", whole.path])
        var union: [String] = []
        var manifestPaths: [String] = []
        for index in 0..<3 {
            let out = base.appendingPathComponent("shard\(index)")
            _ = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--shard", "\(index)/3"])
            union += InputWalker.files(under: out.path).filter { !$0.hasPrefix("manifest") }
            manifestPaths += try Self.manifestLines(out, name: "manifest-shard-\(index)-of-3.jsonl").compactMap { $0["path"]?.stringValue }
        }
        #expect(union.count == Set(union).count, "two shards wrote the same output")
        #expect(Set(union) == Set(InputWalker.files(under: whole.path).filter { !$0.hasPrefix("manifest") }))
        #expect(manifestPaths.sorted() == InputWalker.files(under: input.path))
    }

    @Test("batch takes prepare's options: --start 1 --max-duration 1 --trim exact cuts a 1 s clip; --quality-floor reaches the workers and changes the fingerprint")
    func prepareOptions() throws {
        // Given a clip with a keyframe every second and a photo that needs byte fitting
        let root = TestEnvironment.temporaryFolder("batch-options")
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        for file in ["video/mp4_h264_aac_640x360_6s_gop1s.mp4", "images/jpeg_large_4032x3024.jpg"] {
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture(file), toPath: input.appendingPathComponent(PathResolver.fileName(file)).path)
        }
        func run(_ out: String, _ options: [String]) throws -> [String: JSONValue] {
            let result = try TestEnvironment.runAttachKit(["batch", input.path, "--out", root.appendingPathComponent(out).path, "--jobs", "2"] + options)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let lines = try Self.manifestLines(root.appendingPathComponent(out))
            return Dictionary(uniqueKeysWithValues: lines.map { ($0["path"]?.stringValue ?? "", $0) })
        }

        // When the batch trims exactly from 1 s for 1 s, under the default quality floor and under 70
        let trimmed = try run("trimmed", ["--start", "1", "--max-duration", "1", "--trim", "exact", "--max-bytes", "100KB"])
        let floored = try run("floored", ["--start", "1", "--max-duration", "1", "--trim", "exact", "--max-bytes", "100KB",
                                          "--quality-floor", "70"])

        // Then the clip is 1 s long from 1 s, as re-probed from the output itself
        let clip = try #require(trimmed["mp4_h264_aac_640x360_6s_gop1s.mp4"])
        #expect(clip["ok"] == .bool(true), "\(clip.serialized.prefix(400))")
        #expect(abs((clip["trimStart"]?.doubleValue ?? -1) - 1) < 0.05, "\(clip.serialized.prefix(400))")
        let output = root.appendingPathComponent("trimmed").appendingPathComponent(try #require(clip["outputPath"]?.stringValue))
        let probed = try Through.probe(output.path, scope: root)
        #expect(abs((probed.duration ?? 0) - 1) < 0.05, "re-probed duration \(probed.duration ?? 0)")
        // And the quality floor reached the workers: the photo keeps quality 70 (shrunk instead), and the fingerprint differs
        let photo = "jpeg_large_4032x3024.jpg"
        #expect((trimmed[photo]?["quality"]?.intValue ?? 100) < 70, "\(trimmed[photo]?.serialized.prefix(300) ?? "")")
        #expect(floored[photo]?["quality"]?.intValue == 70, "\(floored[photo]?.serialized.prefix(300) ?? "")")
        #expect(trimmed[photo]?["optionsHash"] != floored[photo]?["optionsHash"])
    }
}
