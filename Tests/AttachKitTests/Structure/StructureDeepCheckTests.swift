import Foundation
import Testing
@testable import AttachKit

/// The decode check on its own: the pixel refusal, a tiny image, damage in a PNG past FFmpeg's
/// pixel limit, and the duration rule on corpus files.
@Suite("Structure: deep check")
struct StructureDeepCheckTests {
    @Test("a picture over 100 megapixels is not decoded (and not called corrupt): nothing is opened")
    func refusesHugePictures() {
        // Given a header that declares 20000x10000 (200 Mpx) for a file that does not even exist
        var info = MediaInfo(path: "/nonexistent/huge.jpg", bytes: 1, kind: .image, container: .jpeg)
        info.width = 20_000
        info.height = 10_000

        // When it is deep-checked, Then it is not decoded, and not called corrupt either: a valid
        // large picture is not broken (the safety caps, not the deep check, refuse bombs)
        #expect(DeepCheck.check(path: info.path, info: info) == .notChecked)
    }

    @Test("a tiny valid PNG decodes intact")
    func tinyPNG() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = folder.appendingPathComponent("tiny.png")
        try Data(SyntheticMedia.png()).write(to: whole)
        var info = MediaInfo(path: whole.path, bytes: 0, kind: .image, container: .png)
        info.width = 1
        info.height = 1

