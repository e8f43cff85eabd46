import Testing
@testable import AttachKit

/// The deadline model's choices given a calibration: pure, no encoding.
@Suite("Transcode estimator")
struct TranscodeEstimatorTests {
    static let key = MachineKey(cpuModel: "Test CPU", cores: 2, libavcodec: "59.37.100", x264: "164")

    /// veryfast 100, superfast 200, ultrafast 400 Mpx/s at 1080p, half that at 480p; no start or
    /// flush overhead; decoding H.264 500, VP9 250 Mpx/s.
    static let calibration = SpeedCalibration(key: key, measuredAt: 1_796_000_000,
                                              encode: [1080: [.veryfast: 100, .superfast: 200, .ultrafast: 400],
                                                       480: [.veryfast: 50, .superfast: 100, .ultrafast: 200]],
                                              overheadFrames: [.veryfast: 0, .superfast: 0, .ultrafast: 0],
                                              pipeline: [1080: factors(1)], decode: ["h264": 500, "vp9": 250])

    /// The same pipeline factor for every preset.
    static func factors(_ value: Double) -> [EncoderSpeed: Double] { [.veryfast: value, .superfast: value, .ultrafast: value] }

    /// 20 s of 1080p30 VP9 to 1080p: 600 frames of 2.0736 Mpx.
    static let work = TranscodeWork(frames: 600, sourceCodec: "vp9", inputWidth: 1920, inputHeight: 1080, outputWidth: 1920, outputHeight: 1080)

    @Test("seconds = frames × (input pixels ÷ decode rate + output pixels ÷ encode rate)")
    func seconds() {
        let estimator = TranscodeEstimator(calibration: Self.calibration, cores: 2)
        let megapixels = 600 * 2.0736
        #expect(abs(estimator.seconds(.veryfast, Self.work) - (megapixels / 250 + megapixels / 100)) < 1e-9)
        #expect(abs(estimator.seconds(.ultrafast, Self.work) - (megapixels / 250 + megapixels / 400)) < 1e-9)
        // A codec that was not measured decodes at the slowest measured rate.
        var prores = Self.work
        prores.sourceCodec = "prores"
        #expect(estimator.seconds(.veryfast, prores) == estimator.seconds(.veryfast, Self.work))
        // Half the cores (a batch of two jobs) takes twice as long; a learned correction scales it.
        var shared = Self.work
        shared.threads = 1
        #expect(abs(estimator.seconds(.veryfast, shared) - 2 * estimator.seconds(.veryfast, Self.work)) < 1e-9)
        let corrected = TranscodeEstimator(calibration: Self.calibration, corrections: [.veryfast: 1.5], cores: 2)
        #expect(abs(corrected.seconds(.veryfast, Self.work) - 1.5 * estimator.seconds(.veryfast, Self.work)) < 1e-9)
    }

    @Test("keeps veryfast when it fits with the margin, takes a faster preset when not, refuses when even ultrafast cannot")
    func choices() {
        let estimator = TranscodeEstimator(calibration: Self.calibration, cores: 2)
        let veryfast = estimator.seconds(.veryfast, Self.work)
        let superfast = estimator.seconds(.superfast, Self.work)
        let ultrafast = estimator.seconds(.ultrafast, Self.work)
        #expect(estimator.choose(Self.work, remaining: nil) == .preset(.veryfast, estimate: veryfast, withMargin: true))
        #expect(estimator.choose(Self.work, remaining: veryfast * 1.16) == .preset(.veryfast, estimate: veryfast, withMargin: true))
        // Fits bare but not with the 1.15 margin: the next preset.
        #expect(estimator.choose(Self.work, remaining: veryfast * 1.1) == .preset(.superfast, estimate: superfast, withMargin: true))
        #expect(estimator.choose(Self.work, remaining: superfast) == .preset(.ultrafast, estimate: ultrafast, withMargin: true))
        #expect(estimator.choose(Self.work, remaining: ultrafast * 1.05) == .preset(.ultrafast, estimate: ultrafast, withMargin: false))
        #expect(estimator.choose(Self.work, remaining: ultrafast * 0.9) == .refuse(fastest: ultrafast, at: .ultrafast))
    }

