import Testing
@testable import AttachKit

/// The pace projection (issue 16): the start of an encode (opening the codecs, filling x264's
/// lookahead) is slower than the rest; extrapolating it stopped a 720p ultrafast encode that
/// really took 2.1 s under a 3 s deadline ("at that pace it needs 3.3 s").
@Suite("Encode pace")
struct EncodePaceTests {
    @Test("the projection is the time spent plus the rest at the pace since the mark, not the start's pace")
    func marginalPace() {
        let rule = EncodePace.Rule()
        // 1 s to read the first 10 % (the start), then 2 s for the next 40 %: the rest (50 %) at 5 s per whole.
        let projected = rule.project(3, 0.5, EncodePace.Mark(spent: 1, share: 0.1))
        #expect(abs(projected - 5.5) < 1e-9)
        // Proportional extrapolation would have said 6; a steady encode projects the same either way.
        #expect(abs(rule.project(4, 0.5, EncodePace.Mark(spent: 0.8, share: 0.1)) - 8) < 1e-9)
        #expect(rule.warmUp == 1 && rule.minimumShare == 0.05 && rule.window == 0.5)
    }

    @Test("no projection before the mark and the window after it")
    func waitsForTheWindow() throws {
        let pace = EncodePace(deadline: Deadline(seconds: 0.001), span: 10, startedAt: 0,
                              rule: EncodePace.Rule(warmUp: 0, minimumShare: 0.1, window: 3600))
        // The deadline is long gone, but the first observation only sets the mark and the window is an hour.
        try pace.observe(media: 2)
        try pace.observe(media: 5)
        #expect(pace.projected == nil)
    }

    @Test("a stop during the encode names what was encoded and its estimate")
    func stopNamesTheEncode() {
        let pace = EncodePace(deadline: Deadline(seconds: 0.001), span: 10, startedAt: 0,
                              rule: EncodePace.Rule(warmUp: 0, minimumShare: 0.01, window: 0, project: { _, _, _ in 100 }), encoding: "x264 superfast, estimated 4.2 s")
        do {
            try pace.observe(media: 0.5)
            try pace.observe(media: 1)
            Issue.record("no stop")
        } catch {
            #expect(error.code == .deadlineExceeded)
            #expect(error.message.contains("transcoding at x264 superfast, estimated 4.2 s (stopped after"), "\(error.message)")
        }
    }
}