        #expect(DeepCheck.check(path: whole.path, info: info) == .intact)
    }

    // Only pixel rows that are really missing make the decode fail every time: a PNG cut inside
    // its last checksums (all pixels present) decodes intact or not depending on libvips' thread
    // timing, which is why the structure check, not the decode, is what refuses a missing IEND.
    @Test("a PNG cut through its pixel data does not decode intact, every time")
    func cutPNG() throws {
        let source = TestEnvironment.fixture("images/png_rgb_opaque_400x300.png")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cut = folder.appendingPathComponent("cut.png")
        try bytes.prefix(bytes.count / 2).write(to: cut)
        var info = MediaInfo(path: cut.path, bytes: Int64(bytes.count / 2), kind: .image, container: .png)
        info.width = 400
        info.height = 300

        #expect(DeepCheck.check(path: source, info: info) == .intact)
        for _ in 0..<5 {
            #expect(!DeepCheck.check(path: cut.path, info: info).isIntactOrUnchecked)
        }
    }

    /// libvips streams a PNG in a window of rows, so a picture over FFmpeg's 100 MP limit is still
    /// decoded whole: damage the structure check cannot see (CRCs valid) is found in it too.
    @Test("a 12000×12000 PNG whose compressed data is cut in half is corrupt from validate --deep and prepare, never handed back")
    func bigPNGCutInHalf() throws {
        let folder = TestEnvironment.temporaryFolder("big-png-cut")
        let whole = folder.appendingPathComponent("black.png").path
        let run = try TestEnvironment.run("vips", ["black", whole, "12000", "12000", "--bands", "3"])
        try #require(run.status == 0, "vips black: \(run.stderr)")
        let cut = folder.appendingPathComponent("cut.png").path
        try PNGChunks.rewrite(whole, to: cut) { index, count, body in index < count / 2 ? body : nil }
        func deepCodes(_ path: String) throws -> [String] {
            let deep = try TestEnvironment.runAttachKit(["validate", "--deep", "--profile", "apple", "--json", path])
            return try JSONValue.parse(deep.stdout)["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        }

        #expect(try deepCodes(cut).contains("corrupt"))
        let out = folder.appendingPathComponent("out")
        let prepared = try TestEnvironment.runAttachKit(["prepare", "--profile", "apple", "--json", "--out", out.path, cut])
        #expect(try JSONValue.parse(prepared.stdout)["error"]?["code"]?.stringValue == "corrupt", "\(prepared.stdout)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).isEmpty)
        // The intact picture is still handed back as it is, after its full (streamed) decode.
        #expect(try !deepCodes(whole).contains("corrupt"))
    }

    @Test("content that ends long before the declared duration is corrupt, unless the duration was only estimated",
          .needsCorpus)
    func durationShortfall() throws {
        // Given a Matroska file whose header declares 3.417 s but whose blocks stop at about 2 s
        let path = TestEnvironment.corpus!.appendingPathComponent("malformed/mkv_h264_content_truncated.mkv").path
        var info = try Prober().probeWithSniff(path: path, displayPath: path).info
        #expect(info.durationIsEstimate != true)

        // When it is decoded, Then the missing content is reported
        guard case .corrupt(let reason) = DeepCheck.check(path: path, info: info) else {
            Issue.record("the short decode was not reported")
            return
        }
        #expect(reason.contains("declares 3.417 s"))

        // And the same shortfall against a bitrate estimate is not held against the file
        info.durationIsEstimate = true
        #expect(DeepCheck.check(path: path, info: info) == .intact)
    }

    @Test("an MP4 whose edit list starts with a 10 s empty edit is not short of data: intact from validate --deep; prepare starts at the media and says so")
    func emptyEditIsTiming() throws {
        let folder = TestEnvironment.temporaryFolder("empty-edit")
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("plain.mp4").path, edited = folder.appendingPathComponent("edited.mp4").path
        for arguments in [["-f", "lavfi", "-i", "testsrc=s=160x120:d=4", "-f", "lavfi", "-i", "sine=d=4", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", plain],
                          ["-itsoffset", "10", "-i", plain, "-c", "copy", edited]] {
            let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y"] + arguments)
            try #require(made.status == 0, "\(made.stderr)")
        }
        let info = try Prober().probeWithSniff(path: edited, displayPath: edited).info
        #expect((info.duration ?? 0) > 13.9, "the movie's timeline, the empty edit included: \(info.duration ?? 0)")
        #expect(DeepCheck.check(path: edited, info: info) == .intact)

        let outcome = try AVPrepare.run(edited, scope: folder, profile: .ios)
        let output = try #require(outcome.report.output, "\(outcome.report.error?.message ?? "")")
        #expect(outcome.report.notes.contains { $0.hasPrefix("dropped the empty edit of") }, "\(outcome.report.notes)")
        let duration = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", output]).stdout
        #expect(abs((Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 4) < 0.1, "\(duration)")
    }

    @Test("a fragmented MP4 whose header declares the unknown duration (all ones) is judged by its fragments: 4 s, intact from validate --deep, remuxed with a real duration")
    func placeholderDuration() throws {
        let folder = TestEnvironment.temporaryFolder("placeholder-duration")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fragmented = folder.appendingPathComponent("fragmented.mp4").path
        let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=160x120:d=4", "-f", "lavfi", "-i", "sine=d=4",
                                                      "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "frag_keyframe+empty_moov", fragmented])
        try #require(made.status == 0, "\(made.stderr)")
        // mvhd, tkhd and mdhd durations set to all ones, as live recorders write them
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fragmented)))
        for (box, at) in [("mvhd", 20), ("tkhd", 24), ("mdhd", 20)] {
            var from = 0
            while let found = SampleEntryTests.find(Array(box.utf8), in: bytes, from: from) {
                bytes.replaceSubrange(found + at..<found + at + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
                from = found + 4
            }
        }
        let placeholder = folder.appendingPathComponent("placeholder.mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: placeholder))
        let ffprobe = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", placeholder]).stdout
        #expect((Double(ffprobe.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 1000, "libavformat takes the placeholder: \(ffprobe)")

        let info = try Prober().probeWithSniff(path: placeholder, displayPath: placeholder).info
        #expect(abs((info.duration ?? 0) - 4.08) < 0.1, "\(info.duration ?? 0)")
        #expect(DeepCheck.check(path: placeholder, info: info) == .intact)
        #expect(try Through.validate(placeholder, scope: folder, profile: .ios).ok)
        let outcome = try AVPrepare.run(placeholder, scope: folder, profile: .ios)
        let output = try #require(outcome.report.output, "\(outcome.report.error?.message ?? "")")
        #expect(outcome.report.action == .remuxed)
        let duration = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", output]).stdout
        #expect(abs((Double(duration.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 4.1) < 0.1, "\(duration)")
    }

    @Test("a VP9 stream declaring 12336x12336 is not decoded by the deep check; the structure check finds it broken",
          .needsCorpus)
    func hugeVideoRefused() throws {
        let path = TestEnvironment.corpus!.appendingPathComponent("malformed/webm_vp9_invalid_12336x12336.webm").path
        let info = try Prober().probeWithSniff(path: path, displayPath: path).info
        #expect(DeepCheck.check(path: path, info: info) == .notChecked)
        let sniff = try Prober().probeWithSniff(path: path, displayPath: path).sniff
        guard case .corrupt = StructureChecker.check(path: path, sniff: sniff) else {
            Issue.record("the truncated WebM passed the structure check")
            return
        }
    }
}
