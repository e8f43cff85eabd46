import Foundation
import Testing
@testable import AttachKit

/// The encode watched against the deadline: a projected overrun restarts the clip at a faster
/// preset (one valid stream, the whole clip) or stops it early. The pace's projection is injected,
/// so nothing here depends on how fast the machine is.
@Suite("Paced encode")
struct PacedEncodeTests {
    /// veryfast 1, superfast 4, ultrafast 10 Mpx/s: a 2 s 320×240 clip at 25 fps (3.84 Mpx) is
    /// estimated at about 3.8, 1.0 and 0.4 s.
    static func model() -> SpeedModel {
        let model = SpeedModel(store: nil)
        model.use(SpeedCalibration(key: TranscodeEstimatorTests.key, measuredAt: 0,
                                   encode: [240: [.veryfast: 1, .superfast: 4, .ultrafast: 10]], decode: ["h264": 1000]))
        return model
    }

    struct Setup {
        let encode: PacedEncode
        let plan: ClipPlan
        let output: String
    }

    static func setup(_ name: String, deadline: Double, rule: @escaping @Sendable (Int) -> EncodePace.Rule) throws -> Setup {
        let folder = TestEnvironment.temporaryFolder(name)
        let clip = folder.appendingPathComponent("split.mp4").path
        try AVFiles.splitClip(clip)
        let info = try Through.probe(clip, scope: folder)
        let source = try ClipSource.read(path: clip, info: info)
        let video = try #require(source.video)
        let job = PrepareJob(inputPath: clip, info: info, findings: [], profile: .ios, options: PrepareOptions(outputFolder: folder.path),
                             safety: SafetyLimits(), deadline: Deadline(seconds: deadline))
        let work = TranscodeWork(frames: 50, sourceCodec: "h264", inputWidth: 320, inputHeight: 240, outputWidth: 320, outputHeight: 240)
        var encode = PacedEncode(job: job, source: source, work: work, model: model())
        encode.paceRule = rule
        let plan = ClipPlan(container: .mp4, video: VideoTrackPlan(index: video.index, encode: .init(width: 320, height: 240, bitRate: 400_000, preset: .veryfast),
                                                                   frameRate: video.frameRate),
                            audio: nil, window: ClipWindow(start: 0, duration: 2), trim: .fast)
        return Setup(encode: encode, plan: plan, output: folder.appendingPathComponent("out.mp4").path)
    }

    @Test("a projected overrun restarts at a faster preset and the output is one valid, whole stream")
    func restartsFaster() throws {
        // Given a first encode projected at 20 s of a 10 s deadline, and a restart on pace
        let setup = try Self.setup("paced-restart", deadline: 10) { attempt in
            EncodePace.Rule(warmUp: 0, minimumShare: 0.1, window: 0, project: { _, _, _ in attempt == 0 ? 20 : 0.5 })
        }
        // When it is encoded
        var notes: [String] = []
        let (plan, outcome) = try setup.encode.write(setup.plan, to: setup.output, notes: &notes)
        // Then the clip was restarted at superfast (the fastest whose scaled estimate fits), and said so
        #expect(plan.video?.encode?.preset == .superfast)
        #expect(notes.contains { $0.contains("restarted at x264 superfast") }, "\(notes)")
        #expect(notes.last?.hasPrefix("x264 superfast:") == true, "\(notes)")
        // And the file is one H.264 stream of the whole 2 s that decodes without an error
        let probe = try FFprobeReport.of(setup.output, countFrames: true)
        #expect(probe.streams.count == 1)
        #expect(probe.video?.codec == "h264")
        #expect(abs((probe.duration ?? 0) - 2) < 0.1, "\(String(describing: probe.duration))")
        #expect(probe.video?.frames == 50)
        let decode = try TestEnvironment.run("ffmpeg", ["-v", "error", "-i", setup.output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
        #expect(outcome.video?.packets == 50)
    }

    @Test("when no preset can make it, the encode stops early with deadline-exceeded, well before the deadline")
    func stopsEarly() throws {
        let setup = try Self.setup("paced-stop", deadline: 10) { _ in
            EncodePace.Rule(warmUp: 0, minimumShare: 0.1, window: 0, project: { _, _, _ in 1000 })
        }
        var notes: [String] = []
        #expect {
            _ = try setup.encode.write(setup.plan, to: setup.output, notes: &notes)
        } throws: { error in
            guard let error = error as? PrepareError, case .deadlineExceeded(let step, _) = error else { return false }
            return step.contains("at that pace it needs")
        }
        #expect(setup.encode.job.deadline.elapsed < 10)
        #expect(notes.isEmpty, "\(notes)")
    }
}
