import Testing
@testable import AttachKit

/// A calibration measured while something else took the cores: its figures stay inside the
/// plausible ranges but contradict each other, and `budget` does not cache it; a figure the cache
/// reader would not believe, or a factor at its clamp, is flagged too.
@Suite("Speed: calibrations whose figures disagree")
struct CalibrationConsistencyTests {
    @Test("a consistent calibration has nothing to say")
    func consistent() {
        #expect(TranscodeEstimatorTests.calibration.inconsistencies.isEmpty)
        var close = TranscodeEstimatorTests.calibration
        // Within 10 %: superfast at 95 % of veryfast is noise, not a contradiction.
        close.encode[1080]?[.superfast] = 95
        close.encode[1080]?[.ultrafast] = 95
        #expect(close.inconsistencies.isEmpty)
    }

    @Test("a faster preset measured slower, a rate or a factor far apart between heights: each named")
    func disagreeing() {
        var busy = TranscodeEstimatorTests.calibration
        busy.encode[1080]?[.ultrafast] = 1.6
        #expect(busy.inconsistencies == ["at 1080p x264 ultrafast measured 1.6 Mpx/s, slower than superfast's 200",
                                         "x264 ultrafast measured 1.6 Mpx/s at 1080p but 200 at 480p"])
        var heights = TranscodeEstimatorTests.calibration
        heights.encode[480] = [.veryfast: 2, .superfast: 100, .ultrafast: 200]
        #expect(heights.inconsistencies == ["x264 veryfast measured 2.0 Mpx/s at 480p but 100 at 1080p"])
        var factors = TranscodeEstimatorTests.calibration
        factors.pipeline = [720: [.veryfast: 2.24, .superfast: 1, .ultrafast: 1], 1080: [.veryfast: 0.34, .superfast: 1, .ultrafast: 1]]
        #expect(factors.inconsistencies == ["x264 veryfast's whole-job factor is 0.34 at 1080p but 2.24 at 720p"])
    }

    @Test("a calibration with a figure the cache reader would not believe, or a factor at its clamp, is flagged")
    func implausibleFlagged() {
        var absurd = TranscodeEstimatorTests.calibration
        absurd.overheadFrames[.ultrafast] = 1348.6
        #expect(absurd.inconsistencies == ["a figure is outside the plausible ranges (see json)"])
        var clamped = TranscodeEstimatorTests.calibration
        clamped.pipeline = [1080: [.veryfast: 5, .superfast: 1, .ultrafast: 1]]
        #expect(clamped.inconsistencies == ["x264 veryfast's whole-job factor at 1080p is at its bound (5.0)"])
    }
}
