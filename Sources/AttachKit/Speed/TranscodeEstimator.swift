/// How long a transcode will take at each x264 preset, and which preset a deadline allows.
///
/// **Calibrated** (``SpeedCalibration``): seconds = frames × input pixels ÷ the source codec's
/// decode rate + (frames + the preset's overhead frames) × output pixels ÷ the preset's encode
/// rate at the output's height, scaled up when the job has fewer threads than cores, times the
/// calibration's pipeline factor for the preset at the output's height (what whole jobs of filmed
/// pictures cost beyond the codecs on a clean one), plus
/// the job's fixed seconds, times the running correction for the preset (``SpeedModel``). A preset is
/// chosen when its estimate × ``margin`` fits the time left; `ultrafast` is still tried when its
/// bare estimate fits (the note says the margin is not there); the work is refused up front when
/// even that does not. A source codec that was not measured is counted at the slowest measured
/// decode rate.
///
/// **Uncalibrated**: the fallback constants (``EncoderSpeed`` `pixelsPerCoreSecond`, which are
/// pessimistic), chosen at ``fallbackMargin`` and refused only past ``fallbackRefusal`` × the
/// time left, as before calibration existed.
public struct TranscodeEstimator: Sendable {
    public var calibration: SpeedCalibration?
    /// Real ÷ estimated seconds per preset, learned from encodes run (absent = 1).
    public var corrections: [EncoderSpeed: Double]
    /// Cores of the machine (the fallback model's scale; threads of a job are a share of them).
    public var cores: Int

    /// The safety margin of a calibrated estimate: estimate × 1.15 must fit the time left.
    public static let margin = 1.15
    /// The uncalibrated margin (estimate ≤ 80 % of the time left) and refusal threshold.
    public static let fallbackMargin = 1.25
    public static let fallbackRefusal = 2.0
    /// The margin of an estimate from a quick calibration (``SpeedCalibration/quick``): its
    /// pipeline factors are typical ones, not this machine's.
    public static let quickMargin = 1.25
    /// With a quick calibration, the fastest preset is still tried while its estimate is within
    /// this many times the time left (the pace watch stops it early when it falls behind): its
    /// estimates were 0.8–1.2× the real time, and the measurement itself took a second of the job's.
    public static let quickRefusal = 1.25

    public init(calibration: SpeedCalibration?, corrections: [EncoderSpeed: Double] = [:], cores: Int) {
        self.calibration = calibration
        self.corrections = corrections
        self.cores = max(1, cores)
    }

    public var isCalibrated: Bool { calibration != nil }

    /// The margin an estimate must fit with: ``margin``, ``quickMargin`` or ``fallbackMargin``.
    public var safetyMargin: Double {
        guard let calibration else { return Self.fallbackMargin }
        return calibration.quick ? Self.quickMargin : Self.margin
    }

    /// Estimated wall-clock seconds of `work` at `preset`.
    public func seconds(_ preset: EncoderSpeed, _ work: TranscodeWork) -> Double {
        let share = work.threads.map { min(1, Double(max(1, $0)) / Double(cores)) } ?? 1
        let correction = corrections[preset] ?? 1
        guard let calibration, let encodeRate = calibration.encodeRate(preset, height: work.outputHeight) else {
            return preset.fallbackSeconds(frames: work.frames, width: work.outputWidth, height: work.outputHeight,
                                          cores: work.threads.map { min($0, cores) } ?? cores) * correction
        }
        let decodeRate = calibration.decode[work.sourceCodec] ?? calibration.decode.values.min() ?? encodeRate
        let megapixelsIn = Double(work.inputWidth * work.inputHeight) / 1e6
        let megapixelsOut = Double(work.outputWidth * work.outputHeight) / 1e6
        let encodedFrames = work.frames + (calibration.overheadFrames[preset] ?? 0)
        return ((work.frames * megapixelsIn / decodeRate + encodedFrames * megapixelsOut / encodeRate) / share * calibration.pipelineFactor(preset, height: work.outputHeight)
                + calibration.jobSeconds) * correction
    }

    /// What the deadline allows.
    public enum Choice: Sendable, Equatable {
        /// Encode at `preset`, estimated `estimate` seconds; `withMargin` when estimate × the
        /// margin fits (otherwise only the bare estimate does).
        case preset(EncoderSpeed, estimate: Double, withMargin: Bool)
        /// Not even the fastest preset (`at`, normally `ultrafast`) can make it: about `fastest` seconds needed.
        case refuse(fastest: Double, at: EncoderSpeed)
    }

    /// The best preset whose estimate fits `remaining` seconds (`veryfast` without a deadline).
    public func choose(_ work: TranscodeWork, remaining: Double?) -> Choice {
        guard let remaining else { return .preset(.veryfast, estimate: seconds(.veryfast, work), withMargin: true) }
        let margin = safetyMargin
        for preset in EncoderSpeed.allCases {
            let estimate = seconds(preset, work)
            if estimate * margin <= remaining { return .preset(preset, estimate: estimate, withMargin: true) }
        }
        // The fastest estimate, not always ultrafast's: a calibration measured under a neighbour's
        // burst can make ultrafast look slower than superfast.
        let (preset, fastest) = EncoderSpeed.allCases.map { ($0, seconds($0, work)) }.min { $0.1 < $1.1 }!
        let tolerance = calibration.map { $0.quick ? Self.quickRefusal : 1 } ?? Self.fallbackRefusal
        return fastest <= remaining * tolerance
            ? .preset(preset, estimate: fastest, withMargin: false) : .refuse(fastest: fastest, at: preset)
    }
}
