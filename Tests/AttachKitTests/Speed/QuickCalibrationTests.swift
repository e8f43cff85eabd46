import Foundation
import Testing
@testable import AttachKit

/// `--deadline` on a fresh machine (issue 33): with no calibration cached, the first
/// deadline-bearing transcode measures a quick one (the job's height and source codec, about a
/// second), uses it and caches it; a hopeless deadline is refused at once without measuring.
@Suite("Quick calibration", .serialized)
struct QuickCalibrationTests {
    @Test("a quick calibration measures the job's height and codec once, keeps typical factors, reads back as quick, and merges")
    func shape() throws {
        let calibrator = Calibrator.quick(height: 720, codec: "vp9")
        #expect(calibrator.heights == [720] && calibrator.rounds == 1 && calibrator.decodedCodecs == ["vp9"] && !calibrator.measuresJobs)
        // A codec the calibration cannot make a sample of is decoded at H.264's rate.
        #expect(Calibrator.quick(height: 720, codec: "mpeg2video").decodedCodecs == ["h264"])

        var quick = TranscodeEstimatorTests.calibration
        quick.quick = true
        let read = try #require(SpeedCalibration(json: try JSONValue.parse(quick.json.serialized)))
        #expect(read.quick && read == quick)
        #expect(SpeedCalibration(json: TranscodeEstimatorTests.calibration.json)?.quick == false)
        #expect(TranscodeEstimator(calibration: quick, cores: 2).safetyMargin == TranscodeEstimator.quickMargin)
        #expect(TranscodeEstimator(calibration: TranscodeEstimatorTests.calibration, cores: 2).safetyMargin == TranscodeEstimator.margin)

        // A second job at another height and codec adds its figures, keeps the first's.
        var other = quick
        other.encode = [720: TranscodeEstimatorTests.factors(70)]
        other.decode = ["hevc": 90, "vp9": 1]
        let merged = quick.adding(other)
        #expect(merged.encode[720]?[.veryfast] == 70 && merged.encode[1080]?[.veryfast] == 100)
        #expect(merged.decode == ["h264": 500, "vp9": 250, "hevc": 90] && merged.quick)
    }

    @Test("with a quick calibration, ultrafast is tried up to 1.25× over the time left, without the margin, and refused past it")
    func quickTolerance() {
        var quick = TranscodeEstimatorTests.calibration
        quick.quick = true
        let estimator = TranscodeEstimator(calibration: quick, cores: 2)
        let fastest = estimator.seconds(.ultrafast, TranscodeEstimatorTests.work)
        #expect(estimator.choose(TranscodeEstimatorTests.work, remaining: fastest / 1.2) == .preset(.ultrafast, estimate: fastest, withMargin: false))
        #expect(estimator.choose(TranscodeEstimatorTests.work, remaining: fastest / 1.3) == .refuse(fastest: fastest, at: .ultrafast))
        // A full calibration refuses as soon as the estimate is over the time left.
        let full = TranscodeEstimator(calibration: TranscodeEstimatorTests.calibration, cores: 2)
        #expect(full.choose(TranscodeEstimatorTests.work, remaining: fastest / 1.2) == .refuse(fastest: fastest, at: .ultrafast))
    }

    @Test("a deadline too short even for a machine 8× faster than the constants is not worth measuring for: nothing runs, nothing is cached")
    func hopelessIsNotMeasured() throws {
        let folder = TestEnvironment.temporaryFolder("quick-hopeless")
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = SpeedModel(store: CalibrationStore(folder: folder.path))
        let started = ContinuousClock.now
        #expect(model.calibrateQuickly(for: TranscodeEstimatorTests.work, remaining: 0.5) == nil)
        #expect((ContinuousClock.now - started).seconds < 0.5)
        #expect(!FileManager.default.fileExists(atPath: CalibrationStore(folder: folder.path).path))
        #expect(!model.estimator().isCalibrated)
    }

