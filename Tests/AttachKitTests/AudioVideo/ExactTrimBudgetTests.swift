import Foundation
import Testing
@testable import AttachKit

/// An exact trim never runs over its duration budget (outside tester, round 53): a frame that
/// would end past the window is left out (kept by its middle, a 25 fps clip of 0.101 s came out
/// 0.12 s, and a 5 fps clip of 0.31 s came out 0.4 s and was refused); and a Matroska picture,
/// which has no stream duration, that ends before an exact start is cannot-fit, not corrupt.
@Suite("Trims within their budget")
struct ExactTrimBudgetTests {
    @Test("25, 29.97 and 5 fps: budgets just over and under whole frames give clips within the budget, by ffprobe too",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func withinBudget() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (rate, budgets) in [("25", [0.101, 0.11999, 0.12]), ("30000/1001", [0.10009, 0.1335]), ("5", [0.31, 0.51])] {
            let clip = folder.appendingPathComponent("r\(rate.replacingOccurrences(of: "/", with: "_")).mp4").path
            try AVFiles.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=128x96:r=\(rate):d=3", "-c:v", "libx264", "-preset", "ultrafast", clip])
            for budget in budgets {
                let outcome = try AVPrepare.run(clip, scope: folder, profile: .ios, maxDuration: budget, start: 0.5, trim: .exact)
                let output = try #require(outcome.report.output, "\(rate) fps, \(budget) s: \(String(describing: outcome.report.error))")
                let probe = try FFprobeReport.of(output)
                let duration = try #require(probe.streams.first?.duration)
                #expect(duration <= budget + 0.000_001 && duration > budget - 0.201, "\(rate) fps, \(budget) s: \(duration) s")
            }
        }
    }

    @Test("Matroska: an exact start inside the picture's last instants is cannot-fit, never corrupt",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func matroskaEnd() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("v.mkv").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=128x96:r=25:d=4", "-c:v", "libx264", "-preset", "ultrafast", clip])
        let outcome = try AVPrepare.run(clip, scope: folder, profile: .ios, start: 3.9999, trim: .exact)
        #expect(outcome.report.error?.code == "cannot-fit", "\(String(describing: outcome.report.error))")
        #expect(outcome.files.isEmpty)
    }

