import Foundation
import Testing
@testable import AttachKit

/// Fast (stream copy from a keyframe) and exact (re-encoded) trims, checked on clips whose colour
/// says the time.
@Suite("Audio/video trims")
struct AudioVideoTrimTests {
    static let colours = ["red", "green", "blue", "red", "green", "blue"]

    @Test("fast: stream copy from the keyframe at or before --start, real start and span reported")
    func fastSnapsToKeyframe() throws {
        // Given six 1 s colours with a keyframe every 2 s (0, 2, 4)
        let folder = TestEnvironment.temporaryFolder()
        let clip = folder.appendingPathComponent("colours.mp4").path
        try AVFiles.colourClip(clip, colours: Self.colours, keyframeInterval: 50)
        // When trimming from 3.5 s for 2 s
        let outcome = try AVPrepare.run(clip, scope: folder, profile: .ios, maxDuration: 2, start: 3.5, trim: .fast)
        // Then the cut snapped back to the keyframe at 2 s, nothing was re-encoded
        let report = outcome.report
        let output = try #require(report.output, "\(report.error.map(String.init(describing:)) ?? "")")
        #expect(report.actions == [.trimmed])
        #expect(report.bitRate == nil)
        let start = try #require(report.trimStart)
        #expect(abs(start - 2.0) < 0.02, "start \(start)")
        let probe = try FFprobeReport.of(output)
        let duration = try #require(probe.duration)
        #expect(duration <= 2.05)
        #expect(abs(duration - (report.trimDuration ?? 0)) <= 0.1)
        #expect(AVFiles.primary(try AVFiles.frameColour(output, at: 0.1)) == "blue")   // input 2.1 s
        #expect(AVFiles.primary(try AVFiles.frameColour(output, at: 1.5)) == "red")    // input 3.5 s
        let v = try #require(probe.video?.start), a = try #require(probe.audio?.start)
        #expect(abs(a - v) <= 0.040, "audio \(a) video \(v)")
        #expect(try AVFiles.moovBeforeMdat(output))
    }

