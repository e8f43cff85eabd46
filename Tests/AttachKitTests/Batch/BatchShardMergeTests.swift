import Foundation
import Testing
@testable import AttachKit

/// Shards that can be combined: a run of another split reuses what any manifest recorded for the
/// same bytes and options, the report picks lines by when they were recorded, and `attachkit
/// merge` folds the manifests into one `manifest.jsonl`, naming conflicts.
@Suite("attachkit batch: shards reused, reported and merged", .serialized)
struct BatchShardMergeTests {
    static let files = [("a.png", "images/png_palette_400x300.png"), ("b.gif", "images/gif_static_320x240.gif"),
                        ("c.jpg", "images/jpeg_greyscale_640x480.jpg"), ("d.webp", "images/webp_lossy_800x600.webp"),
                        ("sub/e.jpg", "images/jpeg_progressive_800x600.jpg"), ("sub/f.png", "images/png_rgb_opaque_400x300.png")]

    /// Runs `attachkit batch IN --out OUT --json ARGS`; returns the exit status and the inputs
    /// prepared in this run (one JSON report each on stdout; inputs already done print none).
    static func batch(_ input: URL, _ out: URL, _ arguments: [String] = []) throws -> (status: Int32, prepared: Int, stderr: String) {
        let run = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--json", "--jobs", "2"] + arguments)
        let reports = run.stdout.split(separator: "\n").filter { (try? JSONValue.parse(String($0)))?["ok"] != nil }
        return (run.status, reports.count, run.stdout + run.stderr)
    }

    static func shardManifests(_ out: URL) -> [String] {
        BatchManifest.manifestNames(in: out.path).filter { $0 != "manifest.jsonl" }
    }

    /// Every output's version (device, inode, size, mtime), by output path, from the lines given.
    static func versions(_ out: URL, _ lines: [JSONValue]) throws -> [String: FileVersion] {
        var versions: [String: FileVersion] = [:]
        for line in lines {
            let output = try #require(line["outputPath"]?.stringValue, "\(line.serialized.prefix(300))")
            versions[output] = try #require(FileVersion(path: out.appendingPathComponent(output).path))
        }
        return versions
    }

    static func allLines(_ out: URL) throws -> [JSONValue] {
        try BatchManifest.manifestNames(in: out.path).flatMap { try BatchProcessTests.manifestLines(out, name: $0) }
    }

