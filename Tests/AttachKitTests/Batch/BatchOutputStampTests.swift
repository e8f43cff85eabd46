import Foundation
import Testing
@testable import AttachKit

/// A batch records what it committed (``OutputStamp``: inode, size, modification time) and
/// replaces or removes an earlier output only while it is still that version: a user's edit of
/// an output, in place or by a new file, is never lost on a rerun.
@Suite("attachkit batch: an edited output is never replaced", .serialized)
struct BatchOutputStampTests {
    /// Rewrites the file at `path` in place (the same inode), as an editor saving over it might.
    static func rewriteInPlace(_ path: String, with bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_TRUNC)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    static func inode(_ path: String) -> UInt64? { FileVersion(path: path)?.identity.inode }

    @Test("a line records its output's inode, size and time; a rerun with other options writes beside an edited output (the edit kept byte for byte) and replaces an unedited one")
    func editedOutputKept() throws {
        // Given a finished batch of two JPEGs
        let (input, out) = try BatchNamingTests.input([("c.jpg", "images/jpeg_photo_1600x1200_q90.jpg"), ("d.jpg", "images/jpeg_progressive_800x600.jpg")])
        let first = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try BatchNamingTests.lines(out)
        for (path, line) in before {
            let output = out.appendingPathComponent(try #require(line["outputPath"]?.stringValue)).path
            let version = try #require(FileVersion(path: output))
            let stamp = try #require(OutputStamp(json: line["outputFile"]), "\(path.text): \(line.serialized.prefix(300))")
            #expect(stamp.matches(version) && stamp.size == FileSystem.size(output), "\(path.text)")
            #expect(line["recordedAt"]?.stringValue?.hasSuffix("Z") == true)
        }
        // And the user rewrites out/c.jpg in place (same inode, other bytes)
        let edited = out.appendingPathComponent("c.jpg").path
        let inodeBefore = Self.inode(edited)
        let userBytes = Array("the user's own version of c.jpg\n".utf8)
        try Self.rewriteInPlace(edited, with: userBytes)
        #expect(Self.inode(edited) == inodeBefore)
        let dBefore = try Data(contentsOf: out.appendingPathComponent("d.jpg"))

        // When the batch runs again with other options (so both are prepared again)
        let rerun = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--max-edge", "400"])

        // Then the edit is untouched, c.jpg's new output is written beside it and says why
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: edited))) == userBytes)
        let after = try BatchNamingTests.lines(out)
        let c = try #require(after[ExactPath("c.jpg")])
        let moved = try #require(c["outputPath"]?.stringValue)
        #expect(moved == "c-jpg.jpg", "\(c.serialized.prefix(500))")
        #expect(c["outputName"]?["reason"]?.stringValue?.contains("c.jpg is a file already in the output folder that changed since this batch wrote it") == true,
                "\(c["outputName"]?.serialized ?? "no outputName")")
        let probed = try Through.probe(out.appendingPathComponent(moved).path, scope: out)
        #expect(max(probed.width ?? 0, probed.height ?? 0) == 400, "re-probed \(probed.width ?? 0)x\(probed.height ?? 0)")
        // And the unedited d.jpg is replaced under its own name by the new preparation
        #expect(after[ExactPath("d.jpg")]?["outputPath"]?.stringValue == "d.jpg")
        #expect(try Data(contentsOf: out.appendingPathComponent("d.jpg")) != dBefore)
        let d = try Through.probe(out.appendingPathComponent("d.jpg").path, scope: out)
        #expect(max(d.width ?? 0, d.height ?? 0) == 400)
    }

    @Test("an input added beside one done earlier (a.jpeg beside a.jpg: first in byte order) never takes the earlier output's name; each line's output is its own input's")
    func newcomerNeverTakesAnotherInputsOutput() throws {
        // Given a finished batch of a.jpg alone
        let (input, out) = try BatchNamingTests.input([("a.jpg", "images/jpeg_photo_1600x1200_q90.jpg")])
        #expect(try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path]).status == 0)
        let aOutput = out.appendingPathComponent("a.jpg").path
        let aBytes = try Data(contentsOf: URL(fileURLWithPath: aOutput))

        // When a.jpeg (another picture) is added, and the batch runs again
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"),
                                         toPath: input.appendingPathComponent("a.jpeg").path)
        let rerun = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")

        // Then a.jpg's output is untouched, a.jpeg's goes elsewhere, and each line names its own
        #expect(try Data(contentsOf: URL(fileURLWithPath: aOutput)) == aBytes)
        let lines = try BatchNamingTests.lines(out)
        #expect(lines[ExactPath("a.jpg")]?["outputPath"]?.stringValue == "a.jpg")
        let newcomer = try #require(lines[ExactPath("a.jpeg")]?["outputPath"]?.stringValue)
        #expect(newcomer != "a.jpg", "\(lines[ExactPath("a.jpeg")]?.serialized.prefix(400) ?? "")")
        let probed = try Through.probe(out.appendingPathComponent(newcomer).path, scope: out)
        #expect(probed.width == 800 && probed.height == 600, "\(newcomer): \(probed.width ?? 0)x\(probed.height ?? 0)")
        #expect(lines[ExactPath("a.jpeg")]?["outputName"]?["reason"]?.stringValue?.contains("the output an earlier run wrote for a.jpg") == true,
                "\(lines[ExactPath("a.jpeg")]?["outputName"]?.serialized ?? "no outputName")")
    }

    @Test("an edit of the same size whose modification time was put back (touch -d) is kept: the change time tells it")
    func editWithRestoredTimeKept() throws {
        let (input, out) = try BatchNamingTests.input([("p.jpg", "images/jpeg_progressive_800x600.jpg")])
        #expect(try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path]).status == 0)
        let output = out.appendingPathComponent("p.jpg").path
        var before = stat()
        #expect(stat(output, &before) == 0)
        // The same number of bytes, other content, then the modification time put back
        var edited = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        for i in 200..<260 { edited[i] ^= 0x5A }
        usleep(20_000)
        try Self.rewriteInPlace(output, with: edited)
        var times = [timespec(tv_sec: before.st_atim.tv_sec, tv_nsec: before.st_atim.tv_nsec), before.st_mtim]
        #expect(utimensat(AT_FDCWD, output, &times, 0) == 0)
        #expect(FileVersion(path: output)?.modified == Int64(before.st_mtim.tv_sec) * 1_000_000_000 + Int64(before.st_mtim.tv_nsec))

        let rerun = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--max-edge", "400"])

        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))) == edited)
        #expect(try BatchNamingTests.lines(out)[ExactPath("p.jpg")]?["outputPath"]?.stringValue == "p-jpg.jpg")
    }

    @Test("a thumbnail the user edited in place is kept too: the rerun's output and thumbnail take the next stem")
    func editedThumbnailKept() throws {
        // Given a finished batch with thumbnails, whose thumbnail the user then rewrote in place
        let (input, out) = try BatchNamingTests.input([("p.png", "images/png_rgb_opaque_400x300.png")])
        #expect(try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--thumbnails"]).status == 0)
        let line = try #require(try BatchNamingTests.lines(out)[ExactPath("p.png")])
        let thumbnail = try #require(line["thumbnail"]?.stringValue)
        let stamp = try #require(OutputStamp(json: line["thumbnailFile"]), "\(line.serialized.prefix(600))")
        #expect(stamp.matches(try #require(FileVersion(path: thumbnail))))
        try Self.rewriteInPlace(thumbnail, with: Array("my thumbnail\n".utf8))

        // When it runs again with other options
        let rerun = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--thumbnails", "--max-edge", "200"])

        // Then the edited thumbnail is as the user left it, and the new pair sits under another stem
        #expect(rerun.status == 0, "\(rerun.stdout)\(rerun.stderr)")
        #expect(try String(contentsOfFile: thumbnail, encoding: .utf8) == "my thumbnail\n")
        let again = try #require(try BatchNamingTests.lines(out)[ExactPath("p.png")])
        #expect(again["outputPath"]?.stringValue?.hasPrefix("p-png.") == true, "\(again.serialized.prefix(500))")
        #expect(again["thumbnail"]?.stringValue?.hasSuffix("/p-png.thumbnail.jpg") == true)
        #expect(again["outputName"]?["reason"]?.stringValue?.contains("p.thumbnail.jpg is a file already in the output folder that changed since") == true,
                "\(again["outputName"]?.serialized ?? "none")")
    }

    @Test("a manifest from before outputs were stamped still loads and resumes; its outputs cannot be proved the batch's, so a rerun that prepares again writes beside them")
    func unstampedManifest() throws {
        // Given a finished batch whose manifest lines lack outputFile and recordedAt (an older AttachKit)
        let (input, out) = try BatchNamingTests.input([("c.jpg", "images/jpeg_photo_1600x1200_q90.jpg")])
        #expect(try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path]).status == 0)
        let manifest = out.appendingPathComponent("manifest.jsonl")
        let old = try BatchProcessTests.manifestLines(out).map { line -> String in
            guard case .object(let fields) = line else { return line.serialized }
            return JSONValue.object(fields.filter { $0.0 != "outputFile" && $0.0 != "recordedAt" }).serialized
        }
        try Data((old.joined(separator: "\n") + "\n").utf8).write(to: manifest)
        let output = out.appendingPathComponent("c.jpg").path
        let kept = try Data(contentsOf: URL(fileURLWithPath: output))

        // When it runs again with the same options, Then the input is already done
        let same = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])
        #expect(same.status == 0 && same.stdout.contains("0 prepared, 1 already done"), "\(same.stdout)\(same.stderr)")

        // When it runs with other options, Then c.jpg stays as it was and the new output goes beside it
        let other = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--max-edge", "400"])
        #expect(other.status == 0, "\(other.stdout)\(other.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == kept)
        let line = try #require(try BatchNamingTests.lines(out)[ExactPath("c.jpg")])
        #expect(line["outputPath"]?.stringValue == "c-jpg.jpg", "\(line.serialized.prefix(400))")
        #expect(line["outputName"]?["reason"]?.stringValue?.contains("whose size and time no manifest line recorded") == true)
    }

    @Test("an input that turns corrupt loses its earlier output only when nobody edited it; an edited one, or one replaced by a new file, stays")
    func supersededOnlyWhenUnchanged() throws {
        // Given a finished batch of three images
        let (input, out) = try BatchNamingTests.input([("a.png", "images/png_palette_400x300.png"), ("b.png", "images/png_rgb_opaque_400x300.png"),
                                                       ("c.gif", "images/gif_static_320x240.gif")])
        #expect(try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path]).status == 0)
        let outputs = try BatchNamingTests.lines(out).mapValues { try #require($0["outputPath"]?.stringValue) }
        // And the user edits b's output in place and puts a new file of their own at c's
        let bOutput = out.appendingPathComponent(try #require(outputs[ExactPath("b.png")])).path
        let cOutput = out.appendingPathComponent(try #require(outputs[ExactPath("c.gif")])).path
        try Self.rewriteInPlace(bOutput, with: Array("edited b\n".utf8))
        unlink(cOutput)
        try Data("a new c\n".utf8).write(to: URL(fileURLWithPath: cOutput))
        // And every input turns into a file that is not media
        for name in ["a.png", "b.png", "c.gif"] {
            try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("malformed/json_named_as.webp"))).write(to: input.appendingPathComponent(name))
        }

        // When the batch runs again
        let rerun = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path])

        // Then all three are refused for good; a's unedited output is removed, b's and c's stay as the user left them
        #expect(rerun.status == 1 && rerun.stdout.contains("0 prepared"), "\(rerun.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(try #require(outputs[ExactPath("a.png")])).path))
        #expect(try String(contentsOfFile: bOutput, encoding: .utf8) == "edited b\n")
        #expect(try String(contentsOfFile: cOutput, encoding: .utf8) == "a new c\n")
    }
}