    @Test("fast: a budget that, kept from the keyframe at or before the start, ends before the start is cannot-fit and says to trim exactly (it handed back a clip of none of the asked window)",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func fastWindowBeforeStart() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("g12.mp4").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=128x96:r=25:d=3", "-c:v", "libx264", "-preset", "ultrafast", "-g", "12", "-keyint_min", "12", clip])
        let outcome = try AVPrepare.run(clip, scope: folder, profile: .ios, maxDuration: 0.1, start: 0.9, trim: .fast)
        #expect(outcome.report.error?.code == "cannot-fit" && outcome.report.error?.message.contains("--trim exact") == true,
                "\(String(describing: outcome.report.error))")
        #expect(outcome.files.isEmpty)
        #expect(try AVPrepare.run(clip, scope: folder, profile: .ios, maxDuration: 0.1, start: 0.9, trim: .exact).report.ok)
    }

    @Test("round 54: a 5 fps exact clip shorter than a frame is cannot-fit (not corrupt, not over budget); with sound, neither stream nor the container runs past a budget that is not whole milliseconds; a fast copy that ends before the start is cannot-fit",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func round54() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let slow = folder.appendingPathComponent("fps5.mp4").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=128x96:r=5:d=4", "-c:v", "libx264", "-preset", "ultrafast", slow])
        for start in [1.0, 0.5, 0.45] {
            let outcome = try AVPrepare.run(slow, scope: folder, profile: .ios, maxDuration: 0.1, start: start, trim: .exact)
            #expect(outcome.report.error?.code == "cannot-fit", "start \(start): \(String(describing: outcome.report.error))")
            #expect(outcome.files.isEmpty)
        }
        let sound = folder.appendingPathComponent("snd25.mp4").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=128x96:r=25:d=4", "-f", "lavfi", "-i", "sine=d=4:sample_rate=48000",
                            "-c:v", "libx264", "-preset", "ultrafast", "-g", "12", "-c:a", "aac", "-shortest", sound])
        for budget in [0.11999, 0.19999] {
            let outcome = try AVPrepare.run(sound, scope: folder, profile: .ios, maxDuration: budget, start: 0.5, trim: .exact)
            let output = try #require(outcome.report.output, "\(budget): \(String(describing: outcome.report.error))")
            let probe = try FFprobeReport.of(output)
            for stream in probe.streams { #expect((stream.duration ?? 0) <= budget, "\(budget): \(stream.type) \(stream.duration ?? -1)") }
            #expect((probe.duration ?? 1) <= budget, "\(budget): container \(probe.duration ?? -1)")
        }
        let silent = folder.appendingPathComponent("g12b.mp4").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=128x96:r=25:d=3", "-c:v", "libx264", "-preset", "ultrafast", "-g", "12", "-keyint_min", "12", "-bf", "3", silent])
        let gap = try AVPrepare.run(silent, scope: folder, profile: .ios, maxDuration: 0.1, start: 0.57, trim: .fast)
        #expect(gap.report.error?.code == "cannot-fit" && gap.report.error?.message.contains("--trim exact") == true, "\(String(describing: gap.report.error))")
    }

    @Test("a picture that starts after a short clip ends (the corpus' fragmented MP4: sound from 0, picture from 0.2 s): cannot-fit in both trim modes, not corrupt (round 55)",
          .enabled(if: TestEnvironment.corpus != nil, TestEnvironment.corpusAbsent))
    func pictureStartsLate() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corpus = try #require(TestEnvironment.corpus)
        let clip = corpus.appendingPathComponent("video/mp4_fragmented_h264_aac.mp4").path
        try #require(FileManager.default.fileExists(atPath: clip))
        for (trim, budget) in [(TrimMode.fast, 0.1), (.exact, 0.19), (.fast, 0.2)] {
            let outcome = try AVPrepare.run(clip, scope: corpus, profile: .ios, maxDuration: budget, trim: trim)
            #expect(outcome.report.error?.code == "cannot-fit" && outcome.report.error?.message.contains("the picture starts at") == true,
                    "\(trim) \(budget): \(String(describing: outcome.report.error))")
            #expect(outcome.files.isEmpty)
        }
    }

    @Test("MP3 copied to MP3: the encoder delay kept before the base counts against the budget (30 s of a LAME file declared 30.015 s; 0.1 s at 24 kHz declared 0.144 s: round 55)",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func mp3WithinBudget() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, rate, seconds, budgets) in [("l44.mp3", 44_100, 40, [30.0, 0.5]), ("m24.mp3", 24_000, 3, [0.1, 0.5])] {
            let path = folder.appendingPathComponent(name).path
            try AVFiles.ffmpeg(["-f", "lavfi", "-i", "sine=d=\(seconds):sample_rate=\(rate)", "-c:a", "libmp3lame", "-b:a", "64k", path])
            for budget in budgets {
                let outcome = try AVPrepare.run(path, scope: folder, profile: .ios, maxDuration: budget, trim: .fast)
                let output = try #require(outcome.report.output, "\(name) \(budget): \(String(describing: outcome.report.error))")
                let declared = try #require(try FFprobeReport.of(output).duration)
                #expect(declared <= budget && declared > budget - 0.1, "\(name) \(budget): \(declared) s")
            }
        }
    }

    @Test("MP3 cut from mid-file to the last frame: the copy's LAME tag keeps a delay of 0, not -529 (it lost its first 3567 samples, and at 8 kHz was called corrupt: round 56); a copy from 0 keeps the source's delay",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func mp3EndCutDelay() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for rate in [8_000, 44_100] {
            let path = folder.appendingPathComponent("m\(rate).mp3").path
            try AVFiles.ffmpeg(["-f", "lavfi", "-i", "sine=d=3:sample_rate=\(rate)", "-c:a", "libmp3lame", "-b:a", "32k", path])
            let cut = try AVPrepare.run(path, scope: folder, profile: .ios, maxDuration: 2, start: 2, trim: .fast)
            let output = try #require(cut.report.output, "\(rate): \(String(describing: cut.report.error))")
            let start = try #require(try FFprobeReport.of(output).streams.first?.start)
            #expect(abs(start - 529 / Double(rate)) < 0.002, "\(rate): the copy starts at \(start) s")
            let whole = try AVPrepare.run(path, scope: folder, profile: .ios, maxDuration: 2.5, trim: .fast)
            let wholeOutput = try #require(whole.report.output, "\(rate): \(String(describing: whole.report.error))")
            let first = try #require(try FFprobeReport.of(wholeOutput).streams.first?.start)
            let source = try #require(try FFprobeReport.of(path).streams.first?.start)
            #expect(abs(first - source) < 0.002, "\(rate): \(first) against the source's \(source)")
        }
    }
}