    @Test("after two shards, an unsharded run and a 3-shard split reuse every output (not one file rewritten); a changed input alone is prepared again")
    func otherSplitReuses() throws {
        // Given an input folder prepared as shards 0/2 and 1/2
        let (input, out) = try BatchNamingTests.input(Self.files)
        for shard in ["0/2", "1/2"] { #expect(try Self.batch(input, out, ["--shard", shard]).status == 0) }
        let sharded = try Self.versions(out, Self.allLines(out))
        #expect(sharded.count == 6)

        // When the same options run unsharded
        let whole = try Self.batch(input, out)

        // Then nothing is prepared again, every output is the same file, and manifest.jsonl records every input, saying from where
        #expect(whole.status == 0 && whole.prepared == 0, "\(whole.stderr)")
        let lines = try BatchProcessTests.manifestLines(out)
        #expect(Set(lines.compactMap { $0["path"]?.stringValue }) == Set(Self.files.map(\.0)))
        #expect(lines.allSatisfy { $0["reusedFrom"]?.stringValue?.hasPrefix("manifest-shard-") == true }, "\(lines.map { $0.serialized.prefix(200) })")
        #expect(try Self.versions(out, lines) == sharded)

        // And a split into three reuses them too
        var prepared = 0
        for shard in ["0/3", "1/3", "2/3"] {
            let run = try Self.batch(input, out, ["--shard", shard])
            #expect(run.status == 0, "\(run.stderr)")
            prepared += run.prepared
        }
        #expect(prepared == 0)
        for index in 0..<3 {
            let shardLines = try BatchProcessTests.manifestLines(out, name: "manifest-shard-\(index)-of-3.jsonl")
            #expect(try Self.versions(out, shardLines).allSatisfy { sharded[$0.key] == $0.value })
        }

        // When one input changes, Then an unsharded run prepares it alone
        try FileManager.default.removeItem(at: input.appendingPathComponent("c.jpg"))
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_exif_orientation6_600x400.jpg"), toPath: input.appendingPathComponent("c.jpg").path)
        let changed = try Self.batch(input, out)
        #expect(changed.status == 0 && changed.prepared == 1, "\(changed.stderr)")
        let c = try #require(try BatchNamingTests.lines(out)[ExactPath("c.jpg")])
        #expect(c["inputHash"]?.stringValue == SHA256.hex(try Data(contentsOf: input.appendingPathComponent("c.jpg"))))
        try BatchProcessTests.checkConsistent(input: input, out: out, profile: .standard)
    }

    @Test("a stale manifest.jsonl does not win over fresher shard manifests in the report: lines are chosen by when they were recorded, with or without recordedAt")
    func reportChoosesByTime() throws {
        // Given an unsharded run at --max-edge 300, then shards at the default options (which prepare everything again)
        let (input, out) = try BatchNamingTests.input(Self.files)
        #expect(try Self.batch(input, out, ["--max-edge", "300"]).status == 0)
        for shard in ["0/2", "1/2"] { #expect(try Self.batch(input, out, ["--shard", shard]).prepared > 0) }

        // When the report is drawn, Then every input shows the shards' line (no --max-edge), not the stale one
        func check() throws {
            let source = try ReportSource(outputRoot: out.path)
            #expect(source.entries.count == 6)
            for entry in source.entries {
                #expect(entry.settings?.flags.contains("--max-edge") == false, "\(entry.path): \(entry.settings?.flags ?? "no settings")")
            }
        }
        try check()
        // And so it does when the stale lines have no recordedAt but their manifest was written an hour ago
        let stale = out.appendingPathComponent("manifest.jsonl")
        let old = try BatchProcessTests.manifestLines(out).map { line -> String in
            guard case .object(let fields) = line else { return line.serialized }
            return JSONValue.object(fields.filter { $0.0 != "recordedAt" }).serialized
        }
        try Data((old.joined(separator: "\n") + "\n").utf8).write(to: stale)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: stale.path)
        try check()
        let report = try TestEnvironment.runAttachKit(["report", out.path])
        #expect(report.status == 0 && report.stdout.contains("6 input(s)"), "\(report.stdout)\(report.stderr)")
    }

    @Test("merge folds three shards into one manifest.jsonl (one line per input), removes the shard manifests, and an unsharded rerun has nothing to do")
    func mergeShards() throws {
        let (input, out) = try BatchNamingTests.input(Self.files)
        for shard in ["0/3", "1/3", "2/3"] { #expect(try Self.batch(input, out, ["--shard", shard]).status == 0) }
        let before = try Self.allLines(out)
        let versions = try Self.versions(out, before)

        let merge = try TestEnvironment.runAttachKit(["merge", out.path, "--json"])
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        let result = try JSONValue.parse(merge.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(result["inputs"]?.intValue == 6 && result["written"] == .bool(true) && result["conflicts"]?.arrayValue?.isEmpty == true)
        #expect(result["removed"]?.arrayValue?.count == 3)
        #expect(Self.shardManifests(out).isEmpty)
        let merged = try BatchProcessTests.manifestLines(out)
        #expect(merged.compactMap { $0["path"]?.stringValue } == Self.files.map(\.0).sorted { ExactPath($0) < ExactPath($1) })
        #expect(Set(merged.map(\.serialized)) == Set(before.map(\.serialized)), "the lines are kept as recorded")
        #expect(try Self.versions(out, merged) == versions)

        let rerun = try Self.batch(input, out)
        #expect(rerun.status == 0 && rerun.prepared == 0, "\(rerun.stderr)")
        let report = try TestEnvironment.runAttachKit(["report", out.path])
        #expect(report.status == 0 && report.stdout.contains("6 input(s), 6 prepared"), "\(report.stdout)\(report.stderr)")
    }

    @Test("merge names inputs recorded under different options as conflicts and changes nothing; --prefer-latest keeps the line recorded last")
    func mergeOptionsConflict() throws {
        // Given an unsharded run at --max-edge 300, then shards at the default options
        let (input, out) = try BatchNamingTests.input(Self.files)
        #expect(try Self.batch(input, out, ["--max-edge", "300"]).status == 0)
        for shard in ["0/2", "1/2"] { #expect(try Self.batch(input, out, ["--shard", shard]).status == 0) }
        let manifestBefore = try Data(contentsOf: out.appendingPathComponent("manifest.jsonl"))
        let shardOptions = Set(try Self.shardManifests(out).flatMap { try BatchProcessTests.manifestLines(out, name: $0) }.compactMap { $0["optionsHash"]?.stringValue })
        #expect(shardOptions.count == 1)

        // When merged, Then every input is a conflict on stderr, exit 1, and nothing changed
        let refused = try TestEnvironment.runAttachKit(["merge", out.path])
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        for (file, _) in Self.files {
            #expect(refused.stderr.contains("conflict: \(file): the manifests record the same input under different options"), "\(refused.stderr)")
        }
        #expect(try Data(contentsOf: out.appendingPathComponent("manifest.jsonl")) == manifestBefore)
        #expect(Self.shardManifests(out).count == 2)

        // When merged with --prefer-latest, Then the shards' (later) lines stand alone
        let resolved = try TestEnvironment.runAttachKit(["merge", out.path, "--prefer-latest"])
        #expect(resolved.status == 0, "\(resolved.stdout)\(resolved.stderr)")
        #expect(resolved.stderr.contains("resolved: kept the line recorded last"))
        let merged = try BatchProcessTests.manifestLines(out)
        #expect(merged.count == 6 && Set(merged.compactMap { $0["optionsHash"]?.stringValue }) == shardOptions)
        #expect(Self.shardManifests(out).isEmpty)
        #expect(try Self.batch(input, out).prepared == 0)
    }

    @Test("merge drops a line for bytes the input no longer has (the content decides, no conflict); two inputs naming one output are a conflict")
    func mergeStaleAndClaims() throws {
        // Given shards 0/2 and 1/2, then c.jpg changed and an unsharded run (which reuses five and prepares c.jpg)
        let (input, out) = try BatchNamingTests.input(Self.files)
        for shard in ["0/2", "1/2"] { #expect(try Self.batch(input, out, ["--shard", shard]).status == 0) }
        try FileManager.default.removeItem(at: input.appendingPathComponent("c.jpg"))
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_exif_orientation6_600x400.jpg"), toPath: input.appendingPathComponent("c.jpg").path)
        #expect(try Self.batch(input, out).prepared == 1)
        let current = SHA256.hex(try Data(contentsOf: input.appendingPathComponent("c.jpg")))

        // And one shard line rewritten to claim another input's output, recorded long ago
        let name = try #require(Self.shardManifests(out).first)
        var shardLines = try BatchProcessTests.manifestLines(out, name: name)
        let others = Self.files.map(\.0).filter { file in file != "c.jpg" && !shardLines.contains { $0["path"]?.stringValue == file } }
        let victimName = try #require(others.first)
        let victim = try #require(try BatchNamingTests.lines(out)[ExactPath(victimName)])
        let index = try #require(shardLines.firstIndex { $0["path"]?.stringValue != "c.jpg" })
        guard case .object(var fields) = shardLines[index] else { Issue.record("not an object"); return }
        let claimant = try #require(fields.first { $0.0 == "path" }?.1.stringValue)
        fields = fields.map { $0.0 == "outputPath" ? ($0.0, victim["outputPath"]!) : $0.0 == "recordedAt" ? ($0.0, .string("2001-01-01T00:00:00.000Z")) : $0 }
        shardLines[index] = .object(fields)
        try Data((shardLines.map(\.serialized).joined(separator: "\n") + "\n").utf8).write(to: out.appendingPathComponent(name))
        // (manifest.jsonl's copy of the claimant's line would win by time: drop it, so the old claim stands)
        let plain = try BatchProcessTests.manifestLines(out).filter { $0["path"]?.stringValue != claimant }
        try Data((plain.map(\.serialized).joined(separator: "\n") + "\n").utf8).write(to: out.appendingPathComponent("manifest.jsonl"))

        // When merged, Then the claim is the one conflict, naming the output and both inputs; nothing is written
        let refused = try TestEnvironment.runAttachKit(["merge", out.path, "--json"])
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        let output = try #require(victim["outputPath"]?.stringValue)
        let victimPath = try #require(victim["path"]?.stringValue)
        #expect(refused.stderr.contains("conflict: \(output): one output claimed by 2 inputs"), "\(refused.stderr)")
        #expect(refused.stderr.contains(claimant) && refused.stderr.contains(victimPath))
        let result = try JSONValue.parse(refused.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(result["written"] == .bool(false) && result["conflicts"]?.arrayValue?.count == 1 && result["stale"]?.intValue == 1, "\(refused.stdout)")

        // When merged with --prefer-latest, Then the later claim keeps the output, c.jpg's line is the current bytes',
        // and the next run prepares the claimant alone
        let resolved = try TestEnvironment.runAttachKit(["merge", out.path, "--prefer-latest"])
        #expect(resolved.status == 0, "\(resolved.stdout)\(resolved.stderr)")
        let merged = try BatchNamingTests.lines(out)
        #expect(merged.count == 5 && merged[ExactPath(claimant)] == nil && merged[ExactPath(victimPath)] != nil)
        #expect(merged[ExactPath("c.jpg")]?["inputHash"]?.stringValue == current)
        let rerun = try Self.batch(input, out)
        #expect(rerun.status == 0 && rerun.prepared == 1, "\(rerun.stderr)")
        try BatchProcessTests.checkConsistent(input: input, out: out, profile: .standard)
    }

    @Test("merge refuses (exit 75) while a batch holds the folder, and changes nothing")
    func mergeWhileBusy() throws {
        let (input, out) = try BatchNamingTests.input(Array(Self.files.prefix(2)))
        for shard in ["0/2", "1/2"] { #expect(try Self.batch(input, out, ["--shard", shard]).status == 0) }
        let held = try BatchLock(manifestPath: out.appendingPathComponent("manifest.jsonl").path)
        let busy = try TestEnvironment.runAttachKit(["merge", out.path])
        #expect(busy.status == 75 && busy.stderr.contains("another batch"), "\(busy.stderr)")
        #expect(Self.shardManifests(out).count == 2 && !FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.jsonl").path))
        _ = consume held
        #expect(try TestEnvironment.runAttachKit(["merge", out.path]).status == 0)
    }
}