    /// A 10 s 720p VP9 clip with sound, grained like filmed media.
    static func clip(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("clip.webm").path
        let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=10,noise=alls=8:allf=t",
                                                      "-f", "lavfi", "-i", "sine=f=440:d=10", "-c:v", "libvpx-vp9", "-b:v", "4M", "-deadline", "realtime",
                                                      "-cpu-used", "8", "-c:a", "libopus", path])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        return path
    }

    /// `attachkit prepare --json` of `clip` with `deadline` (none: `nil`), the calibration cache
    /// in `cache`: the report and the process's wall seconds.
    static func prepare(_ clip: String, deadline: Double?, cache: String, out: String) throws -> (report: JSONValue, seconds: Double) {
        let started = ContinuousClock.now
        let run = try TestEnvironment.run(TestEnvironment.attachkit, ["prepare", "--json", "--out", out, clip] + (deadline.map { ["--deadline", String($0)] } ?? []),
                                          environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache]) { $1 })
        return (try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), (ContinuousClock.now - started).seconds)
    }

    static func notes(_ report: JSONValue) -> [String] { (report["notes"]?.arrayValue ?? []).compactMap(\.stringValue) }

    /// The mechanism, from an empty cache; how close the estimates come (1.6× the `veryfast` time
    /// keeps `veryfast`, 0.6× is met faster) is measured by the harness (`attachkit-bench --only
    /// deadline`), never in a timed test.
    @Test("from an empty cache: a deadline-bearing transcode measures a quick calibration and says so; a hopeless one is refused at once, measuring nothing",
          .timeLimit(.minutes(5)))
    func freshMachine() throws {
        // Given: a clip, and the time it takes without a deadline (nothing is calibrated then)
        let folder = TestEnvironment.temporaryFolder("quick-fresh")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.clip(in: folder)
        func freshCache(_ name: String) -> String { folder.appendingPathComponent("cache-" + name).path }
        let plain = try Self.prepare(clip, deadline: nil, cache: freshCache("none"), out: folder.appendingPathComponent("plain").path)
        try #require(plain.report["ok"]?.boolValue == true, "\(plain.report.serialized)")
        #expect(!FileManager.default.fileExists(atPath: freshCache("none")), "a job without a deadline calibrates nothing")

        // When / Then: with a generous deadline, a quick calibration is measured, used and said
        let generous = try Self.prepare(clip, deadline: 4 * plain.seconds + 5, cache: freshCache("generous"), out: folder.appendingPathComponent("generous").path)
        let notes = Self.notes(generous.report)
        #expect(generous.report["ok"]?.boolValue == true, "\(generous.report.serialized)")
        #expect(notes.contains { $0.contains("measured a quick one") }, "\(notes)")
        #expect(notes.contains { $0.hasPrefix("deadline: x264 veryfast") && $0.contains("quick calibration") }, "\(notes)")
        // Cached unless a neighbour's burst made its figures contradict each other; then as quick.
        let cache = freshCache("generous") + "/attachkit/speed-calibration.json"
        if let cached = try? String(contentsOfFile: cache, encoding: .utf8) {
            #expect(SpeedCalibration(json: try JSONValue.parse(cached))?.quick == true)
        }

        // 0.3 s, under an eighth of what the fallback constants give ultrafast (10 s of 720p: 3.7 s
        // on two cores): refused up front, nothing measured or cached
        let hopeless = try Self.prepare(clip, deadline: 0.3, cache: freshCache("hopeless"), out: folder.appendingPathComponent("hopeless").path)
        #expect(hopeless.report["error"]?["code"]?.stringValue == "deadline-exceeded", "\(hopeless.report.serialized)")
        // Within 1.5 s of the job's start (the process's start-up, a debug build's, is not the job's)
        #expect(hopeless.report["elapsedMs"]?.doubleValue ?? .infinity < 1_500, "\(hopeless.report.serialized)")
        #expect(!Self.notes(hopeless.report).contains { $0.contains("quick") })
        #expect(!FileManager.default.fileExists(atPath: freshCache("hopeless")))
    }

    @Test("a quick calibration measured here reads back from its JSON as quick, with typical factors at the measured height")
    func measuredHere() throws {
        let measured = try Calibrator.quick(height: 360, codec: "h264").run()
        #expect(measured.quick && measured.encode.keys.sorted() == [360] && measured.decode.keys.sorted() == ["h264"])
        #expect(measured.pipeline[360] == SpeedCalibration.typicalPipeline)
        #expect(SpeedCalibration(json: measured.json) == measured, "\(measured.json.serialized)")
        print("quick calibration at 360p: \(measured.json.serialized); inconsistencies: \(measured.inconsistencies)")
    }
}
