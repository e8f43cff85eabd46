import Foundation
import Testing
@testable import AttachKit

/// `attachkit batch` names every output from one plan of the whole run (``OutputLayout``): inputs
/// whose names differ only in Unicode normalization or letter case, a thumbnail name that is
/// another input's, folders named like the manifest or its lock, and files the run keeps that are
/// links to inputs.
@Suite("attachkit batch: one plan of every path the run writes", .serialized)
struct BatchNamingTests {
    static let precomposed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// `in/` holding each `(name, fixture)`, beside an `out/` not made yet.
    static func input(_ files: [(String, String)], name: String = #function) throws -> (input: URL, out: URL) {
        let root = TestEnvironment.temporaryFolder(name)
        let input = root.appendingPathComponent("in", isDirectory: true)
        for (file, fixture) in files {
            let target = input.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture(fixture), toPath: target.path)
        }
        return (input, root.appendingPathComponent("out", isDirectory: true))
    }

    /// The manifest's lines by their input path, byte for byte.
    static func lines(_ out: URL) throws -> [ExactPath: JSONValue] {
        var lines: [ExactPath: JSONValue] = [:]
        for line in try BatchProcessTests.manifestLines(out) {
            let path = ExactPath(try #require(line["path"]?.stringValue))
            #expect(lines[path] == nil, "two lines for \(path)")
            lines[path] = line
        }
        return lines
    }

    /// Every input's bytes, by its path relative to `folder`.
    static func hashes(_ folder: URL) throws -> [ExactPath: String] {
        var hashes: [ExactPath: String] = [:]
        for file in InputWalker.files(under: folder.path) {
            hashes[ExactPath(file)] = SHA256.hex(try Data(contentsOf: folder.appendingPathComponent(file)))
        }
        return hashes
    }

    @Test("normalization twins, case twins and a thumbnail name that is another input's each get an output of their own, the same on a rerun")
    func twinsAndThumbnails() throws {
        // Given inputs that one macOS or SMB folder could not hold apart, and x.webp beside x.thumbnail.jpg
        let (input, out) = try Self.input([(Self.precomposed + ".png", "images/png_rgb_opaque_400x300.png"),
                                           (Self.decomposed + ".png", "images/gif_static_320x240.gif"),
                                           ("Photo.jpg", "images/jpeg_progressive_800x600.jpg"), ("photo.JPG", "images/jpeg_greyscale_640x480.jpg"),
                                           ("x.webp", "images/webp_lossy_800x600.webp"), ("x.thumbnail.jpg", "images/jpeg_photo_1600x1200_q90.jpg")])
        let before = try Self.hashes(input)
        #expect(before.count == 6)

        // When it is prepared with thumbnails
        let run = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--thumbnails", "--jobs", "2"])
        #expect(run.status == 0, "\(run.stderr)")

        // Then there is one line per input, and no two files written share a name under folding
        let lines = try Self.lines(out)
        #expect(Set(lines.keys) == Set(before.keys))
        let written = lines.values.flatMap { [$0["outputPath"]?.stringValue, $0["thumbnail"]?.stringValue.map(PathResolver.fileName)].compactMap { $0 } }
        #expect(written.count == 12 && Set(written.map(CaselessName.key)).count == 12, "\(written)")
        // The photo's output is the photo, x.webp's thumbnail is a thumbnail, and each says which name it got and why
        let photo = try #require(lines[ExactPath("x.thumbnail.jpg")])
        #expect(try vipsSize(out.appendingPathComponent(try #require(photo["outputPath"]?.stringValue)).path) == [1600, 1200])
        let webp = try #require(lines[ExactPath("x.webp")])
        #expect(webp["outputName"]?["reason"]?.stringValue == "x.thumbnail.jpg is the output of x.thumbnail.jpg")
        #expect(try vipsSize(try #require(webp["thumbnail"]?.stringValue)).max() == 320)
        #expect(lines[ExactPath(Self.precomposed + ".png")]?["outputName"]?["stem"]?.stringValue == Self.precomposed + "-png")
        #expect(try Self.hashes(input) == before)

        // And a rerun keeps every name and line and prepares nothing
        let again = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--thumbnails", "--jobs", "2"])
        #expect(again.stdout.contains("0 prepared, 6 already done"), "\(again.stdout)")
        #expect(try Self.lines(out).mapValues { $0["outputPath"] } == lines.mapValues { $0["outputPath"] })
    }

    @Test("a file already in the output folder that no run of the batch wrote is never replaced, nested in the input folder or not; reruns keep their names")
    func foreignFilesInTheOutputFolder() throws {
        for nested in [true, false] {
            // Given a.webp to prepare, and a user's photo a.jpg (and a thumbnail-named file) already
            // where its output would go: in the output folder, nested in the input folder or beside it
            let (input, separate) = try Self.input([("a.webp", "images/webp_lossy_800x600.webp")], name: "foreign-\(nested)")
            let out = nested ? input.appendingPathComponent("best", isDirectory: true) : separate
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            for name in ["a.jpg", "a.thumbnail.jpg"] {
                try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg"), toPath: out.appendingPathComponent(name).path)
            }
            let before = try Self.hashes(out)

            // When the batch runs, twice
            let run = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--thumbnails"])
            #expect(run.status == 0, "\(run.stderr)")
            let first = try Self.lines(out)
            let again = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--thumbnails"])

            // Then the user's files are untouched, the output took the next name and says why, and
            // the rerun recognizes its own output (recorded in the manifest) and prepares nothing
            let after = try Self.hashes(out)
            for (name, hash) in before { #expect(after[name] == hash, "\(name) was replaced (nested: \(nested))") }
            let line = try #require(first[ExactPath("a.webp")])
            #expect(line["outputPath"]?.stringValue == "a-webp.jpg", "\(line)")
            #expect(line["outputName"]?["reason"]?.stringValue == "a.jpg is a file already in the output folder that no run of this batch wrote", "\(line)")
            #expect(try vipsSize(out.appendingPathComponent("a-webp.jpg").path) == [800, 600])
            #expect(again.stdout.contains("0 prepared, 1 already done"), "\(again.stdout)")
            #expect(try Self.lines(out)[ExactPath("a.webp")]?["outputPath"] == line["outputPath"])
        }
    }

    @Test("outputs recorded by the manifests of another split are the batch's own: an unsplit run after two shards keeps them under the same names (reused, since the bytes and options are the same)")
    func otherSplitsOutputs() throws {
        let (input, out) = try Self.input([("a.webp", "images/webp_lossy_800x600.webp"), ("b.png", "images/png_palette_400x300.png")])
        for shard in ["0/2", "1/2"] {
            #expect(try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--shard", shard]).status == 0)
        }
        let sharded = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".") && !$0.hasPrefix("manifest") }.sorted()
        let plain = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])
        #expect(plain.status == 0, "\(plain.stderr)")
        let lines = try Self.lines(out)
        #expect(lines.values.allSatisfy { $0["outputName"] == nil }, "\(lines)")
        let after = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".") && !$0.hasPrefix("manifest") }.sorted()
        #expect(after == sharded, "\(after) against \(sharded)")
    }

    @Test("names at the file-name limit are shortened to leave room for the extension, a -EXT or -N and .thumbnail.jpg")
    func longNames() throws {
        // Given two inputs with one 250-byte stem (the second wants STEM-webp.jpg, 259 bytes), a
        // 245-byte one (STEM.thumbnail.jpg would be 259 bytes), and 62 emoji (248 bytes in 62
        // characters: the temporary file's name is cut by bytes too)
        let long = String(repeating: "L", count: 250), medium = String(repeating: "é", count: 122) + "M"
        let emoji = String(repeating: "\u{1F600}", count: 62)
        let (input, out) = try Self.input([(long + ".jpg", "images/jpeg_progressive_800x600.jpg"), (long + ".webp", "images/webp_lossy_800x600.webp"),
                                           (medium + ".png", "images/png_rgb_opaque_400x300.png"), (emoji + ".png", "images/png_palette_400x300.png")])
        // When the batch runs with thumbnails
        let run = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--thumbnails"])
        // Then every input is prepared, no name passes 255 bytes, and each shortened one says why
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = try Self.lines(out)
        #expect(lines.count == 4 && lines.values.allSatisfy { $0["ok"]?.boolValue == true }, "\(lines)")
        let names = lines.values.flatMap { [$0["outputPath"]?.stringValue, $0["thumbnail"]?.stringValue.map(PathResolver.fileName)].compactMap { $0 } }
        #expect(names.count == 8 && Set(names.map(CaselessName.key)).count == 8, "\(names)")
        for name in names { #expect(name.utf8.count <= 255, "\(name.utf8.count) bytes") }
        #expect(lines[ExactPath(medium + ".png")]?["outputName"]?["reason"]?.stringValue?.contains("leaves no room") == true)
    }

    @Test("folders named like the manifest, its lock and its compaction temporary are inputs like any other")
    func manifestNamedFolders() throws {
        let (input, out) = try Self.input([("manifest.jsonl/a.png", "images/png_palette_400x300.png"),
                                           ("manifest.jsonl.lock/b.gif", "images/gif_static_320x240.gif"),
                                           ("manifest.jsonl.compact.tmp/c.jpg", "images/jpeg_greyscale_640x480.jpg")])
        for _ in 0..<2 {
            let run = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--jobs", "2"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = try Self.lines(out)
            #expect(lines.count == 3 && lines.values.allSatisfy { $0["ok"]?.boolValue == true }, "\(lines)")
            #expect(Set(lines.values.compactMap { $0["outputPath"]?.stringValue }) == ["manifest.jsonl-2/a.png", "manifest.jsonl.lock-2/b.gif", "manifest.jsonl.compact.tmp-2/c.jpg"])
            #expect(!FileSystem.isDirectory(out.appendingPathComponent("manifest.jsonl").path))
        }
    }

    @Test("a lock or compaction temporary that is a link to an input is refused before anything is written; the input is unchanged")
    func linkedRunFiles() throws {
        let (input, out) = try Self.input([("a.png", "images/png_palette_400x300.png")])
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let photo = input.appendingPathComponent("a.png").path
        let before = try Self.hashes(input)
        // A hard link as the lock, then a symbolic link as the compaction temporary.
        for (name, make) in [("manifest.jsonl.lock", { link(photo, $0) }), ("manifest.jsonl.compact.tmp", { symlink(photo, $0) })] as [(String, (String) -> Int32)] {
            let planted = out.appendingPathComponent(name).path
            #expect(make(planted) == 0)
            let refused = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])
            #expect(refused.status == 1 && refused.stderr.contains(name), "\(name): \(refused.stderr)")
            #expect(try Self.hashes(input) == before, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("a.png").path))
            unlink(planted)
        }
        // Once they are gone the run goes through.
        let run = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.hashes(input) == before)
        #expect(try Self.lines(out).count == 1)
    }

    @Test("a manifest that is a hard or symbolic link to a file outside the inputs is refused, named, and the file left as it is")
    func linkedManifest() throws {
        let (input, out) = try Self.input([("a.png", "images/png_palette_400x300.png")])
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let victim = input.deletingLastPathComponent().appendingPathComponent("precious.txt").path
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        let planted = out.appendingPathComponent("manifest.jsonl").path
        for make in [{ link(victim, $0) }, { symlink(victim, $0) }] as [(String) -> Int32] {
            #expect(make(planted) == 0)
            let refused = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])
            #expect(refused.status == 1 && refused.stderr.contains("manifest.jsonl"), "\(refused.stderr)")
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
            var status = stat()
            #expect(lstat(planted, &status) == 0, "the link itself is left in place")
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("a.png").path))
            unlink(planted)
        }
    }

    @Test("the header's and the summary's \"already done\" are the same inputs")
    func alreadyDoneCounted() throws {
        // Given a finished batch, then one input changed and one removed
        let (input, out) = try Self.input([("a.png", "images/png_palette_400x300.png"), ("b.gif", "images/gif_static_320x240.gif"),
                                           ("c.jpg", "images/jpeg_greyscale_640x480.jpg")])
        #expect(try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path]).status == 0)
        try FileManager.default.removeItem(at: input.appendingPathComponent("b.gif"))
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_animated_320x240_24f.gif"), toPath: input.appendingPathComponent("b.gif").path)
        unlink(out.appendingPathComponent("c.jpg").path)

        // When it runs again
        let run = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])

        // Then both lines count one input done (a.png): b.gif changed, c.jpg's output is gone
        #expect(run.stderr.contains("batch: 3 file(s), 1 already done;"), "\(run.stderr)")
        #expect(run.stdout.contains("2 prepared, 1 already done, 0 failed"), "\(run.stdout)")
    }

    /// `[width, height]` as `vipsheader` reads them.
    func vipsSize(_ path: String) throws -> [Int] {
        let width = try TestEnvironment.run("vipsheader", ["-f", "width", path]).stdout
        let height = try TestEnvironment.run("vipsheader", ["-f", "height", path]).stdout
        return [width, height].compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