    @Test("fast: a copy cut from 0 that ends a few frames before the window (5 fps, B-frames) is trimmed, with no note blaming the input", arguments: [3.0, 4.0])
    func fastCopyEndingEarlyIsATrim(seconds: Double) throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("video/mp4_h264_160x90_5fps_35s.mp4"), scope: TestEnvironment.testMedia,
                                        profile: .ios, maxDuration: seconds, trim: .fast)
        #expect(outcome.report.actions == [.trimmed], "\(outcome.report.notes)")
        #expect(!outcome.report.notes.contains { $0.hasPrefix("the media ends at") }, "\(outcome.report.notes)")
    }

    @Test("a chained Ogg (two 20 s Vorbis streams one after the other) whose header gives the first stream's 20 s is transcoded to 30 s, trimmed, not refused as over the cap")
    func chainedOggEncodesToTheCap() throws {
        let folder = TestEnvironment.temporaryFolder("ogg-chain")
        defer { try? FileManager.default.removeItem(at: folder) }
        var chain = Data()
        for (index, tone) in ["sine=f=440:d=20", "sine=f=660:d=20"].enumerated() {
            let link = folder.appendingPathComponent("link\(index).ogg").path
            try AVFiles.ffmpeg(["-f", "lavfi", "-i", tone, "-c:a", "libvorbis", "-q:a", "0", "-serial_offset", "\(1000 * (index + 1))", link])
            chain += try Data(contentsOf: URL(fileURLWithPath: link))
        }
        let input = folder.appendingPathComponent("chain.ogg").path
        try chain.write(to: URL(fileURLWithPath: input))
        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)
        let output = try #require(outcome.report.output, "\(outcome.report.error?.message ?? "")")
        #expect(outcome.report.actions.contains(.trimmed), "\(outcome.report.actions)")
        let duration = try #require(try FFprobeReport.of(output).duration)
        #expect(duration <= 30.05 && duration >= 29.5, "\(duration) s")
    }

    @Test("exact: re-encoded to start where asked (±1 frame) and last the budget (±0.1 s)")
    func exactCutsBetweenKeyframes() throws {
        // Given six 1 s colours with a single keyframe
        let folder = TestEnvironment.temporaryFolder()
        let clip = folder.appendingPathComponent("colours.mp4").path
        try AVFiles.colourClip(clip, colours: Self.colours)
        // When cutting 2 s from 1.92 s (two frames before green turns blue)
        let outcome = try AVPrepare.run(clip, scope: folder, profile: .ios, maxDuration: 2, start: 1.92, trim: .exact)
        let report = outcome.report
        let output = try #require(report.output, "\(report.error.map(String.init(describing:)) ?? "")")
        #expect(report.actions.contains(.trimmed))
        #expect(report.actions.contains(.reencoded))
        #expect(abs((report.trimStart ?? -1) - 1.92) < 0.001)
        let probe = try FFprobeReport.of(output, countFrames: true)
        #expect(abs((probe.duration ?? 0) - 2.0) <= 0.1, "duration \(probe.duration ?? 0)")
        let frames = try #require(probe.video?.frames)
        #expect(abs(frames - 50) <= 1, "\(frames) frames")
        // Then the first frames are still green and blue starts two frames in
        #expect(AVFiles.primary(try AVFiles.frameColour(output, at: 0)) == "green")
        #expect(AVFiles.primary(try AVFiles.frameColour(output, at: 0.14)) == "blue")
        #expect(AVFiles.primary(try AVFiles.frameColour(output, at: 1.2)) == "red")
        let audio = try #require(probe.audio)
        #expect(abs((audio.duration ?? 0) - 2.0) <= 0.1)
        #expect(abs((audio.start ?? 1) - (probe.video?.start ?? 0)) <= 0.040)
    }

    @Test("exact: a clip that starts where the picture has ended is cannot-fit (asked wrongly), never corrupt")
    func exactAfterThePictureEnds() throws {
        // Given a movie whose picture lasts 3 s and whose sound lasts 8 s, both valid
        let folder = TestEnvironment.temporaryFolder()
        let clip = folder.appendingPathComponent("shortvid.mp4").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=3", "-f", "lavfi", "-i", "sine=d=8",
                            "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", clip])
        // When exact clips start after the picture's end, and inside its last frame
        for start in [5.0, 2.99] {
            let outcome = try AVPrepare.run(clip, scope: folder, profile: .ios, maxDuration: 2, start: start, trim: .exact)
            // Then the refusal says the clip is asked wrongly, and nothing is written
            #expect(outcome.report.error?.code == "cannot-fit", "start \(start): \(String(describing: outcome.report.error))")
            #expect(outcome.report.error?.message.contains("the picture ends at 3.0 s") == true)
            #expect(outcome.files.isEmpty)
        }
        // And a clip inside the picture prepares
        #expect(try AVPrepare.run(clip, scope: folder, profile: .ios, maxDuration: 1, start: 1, trim: .exact).report.ok)
    }

    @Test("a 40 s WAV over the ios duration cap becomes 30 s of AAC in M4A")
    func wavOverDuration() throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("audio/wav_s16le_8k_mono_40s.wav"), scope: TestEnvironment.testMedia,
                                        profile: .ios)
        let output = try #require(outcome.report.output)
        #expect(output.hasSuffix(".m4a"))
        let probe = try FFprobeReport.of(output)
        #expect(probe.majorBrand == "M4A ")
        #expect(probe.audio?.codec == "aac")
        #expect(abs((probe.duration ?? 0) - 30) <= 0.1)
        #expect(outcome.report.actions == [.trimmed, .transcoded])
    }

    @Test("MP3 is trimmed by stream copy into MP3, from the packet nearest --start")
    func mp3Copy() throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("audio/mp3_stereo_44k_5s.mp3"), scope: TestEnvironment.testMedia,
                                        profile: .ios, maxDuration: 2, start: 1)
        let output = try #require(outcome.report.output)
        #expect(output.hasSuffix(".mp3"))
        #expect(outcome.report.actions == [.trimmed])
        #expect(abs((outcome.report.trimStart ?? 0) - 1) <= 0.03)
        let probe = try FFprobeReport.of(output)
        #expect(probe.audio?.codec == "mp3")
        #expect(abs((probe.duration ?? 0) - 2) <= 0.06, "\(probe.duration ?? 0)")
    }

    @Test("a start at or past the end cannot fit")
    func startPastEnd() throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4"), scope: TestEnvironment.testMedia,
                                        profile: .ios, maxDuration: 1, start: 5)
        #expect(outcome.report.error?.code == "cannot-fit")
        #expect(outcome.files.isEmpty)
    }
}
