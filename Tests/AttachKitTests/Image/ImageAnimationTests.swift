import Foundation
import Testing
@testable import AttachKit

/// Animations stay animated: fitted to a byte budget and a frame cap, with the same total
/// duration (±5 %), checked with our probe and with `vipsheader`.
@Suite("Image animations")
struct ImageAnimationTests {
    /// Checks a prepared animation: a GIF, animated, within `budget`, lasting as long as the input.
    static func verifyAnimated(_ outcome: ImagePrepare.Outcome, input: String, scope: URL, budget: Int64,
                               sourceLocation: SourceLocation = #_sourceLocation) throws -> MediaInfo {
        let report = outcome.report
        let output = try #require(report.output, "not prepared: \(String(describing: report.error))", sourceLocation: sourceLocation)
        let before = try Through.probe(input, scope: scope)
        let after = try Through.probe(output, scope: outcome.folder)
        #expect(after.container == .gif && URL(fileURLWithPath: output).pathExtension == "gif", sourceLocation: sourceLocation)
        #expect(after.bytes <= budget, "\(after.bytes) bytes over \(budget)", sourceLocation: sourceLocation)
        let frames = try #require(after.frames, sourceLocation: sourceLocation)
        #expect(frames > 1, "no longer animated", sourceLocation: sourceLocation)
        let header = try VipsHeader.of(output)
        #expect(header.loader == "gifload" && header.pages == frames, sourceLocation: sourceLocation)
        let duration = try #require(after.duration, sourceLocation: sourceLocation)
        let original = try #require(before.duration, sourceLocation: sourceLocation)
        #expect(abs(duration - original) <= original * 0.05, "duration \(duration) s vs \(original) s", sourceLocation: sourceLocation)
        #expect(outcome.files == [URL(fileURLWithPath: output).lastPathComponent], sourceLocation: sourceLocation)
        return after
    }

    @Test("the 24-frame GIF fits 100 KB, animated, same duration")
    func smallGIFFits() throws {
        let path = TestEnvironment.fixture("images/gif_animated_320x240_24f.gif")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxBytes: 100_000)
        _ = try Self.verifyAnimated(outcome, input: path, scope: TestEnvironment.testMedia, budget: 100_000)
        let actions = outcome.report.actions
        #expect(actions.contains(.downscaled) || actions.contains(.framesDropped) || actions.contains(.colorsReduced), "\(actions)")
        #expect(outcome.report.attempts <= ImageAnimationFitStep.maximumAttempts)
    }

    @Test("a large GIF (1280×1024, 30 frames, 1.9 MB, generated) fits 100 KB, animated, same duration; size goes first")
    func largeGIFFits() throws {
        let folder = TestEnvironment.temporaryFolder("largegif")
        let path = try GeneratedImages.largeAnimatedGIF(in: folder)
        try Self.expectLargeGIFFits(path, scope: folder, width: 1280)
    }

    @Test("the corpus' 1917×1533 34-frame GIF fits 100 KB, animated, same duration; size goes first", .needsCorpus)
    func largeCorpusGIFFits() throws {
        let corpus = TestEnvironment.corpus!
        try Self.expectLargeGIFFits(corpus.appendingPathComponent("images/gif_animated_1917x1533_34f.gif").path, scope: corpus, width: 1917)
    }

    static func expectLargeGIFFits(_ path: String, scope: URL, width: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let outcome = try ImagePrepare.run(path, scope: scope, profile: .ios, maxBytes: 100_000)
        let after = try Self.verifyAnimated(outcome, input: path, scope: scope, budget: 100_000, sourceLocation: sourceLocation)
        // Size goes first: the picture is at most half as wide before any frame is dropped.
        #expect((after.width ?? .max) <= width / 2 + 1, sourceLocation: sourceLocation)
        #expect(outcome.report.actions.contains(.downscaled), sourceLocation: sourceLocation)
    }

    @Test("a frame cap keeps that many frames, evenly, and the duration")
    func frameCap() throws {
        let path = TestEnvironment.fixture("images/gif_animated_320x240_24f.gif")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxFrames: 8)
        let after = try Self.verifyAnimated(outcome, input: path, scope: TestEnvironment.testMedia, budget: 10_000_000)
        #expect(after.frames == 8)
        #expect(outcome.report.actions.contains(.framesDropped))
        // Every kept frame shows for three of the original 100 ms frames.
        let delays = try TestEnvironment.run("vipsheader", ["-f", "delay", outcome.report.output!]).stdout
        #expect(delays.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } == Array(repeating: 300, count: 8), "\(delays)")
        // Nothing else was needed: the frames keep their size.
        #expect(after.width == 320 && after.height == 240)
    }

    @Test("an animated WebP becomes an animated GIF with every frame")
    func webpBecomesGIF() throws {
        let path = TestEnvironment.fixture("images/webp_animated_320x240.webp")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .apple)
        let after = try Self.verifyAnimated(outcome, input: path, scope: TestEnvironment.testMedia, budget: 10_000_000)
        #expect(after.frames == 24 && after.width == 320)
        #expect(outcome.report.actions.contains(.converted))
    }

    @Test("an APNG over budget is decoded frame by frame (FFmpeg) and stays animated as a GIF")
    func apngStaysAnimated() throws {
        let path = TestEnvironment.fixture("images/png_apng_animated_160x120.png")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxBytes: 20_000)
        let after = try Self.verifyAnimated(outcome, input: path, scope: TestEnvironment.testMedia, budget: 20_000)
        #expect((after.frames ?? 0) >= 6)
    }

    /// The TestMedia APNG with its 5th frame's compressed data replaced (CRCs fixed, so the
    /// structure holds): libvips decodes the first frame only, so the frames after it are decoded
    /// through FFmpeg.
    @Test("an APNG whose later frame does not decode is corrupt from validate --deep and prepare, not passed through")
    func apngLaterFrameDamaged() throws {
        let folder = TestEnvironment.temporaryFolder("apng-frame")
        let intact = TestEnvironment.fixture("images/png_apng_animated_160x120.png")
        let input = folder.appendingPathComponent("apng.png").path
        var frames = 0
        try PNGChunks.rewrite(intact, to: input, type: "fdAT") { index, count, body in
            frames = count
            return index == 4 ? Array(body[0..<4]) + [0x78, 0x9C] + Array(repeating: 0xFF, count: body.count - 6) : body
        }
        #expect(frames >= 5)
        func deepCodes(_ path: String) throws -> [String] {
            let deep = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", path])
            return try JSONValue.parse(deep.stdout)["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        }

        #expect(try deepCodes(input).contains("corrupt"))
        let prepare = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", folder.appendingPathComponent("out").path, input])
        #expect(TestEnvironment.errorCode(prepare.stdout) == "corrupt", "\(prepare.stdout)")
        // The untouched animation still passes.
        #expect(try !deepCodes(intact).contains("corrupt"))
    }

    @Test("an HEIF image sequence becomes an animated GIF lasting as long", .needsCorpus)
    func heifSequence() throws {
        let corpus = TestEnvironment.corpus!
        let path = corpus.appendingPathComponent("images/heic_sequence_msf1.heic").path
        let outcome = try ImagePrepare.run(path, scope: corpus, profile: .ios, maxFrames: 30)
        let after = try Self.verifyAnimated(outcome, input: path, scope: corpus, budget: 10_000_000)
        #expect(after.frames == 30)
    }
}
