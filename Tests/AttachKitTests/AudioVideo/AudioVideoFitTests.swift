import Foundation
import Testing
@testable import AttachKit

/// Fitting to a byte budget: bitrate from duration and budget, one correction, shortening, and
/// never an over-budget file.
@Suite("Audio/video byte-budget fitting")
struct AudioVideoFitTests {
    @Test("a busy 854×480 clip fitted to a tight budget lands at 85–100 % of it")
    func landsNearBudget() throws {
        // Given a 4 s clip of a few MB
        let folder = TestEnvironment.temporaryFolder()
        let clip = folder.appendingPathComponent("busy.mp4").path
        try AVFiles.busyClip(clip)
        let budget: Int64 = 300_000
        // When fitting it into 300 KB
        let outcome = try AVPrepare.run(clip, scope: folder, profile: .ios, maxBytes: budget)
        let report = outcome.report
        let output = try #require(report.output, "\(report.error.map(String.init(describing:)) ?? "")")
        // Then it lands between 85 % and 100 %, at full length, re-encoded at a reported bitrate
        let bytes = try #require(report.after?.bytes)
        #expect(bytes <= budget)
        #expect(Double(bytes) >= Double(budget) * 0.85, "landed at \(Double(bytes) / Double(budget))")
        #expect((1...2).contains(report.attempts))
        #expect((report.bitRate ?? 0) > 100_000)
        #expect(report.actions.contains(.reencoded))
        let probe = try FFprobeReport.of(output)
        #expect(abs((probe.duration ?? 0) - 4) <= 0.1)
        #expect(probe.video?.codec == "h264")
        #expect(probe.audio?.codec == "aac")
        #expect(try AVFiles.moovBeforeMdat(output))
    }

    @Test("a budget the minimum bitrates cannot carry for the whole clip shortens it")
    func shortens() throws {
        let folder = TestEnvironment.temporaryFolder()
        let clip = folder.appendingPathComponent("busy.mp4").path
        try AVFiles.busyClip(clip)
        let budget: Int64 = 30_000
        let outcome = try AVPrepare.run(clip, scope: folder, profile: .ios, maxBytes: budget)
        let report = outcome.report
        let output = try #require(report.output, "\(report.error.map(String.init(describing:)) ?? "")")
        #expect(try #require(report.after?.bytes) <= budget)
        #expect(report.actions.first == .trimmed)
        #expect(report.notes.contains { $0.hasPrefix("shortened to") })
        let probe = try FFprobeReport.of(output)
        let duration = try #require(probe.duration)
        #expect(duration >= 1 && duration < 4)
        #expect(abs(duration - (report.trimDuration ?? 0)) <= 0.1)
        // Smallest rung of the ladder: 320 px long edge.
        #expect(max(probe.video?.width ?? 0, probe.video?.height ?? 0) == 320)
    }

    @Test("a budget too small for even 1 s fails with cannot-fit and leaves nothing")
    func cannotFit() throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm"), scope: TestEnvironment.testMedia,
                                        profile: .ios, maxBytes: 5_000)
        let error = try #require(outcome.report.error)
        #expect(error.code == "cannot-fit")
        #expect(error.message.contains("minimum bitrates"))
        #expect(outcome.files.isEmpty)
    }

    @Test("sound over its budget becomes AAC at a bitrate that fits")
    func audioFits() throws {
        // Given 20 s of stereo 44.1 kHz PCM (3.5 MB)
        let folder = TestEnvironment.temporaryFolder()
        let wav = folder.appendingPathComponent("music.wav").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "sine=f=220:d=20:sample_rate=44100", "-f", "lavfi", "-i", "anoisesrc=d=20:a=0.05:r=44100",
                            "-filter_complex", "[0:a][1:a]amerge=inputs=2[a]", "-map", "[a]", "-c:a", "pcm_s16le", wav])
        let budget: Int64 = 150_000
        // When fitting into 150 KB under Apple's table (no duration cap)
        let outcome = try AVPrepare.run(wav, scope: folder, profile: .apple, maxBytes: budget)
        let output = try #require(outcome.report.output, "\(outcome.report.error.map(String.init(describing:)) ?? "")")
        #expect(output.hasSuffix(".m4a"))
        let bytes = try #require(outcome.report.after?.bytes)
        #expect(bytes <= budget)
        #expect(Double(bytes) >= Double(budget) * 0.85, "landed at \(Double(bytes) / Double(budget))")
        let probe = try FFprobeReport.of(output)
        #expect(probe.audio?.codec == "aac")
        #expect(abs((probe.duration ?? 0) - 20) <= 0.1)
    }

    @Test("bitrate arithmetic: budget share, ladder, minimums")
    func sizing() throws {
        let job = try Self.job(maxBytes: 5_000_000, duration: 30)
        let source = Self.source(width: 1920, height: 1080, duration: 30)
        let template = EncodeTemplate(container: .mp4, video: source.video, audio: source.audio, window: .whole, maxLongEdge: 1920,
                                      budget: 5_000_000)
        let fitter = BudgetFitter(job: job, source: source, template: template)
        // 5 MB over 30 s: ~1.25 Mb/s, enough for the 1080p minimum (1 Mb/s)
        let sized = try #require(fitter.sizing(duration: 30))
        #expect(sized.binding)
        #expect(sized.width == 1920 && sized.height == 1080)
        #expect((1_000_000...1_200_000).contains(sized.videoBitRate))
        // Over 60 s only ~600 kb/s: one step down the ladder
        let longer = try #require(fitter.sizing(duration: 60))
        #expect(longer.width == 1280 && longer.height == 720)
        // 20 KB cannot carry 30 s at any rung: shorten
        var tiny = fitter
        tiny.template.budget = 20_000
        #expect(tiny.sizing(duration: 30) == nil)
        let shorter = tiny.shortenedDuration(from: 30)
        #expect(shorter > 0.5 && shorter < 2.5, "\(shorter)")
        #expect(BitrateBudget.minimumVideoBitRate(longEdge: 1280, frameRate: 30) == 500_000)
        #expect(BitrateBudget.minimumVideoBitRate(longEdge: 1280, frameRate: 15) == 250_000)
    }

    static func job(maxBytes: Int64, duration: Double) throws -> PrepareJob {
        var info = MediaInfo(path: "/x.mp4", bytes: 60_000_000, kind: .video, container: .mp4)
        info.duration = duration
        return PrepareJob(inputPath: "/x.mp4", info: info, findings: [], profile: .ios,
                          options: PrepareOptions(outputFolder: "/tmp", maxBytes: maxBytes), safety: SafetyLimits(), deadline: Deadline(seconds: nil))
    }

    static func source(width: Int, height: Int, duration: Double) -> ClipSource {
        ClipSource(path: "/x.mp4", demuxer: "mov", container: .mp4, duration: duration, bytes: 60_000_000,
                   video: .init(index: 0, codec: .h264, pixelFormat: "yuv420p",
                                geometry: VideoGeometry(width: width, height: height, sampleAspect: 1, rotation: 0),
                                frameRate: Rational(30, 1), decodable: true, tag: "avc1"),
                   audio: .init(index: 1, codec: .aac, sampleRate: 48_000, channels: 2, bitRate: 128_000, decodable: true),
                   cover: nil, dropped: [])
    }
}
