import Foundation
import Testing
@testable import AttachKit

/// The deadline model against hostile calibration caches: a FIFO in the cache's place is no
/// calibration, at once; absurd but finite rates are not trusted; batch workers get the
/// calibration their sandbox hides; a failed budget row carries no timings.
@Suite("Speed: hostile calibration caches")
struct CalibrationAttackTests {
    @Test("a FIFO in the cache file's place reads as no calibration, at once")
    func fifo() throws {
        let folder = TestEnvironment.temporaryFolder("calibration-fifo").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = CalibrationStore(folder: folder)
        #expect(mkfifo(store.path, 0o644) == 0)
        let started = Date()
        #expect(store.load(for: TranscodeEstimatorTests.calibration.key, now: 0) == .missing)
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test("rates outside 1…100,000 Mpx/s are not a calibration", arguments: [1e-300, 0.5, 1e300, 200_000])
    func absurdRates(rate: Double) {
        var json = TranscodeEstimatorTests.calibration.json
        guard case .object(var pairs) = json, let index = pairs.firstIndex(where: { $0.0 == "encode" }) else {
            Issue.record("calibration JSON shape"); return
        }
        pairs[index].1 = .object([("1080", .object(EncoderSpeed.allCases.map { ($0.rawValue, JSONValue.number(rate)) }))])
        json = .object(pairs)
        #expect(SpeedCalibration(json: json) == nil)
        #expect(SpeedCalibration(json: TranscodeEstimatorTests.calibration.json) != nil)
    }

    @Test("a calibration prefetched before the cache is hidden (a worker's sandbox) is used at first use")
    func prefetch() throws {
        let folder = TestEnvironment.temporaryFolder("calibration-prefetch").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = CalibrationStore(folder: folder)
        try FFmpegLibrary.require()  // the key names the FFmpeg build loaded: the same before and after
        let mine = SpeedCalibration(key: MachineKey.current(), measuredAt: Calibrator.now, encode: [1080: [.veryfast: 100, .superfast: 200, .ultrafast: 400]],
                                    overheadFrames: [.veryfast: 10, .superfast: 5, .ultrafast: 2], pipeline: [1080: TranscodeEstimatorTests.factors(1)], decode: ["h264": 500])
        try store.save(mine)
        let model = SpeedModel(store: store)
        model.prefetch()
        try FileManager.default.removeItem(atPath: store.path)
        #expect(model.estimator().calibration == mine)
    }

    @Test("a failed budget row has no timings")
    func failedRow() {
        let row = BudgetRow(operation: "transcode", input: "broken.mp4", amount: 10, unit: "s", seconds: 0.002, estimated: 1, error: "corrupt: cut")
        let json = row.json(deadline: 30)
        for key in ["seconds", "estimated", "perUnit", "longest", "estimateRatio"] { #expect(json[key] == nil, "\(key)") }
        #expect(json["error"]?.stringValue == "corrupt: cut")
    }
}