    @Test("a calibration with ultrafast measured slower than superfast: the fastest estimate is used, and named when refused")
    func fastestEstimateWhateverThePreset() {
        var calibration = Self.calibration
        for height in calibration.encode.keys {
            let superfast = calibration.encode[height]?[.superfast] ?? 1
            calibration.encode[height]?[.ultrafast] = superfast / 2
        }
        let estimator = TranscodeEstimator(calibration: calibration, cores: 2)
        let superfast = estimator.seconds(.superfast, Self.work)
        #expect(estimator.seconds(.ultrafast, Self.work) > superfast)
        #expect(estimator.choose(Self.work, remaining: superfast * 1.05) == .preset(.superfast, estimate: superfast, withMargin: false))
        #expect(estimator.choose(Self.work, remaining: superfast * 0.9) == .refuse(fastest: superfast, at: .superfast))
    }

    @Test("a running correction follows real ÷ estimated times within its bounds")
    func learning() {
        let model = SpeedModel(store: nil)
        model.use(Self.calibration)
        #expect(model.corrections.isEmpty)
        model.record(.veryfast, estimated: 10, real: 20)
        #expect(abs((model.corrections[.veryfast] ?? 0) - 1.3) < 1e-9)
        for _ in 0..<50 { model.record(.veryfast, estimated: 1, real: 100) }
        #expect(model.corrections[.veryfast] == SpeedModel.correctionRange.upperBound)
        #expect(model.corrections[.ultrafast] == nil)
        model.use(Self.calibration)
        #expect(model.corrections.isEmpty)
    }

    @Test("a calibration reads back from its JSON; anything incomplete is refused")
    func json() throws {
        let back = try #require(SpeedCalibration(json: Self.calibration.json))
        #expect(back == Self.calibration)
        var missing = Self.calibration
        missing.encode[480]?[.ultrafast] = nil
        #expect(SpeedCalibration(json: missing.json) == nil)
        var noOverhead = Self.calibration
        noOverhead.overheadFrames[.veryfast] = nil
        #expect(SpeedCalibration(json: noOverhead.json) == nil)
        var absurdPipeline = Self.calibration
        absurdPipeline.pipeline = [1080: Self.factors(1e9)]
        #expect(SpeedCalibration(json: absurdPipeline.json) == nil)
        absurdPipeline.pipeline = [99_999: Self.factors(1)]
        #expect(SpeedCalibration(json: absurdPipeline.json) == nil)
        absurdPipeline.pipeline = [1080: [.veryfast: 1, .superfast: 1]]
        #expect(SpeedCalibration(json: absurdPipeline.json) == nil, "a preset's factor missing")
        absurdPipeline.pipeline = [:]
        #expect(SpeedCalibration(json: absurdPipeline.json) == nil, "no factor at all")
        // A version 3 file (one pipeline factor per height, from clean samples) is read as missing.
        guard case .object(var pairs) = Self.calibration.json, let version = pairs.firstIndex(where: { $0.0 == "version" }),
              let pipeline = pairs.firstIndex(where: { $0.0 == "pipeline" }) else { Issue.record("calibration JSON shape"); return }
        pairs[version].1 = .number(3)
        pairs[pipeline].1 = .object([("1080", .number(1.1))])
        #expect(SpeedCalibration(json: .object(pairs)) == nil)
        pairs[version].1 = .number(4)
        #expect(SpeedCalibration(json: .object(pairs)) == nil, "a version 4 file with version 3's factors")
        var absurdJob = Self.calibration
        absurdJob.jobSeconds = 1e9
        #expect(SpeedCalibration(json: absurdJob.json) == nil)
        #expect(SpeedCalibration(json: .object([("version", .number(2))])) == nil)
        // A version 1 file (one rate per preset, no overhead) is read as missing: `budget` measures again.
        let old = #"{"version":1,"key":{"cpuModel":"Test CPU","cores":2,"libavcodec":"59.37.100","x264":"164"},"measuredAt":0,"#
            + #""encode":{"veryfast":35,"superfast":78,"ultrafast":147},"decode":{"h264":159}}"#
        #expect(SpeedCalibration(json: try JSONValue.parse(old)) == nil)
    }

    @Test("an empty pipeline or decode object is not a calibration")
    func emptyObjectsRefused() {
        for key in ["pipeline", "decode"] {
            guard case .object(var pairs) = Self.calibration.json,
                  let index = pairs.firstIndex(where: { $0.0 == key }) else { Issue.record("calibration JSON shape"); return }
            pairs[index].1 = .object([])
            #expect(SpeedCalibration(json: .object(pairs)) == nil, "\(key)")
        }
        var measured = Self.calibration
        measured.pipeline = [1080: Self.factors(0.9)]
        #expect(SpeedCalibration(json: measured.json) == measured)
    }

