import Foundation
import Testing
@testable import AttachKit

/// The calibration cache: keyed by machine, stale after 30 days, written atomically, never the
/// real user cache in tests (the folder is a parameter).
@Suite("Calibration cache")
struct CalibrationStoreTests {
    static let calibration = TranscodeEstimatorTests.calibration
    /// When the test calibration was measured.
    static let measured = calibration.measuredAt

    @Test("a saved calibration loads back for the same key while fresh")
    func roundTrip() throws {
        let folder = TestEnvironment.temporaryFolder().appendingPathComponent("cache/attachkit").path
        let store = CalibrationStore(folder: folder)
        #expect(store.load(for: Self.calibration.key, now: Self.measured) == .missing)
        try store.save(Self.calibration)
        #expect(store.load(for: Self.calibration.key, now: Self.measured + 86_400) == .fresh(Self.calibration))
        // Only the cache file is left: the temporary was renamed over it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["speed-calibration.json"])
    }

    @Test("another machine or build, or an old calibration, is stale")
    func staleness() throws {
        let store = CalibrationStore(folder: TestEnvironment.temporaryFolder().path)
        try store.save(Self.calibration)
        var other = Self.calibration.key
        other.x264 = "165"
        guard case .stale = store.load(for: other, now: Self.measured) else { Issue.record("another x264 build"); return }
        other = Self.calibration.key
        other.cores = 4
        guard case .stale = store.load(for: other, now: Self.measured) else { Issue.record("another core count"); return }
        guard case .stale(let reason) = store.load(for: Self.calibration.key, now: Self.measured + CalibrationStore.maxAge + 1) else {
            Issue.record("an old calibration"); return
        }
        #expect(reason.contains("days ago"))
    }

    @Test("a rewrite replaces the whole file; a damaged file is stale, not a crash")
    func rewriteAndDamage() throws {
        let store = CalibrationStore(folder: TestEnvironment.temporaryFolder().path)
        try store.save(Self.calibration)
        var newer = Self.calibration
        newer.encode[1080]?[.veryfast] = 123
        try store.save(newer)
        #expect(store.load(for: newer.key, now: Self.measured) == .fresh(newer))
        try Data("{\"version\": 1, \"key\": ".utf8).write(to: URL(fileURLWithPath: store.path))
        guard case .stale = store.load(for: newer.key, now: Self.measured) else { Issue.record("a truncated file"); return }
    }

    @Test("a cache measured at an impossible time is ignored, never trapped on", arguments: [1e308, -1e308, 1e19, -1, 0])
    func impossibleMeasuredAt(measuredAt: Double) throws {
        guard case .object(var pairs) = Self.calibration.json,
              let index = pairs.firstIndex(where: { $0.0 == "measuredAt" }) else {
            Issue.record("calibration JSON shape"); return
        }
        pairs[index].1 = .number(measuredAt)
        #expect(SpeedCalibration(json: .object(pairs)) == nil)
        let folder = TestEnvironment.temporaryFolder("calibration-time").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = CalibrationStore(folder: folder)
        #expect(store.load(text: JSONValue.object(pairs).serialized, for: Self.calibration.key, now: Calibrator.now) != .fresh(Self.calibration))
    }

    @Test("the default folder follows XDG_CACHE_HOME, then HOME")
    func location() {
        #expect(CalibrationStore.standard(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"])?.folder == "/x/cache/attachkit")
        #expect(CalibrationStore.standard(environment: ["HOME": "/home/u"])?.folder == "/home/u/.cache/attachkit")
        #expect(CalibrationStore.standard(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/u"])?.folder == "/home/u/.cache/attachkit")
        #expect(CalibrationStore.standard(environment: [:]) == nil)
    }

    @Test("a small calibration measures every preset and H.264 decoding")
    func smallCalibration() throws {
        var calibrator = Calibrator()
        calibrator.heights = [90, 180]
        calibrator.frames = 6
        calibrator.decodeFrames = 6
        calibrator.pipelineFrames = 6
        var steps: [String] = []
        let measured = try calibrator.run { step, _ in steps.append(step) }
        #expect(Set(measured.encode.keys) == [90, 180])
        for rates in measured.encode.values {
            #expect(Set(rates.keys) == Set(EncoderSpeed.allCases))
            #expect(rates.values.allSatisfy { $0 > 0 && $0.isFinite })
        }
        #expect(Set(measured.overheadFrames.keys) == Set(EncoderSpeed.allCases))
        #expect(measured.overheadFrames.values.allSatisfy { SpeedCalibration.plausibleOverhead.contains($0) })
        #expect(Set(measured.pipeline.keys) == [90, 180], "a factor at the two largest heights")
        #expect(measured.pipeline.values.allSatisfy { factors in
            factors.count == EncoderSpeed.allCases.count && factors.values.allSatisfy { SpeedCalibration.plausiblePipeline.contains($0) }
        }, "a factor for every preset at each")
        #expect(SpeedCalibration.plausibleJobSeconds.contains(measured.jobSeconds))
        #expect(steps.contains("whole transcodes"))
        #expect(SpeedCalibration(json: measured.json) == measured)
        #expect((measured.decode["h264"] ?? 0) > 0)
        #expect(measured.key == MachineKey.current())
        #expect(steps.last == "done")
    }
}
