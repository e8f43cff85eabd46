import Foundation
import Testing
@testable import AttachKit

/// Copied outputs and what libvips refuses (issue 13): a JPEG libvips refuses is corrupt from every
/// verb, never thumbnailed through FFmpeg; a GIF whose LZW code size is 1 is corrupt, not handed
/// back blank; fragmented and single-GOP clips say how they were verified; a batch rerun that
/// refuses an input removes the previous run's output for it.
@Suite("Hostile: copied outputs, libvips' refusals and stale batch outputs", .serialized)
struct CopyVerificationAttackTests {
    @Test("a JPEG with two frame headers is corrupt from probe, thumbnail and serve too, not drawn through FFmpeg")
    func thumbnailAgrees() throws {
        let folder = TestEnvironment.temporaryFolder("two-sof")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try LibvipsRefusalTests.jpegWithTwoFrameHeaders(in: folder).path
        let probe = try TestEnvironment.runAttachKit(["probe", "--json", input])
        #expect(TestEnvironment.errorCode(probe.stdout) == "corrupt", "\(probe.stdout)")
        let thumbnail = try TestEnvironment.runAttachKit(["thumbnail", input, "--out", folder.appendingPathComponent("t.jpg").path])
        #expect(thumbnail.status == 1 && (thumbnail.stdout + thumbnail.stderr).contains("corrupt"), "\(thumbnail.status) \(thumbnail.stdout)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("t.jpg").path))
        let request = #"{"id":1,"op":"thumbnail","path":"\#(input)","options":{"out":"\#(folder.appendingPathComponent("s.jpg").path)"}}"#
        let serve = try TestEnvironment.runAttachKit(["serve", "--in-process", "--allow", folder.path], stdin: Data((request + "\n").utf8))
        #expect(TestEnvironment.errorCode(serve.stdout) == "corrupt", "\(serve.stdout)")
    }

    @Test("a GIF whose first image has LZW code size 1 is corrupt (FFmpeg refuses it, libnsgif draws it blank)")
    func gifCodeSizeOne() throws {
        let folder = TestEnvironment.temporaryFolder("gif-code-size")
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("images/gif_static_320x240.gif"))))
        // The image descriptor (0x2C) after the header, screen descriptor and colour table, then
        // its own colour table if any: the code size byte follows.
        let flags = bytes[10]
        var at = 13 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0)
        while bytes[at] == 0x21 {  // extensions: label, then sub-blocks
            at += 2
            while bytes[at] != 0 { at += Int(bytes[at]) + 1 }
            at += 1
        }
        #expect(bytes[at] == 0x2C)
        let local = bytes[at + 9]
        at += 10 + (local & 0x80 != 0 ? 3 << (Int(local & 7) + 1) : 0)
        #expect((2...8).contains(bytes[at]))
        bytes[at] = 1
        let input = folder.appendingPathComponent("codesize1.gif")
        try Data(bytes).write(to: input)

        let report = try Through.validate(input.path, scope: folder, profile: .ios)
        #expect(report.diagnostics.contains { $0.code == .corrupt && $0.message.contains("LZW code size 1") }, "\(report.diagnostics.map(\.message))")
        let outcome = try ImagePrepare.run(input.path, scope: folder, profile: .ios)
        #expect(outcome.report.error?.code == "corrupt" && outcome.files.isEmpty)
    }

    @Test("a fragmented MP4 is verified GOP by GOP too, and a clip that is one long GOP says it was decoded whole")
    func fragmentedAndSingleGOP() throws {
        let folder = TestEnvironment.temporaryFolder("verify-layouts")
        defer { try? FileManager.default.removeItem(at: folder) }
        func make(_ name: String, _ extra: [String]) throws -> String {
            let path = folder.appendingPathComponent(name).path
            let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=40",
                                                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"] + extra + [path])
            #expect(run.status == 0, "\(run.stderr)")
            return path
        }
        let fragmented = try make("fragmented.mp4", ["-g", "50", "-movflags", "frag_keyframe+empty_moov"])
        let oneGOP = try make("onegop.mp4", ["-x264-params", "keyint=infinite", "-movflags", "+faststart"])
        func notes(_ path: String) throws -> [String] {
            try AVPrepare.run(path, scope: folder) { PrepareOptions(profile: .apple, outputFolder: $0, verifySeconds: 4) }.report.notes
        }
        let fragmentedNotes = try notes(fragmented), oneGOPNotes = try notes(oneGOP)
        #expect(fragmentedNotes.contains { $0.hasPrefix("2 of 20 GOPs of the video") }, "\(fragmentedNotes)")
        #expect(oneGOPNotes.contains { $0.hasPrefix("the video's one GOP (about 40.0 s) decoded to verify the copy") }, "\(oneGOPNotes)")
    }

    @Test("a batch rerun that refuses an input for good removes what an earlier run wrote for it; one that prepares it keeps its own")
    func staleBatchOutput() throws {
        // Given: a batch of one JPEG, prepared with its thumbnail
        let root = TestEnvironment.temporaryFolder("batch-stale")
        defer { try? FileManager.default.removeItem(at: root) }
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        let out = root.appendingPathComponent("out").path
        let photo = input.appendingPathComponent("photo.jpg")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"), toPath: photo.path)
        let first = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out, "--in-process", "--thumbnails"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: out + "/photo.jpg") && FileManager.default.fileExists(atPath: out + "/photo.thumbnail.jpg"))

        // When: the input is replaced by a JPEG that is corrupt, and the batch is run again
        let corrupt = try LibvipsRefusalTests.jpegWithTwoFrameHeaders(in: root)
        try FileManager.default.removeItem(at: photo)
        try FileManager.default.copyItem(at: corrupt, to: photo)
        let second = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out, "--in-process", "--thumbnails", "--json"])

        // Then: the manifest says corrupt, and the earlier output and thumbnail are gone
        #expect(second.status == 1, "\(second.stderr)")
        let report = CLITests.lines(second.stdout).first { $0["input"]?.stringValue?.hasSuffix("/photo.jpg") == true }
        #expect(report?["error"]?["code"]?.stringValue == "corrupt", "\(second.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out + "/photo.jpg") && !FileManager.default.fileExists(atPath: out + "/photo.thumbnail.jpg"))

        // And: a good input prepared again (without thumbnails now) keeps its output, drops the old thumbnail
        try FileManager.default.removeItem(at: photo)
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"), toPath: photo.path)
        _ = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out, "--in-process", "--thumbnails"])
        let third = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out, "--in-process"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(FileManager.default.fileExists(atPath: out + "/photo.jpg") && !FileManager.default.fileExists(atPath: out + "/photo.thumbnail.jpg"))
    }
}