    @Test("the encode rate is interpolated between measured heights and held outside them; overhead frames are encoded frames")
    func heightsAndOverhead() {
        let c = Self.calibration
        #expect(c.encodeRate(.veryfast, height: 1080) == 100)
        #expect(c.encodeRate(.veryfast, height: 480) == 50)
        #expect(c.encodeRate(.veryfast, height: 780) == 75)
        #expect(c.encodeRate(.veryfast, height: 2160) == 100)
        #expect(c.encodeRate(.veryfast, height: 90) == 50)
        // 10 s of 480p (854×480) VP9 at 30 fps to 480p, then with 40 frames of overhead.
        let work = TranscodeWork(frames: 300, sourceCodec: "vp9", inputWidth: 854, inputHeight: 480, outputWidth: 854, outputHeight: 480)
        let megapixels = 854.0 * 480 / 1e6
        #expect(abs(TranscodeEstimator(calibration: c, cores: 2).seconds(.veryfast, work) - (300 * megapixels / 250 + 300 * megapixels / 50)) < 1e-9)
        var withOverhead = c
        withOverhead.overheadFrames[.veryfast] = 40
        #expect(abs(TranscodeEstimator(calibration: withOverhead, cores: 2).seconds(.veryfast, work)
                    - (300 * megapixels / 250 + 340 * megapixels / 50)) < 1e-9)
        // A pipeline factor scales the whole estimate.
        withOverhead.pipeline = [720: Self.factors(1.3)]
        #expect(abs(TranscodeEstimator(calibration: withOverhead, cores: 2).seconds(.veryfast, work)
                    - 1.3 * (300 * megapixels / 250 + 340 * megapixels / 50)) < 1e-9)
        // A job's fixed seconds are added once, after the factor.
        withOverhead.jobSeconds = 0.25
        #expect(abs(TranscodeEstimator(calibration: withOverhead, cores: 2).seconds(.veryfast, work)
                    - (1.3 * (300 * megapixels / 250 + 340 * megapixels / 50) + 0.25)) < 1e-9)
    }

    @Test("each preset's pipeline factor is interpolated between measured heights, held outside them, and 1 when not measured")
    func pipelineByHeight() {
        var c = Self.calibration
        c.pipeline = [720: [.veryfast: 1.1, .superfast: 0.9, .ultrafast: 1], 1080: [.veryfast: 0.8, .superfast: 1.2, .ultrafast: 1]]
        #expect(abs(c.pipelineFactor(.veryfast, height: 900) - 0.95) < 1e-12)
        #expect(abs(c.pipelineFactor(.superfast, height: 900) - 1.05) < 1e-12)
        #expect(c.pipelineFactor(.veryfast, height: 480) == 1.1)
        #expect(c.pipelineFactor(.superfast, height: 2160) == 1.2)
        c.pipeline = [:]
        #expect(c.pipelineFactor(.veryfast, height: 1080) == 1)
        // Each height's factor scales the estimate of work at that output height, each preset's its own.
        c.pipeline = [480: [.veryfast: 2, .superfast: 3, .ultrafast: 1], 1080: Self.factors(1)]
        let small = TranscodeWork(frames: 300, sourceCodec: "vp9", inputWidth: 854, inputHeight: 480, outputWidth: 854, outputHeight: 480)
        let plain = TranscodeEstimator(calibration: Self.calibration, cores: 2)
        let factored = TranscodeEstimator(calibration: c, cores: 2)
        #expect(abs(factored.seconds(.veryfast, small) - 2 * plain.seconds(.veryfast, small)) < 1e-9)
        #expect(abs(factored.seconds(.superfast, small) - 3 * plain.seconds(.superfast, small)) < 1e-9)
        #expect(abs(factored.seconds(.ultrafast, small) - plain.seconds(.ultrafast, small)) < 1e-9)
    }

    @Test("the machine key reads versions from mapped library names")
    func versions() {
        let maps = """
            7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libavcodec.so.59.37.100
            7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/libx264.so.164
            """
        #expect(MachineKey.version(of: "libavcodec.so.", in: maps) == "59.37.100")
        #expect(MachineKey.version(of: "libx264.so.", in: maps) == "164")
        #expect(MachineKey.version(of: "libx265.so.", in: maps) == "unknown")
    }
}
