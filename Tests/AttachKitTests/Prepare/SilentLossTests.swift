import Foundation
import Testing
@testable import AttachKit

/// Nothing lost silently: every lossy decision `prepare` takes is a note in its report (downmix,
/// dropped pages), GIF frame delays keep the source's duration to the centisecond, and
/// downscales land on the cap exactly. Outputs are re-read with `ffprobe` and `vipsheader`.
@Suite("Nothing lost silently")
struct SilentLossTests {
    /// `ffprobe`'s channel count and layout of the first audio stream.
    static func soundLayout(_ path: String) throws -> (channels: Int, layout: String) {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                      "stream=channels,channel_layout", "-of", "csv=p=0", path])
        let fields = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        guard run.status == 0, fields.count == 2, let channels = Int(fields[0]) else {
            throw FFprobeReport.ProbeFailure(path: path, message: run.stderr + run.stdout)
        }
        return (channels, fields[1])
    }

    @Test("5.1 sound is downmixed to stereo AAC, and the note says from which layout", arguments: [
        ("audio/flac_51side_48k_0.5s.flac", "5.1(side)"), ("audio/ogg_opus_51_0.5s.opus", "5.1"),
    ])
    func downmix(file: String, layout: String) throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture(file), scope: TestEnvironment.testMedia)
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        let sound = try Self.soundLayout(output)
        #expect(sound.channels == 2 && sound.layout == "stereo")
        #expect(outcome.report.notes.contains { $0.hasPrefix("downmixed \(layout) → stereo") }, "\(outcome.report.notes)")
    }

    @Test("stereo sound re-encoded says nothing about a downmix")
    func noDownmixNote() throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("audio/flac_22k_5s.flac"), scope: TestEnvironment.testMedia)
        #expect(outcome.report.output != nil)
        #expect(!outcome.report.notes.contains { $0.contains("downmixed") })
    }

    @Test("a 3-page TIFF keeps its first page, and the note says the others are dropped")
    func tiffPages() throws {
        let outcome = try ImagePrepare.run(TestEnvironment.fixture("images/tiff_3pages_160x90.tif"), scope: TestEnvironment.testMedia,
                                           profile: .ios)
        let output = try #require(outcome.report.output)
        let header = try VipsHeader.of(output)
        #expect(header.pages == 1 && header.width == 160 && header.height == 90)
        #expect(outcome.report.notes.contains { $0.hasPrefix("kept the first of 3 pages") }, "\(outcome.report.notes)")
    }

    @Test("a 15 fps animated WebP (2.00 s) becomes a GIF that lasts 2.00 s, and the note gives the real figure")
    func gifDuration() throws {
        let outcome = try ImagePrepare.run(TestEnvironment.fixture("images/webp_animated_15fps_160x90.webp"),
                                           scope: TestEnvironment.testMedia, profile: .ios)
        let output = try #require(outcome.report.output)
        let run = try TestEnvironment.run("vipsheader", ["-f", "delay", output])
        let delays = run.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        #expect(delays.count == 30)
        let total = delays.reduce(0, +)
        #expect(abs(total - 1999) <= 10, "GIF lasts \(total) ms")
        #expect(outcome.report.notes.contains { $0.contains("30 frames, \(total) ms") }, "\(outcome.report.notes)")
        #expect(outcome.report.notes.contains { $0.hasPrefix("frame delays rounded to whole centiseconds") })
    }

    @Test("GIF delays: whole centiseconds, the error carried forward")
    func centisecondDelays() {
        let webp = Array(repeating: [66, 67, 67], count: 10).flatMap { $0 }
        let gif = GIFDelays.centisecondDelays(webp)
        #expect(gif.allSatisfy { $0 % 10 == 0 } && gif.reduce(0, +) == 2000)
        #expect(GIFDelays.centisecondDelays([100, 50, 30]) == [100, 50, 30])
        #expect(GIFDelays.centisecondDelays([15, 15, 15, 15]) == [20, 10, 20, 10])
        #expect(!GIFDelays.needsRounding([100, 50]) && GIFDelays.needsRounding([66]))
    }

    @Test("a downscale to the 2048 cap lands on 2048 exactly", arguments: [(5000, 3333), (3333, 5000), (4097, 2731)])
    func exactCap(width: Int, height: Int) throws {
        let folder = TestEnvironment.temporaryFolder("exact-cap")
        let path = folder.appendingPathComponent("big.jpg").path
        let make = try TestEnvironment.run("vips", ["black", path + "[Q=50]", String(width), String(height), "--bands", "3"])
        try #require(make.status == 0, "\(make.stderr)")
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios)
        let header = try VipsHeader.of(try #require(outcome.report.output))
        #expect(max(header.width, header.height) == 2048, "\(header.width)×\(header.height)")
    }

    @Test("the box handed to libvips lets the long edge bind")
    func thumbnailBox() {
        let caps = PixelBudget(Profile.ios.image)
        let box = caps.fit(width: 5000, height: 3333)
        #expect(box == (2048, 1365))
        #expect(caps.thumbnailBox(box, width: 5000, height: 3333) == (2048, 1366))
        #expect(caps.thumbnailBox((100, 50), width: 100, height: 50) == (100, 50))
    }

    @Test("thumbnail reports the type hint of the JPEG it wrote, not the input's")
    func thumbnailTypeHint() throws {
        let (report, _) = try ImageThumbnailTests.thumbnail(TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm"),
                                                            scope: TestEnvironment.testMedia, request: ThumbnailRequest(size: 100))
        #expect(report.options?.typeHint == "public.jpeg")
    }
}
