/// The process's speed model: the cached calibration (read from the ``CalibrationStore`` once,
/// on first use; `nil` when missing or stale) and a running correction per preset learned from the
/// transcodes this process ran, so `batch` and `serve` (each worker process for itself) estimate
/// better the longer they run: an exponentially weighted mean (weight ``learningRate``) of real ÷
/// estimated seconds, kept within ``correctionRange``.
public final class SpeedModel: Sendable {
    public static let shared = SpeedModel(store: CalibrationStore.standard(environment: CalibrationStore.processEnvironment))

    /// Weight of the newest encode in the running correction.
    public static let learningRate = 0.3
    /// A correction is never taken past these bounds (one odd encode must not wreck the model).
    public static let correctionRange = 0.33...3.0

    private struct State {
        var loaded = false
        /// The cache file's text, read by ``prefetch()`` before a sandbox hid the file.
        var prefetched: String??
        var calibration: SpeedCalibration?
        var corrections: [EncoderSpeed: Double] = [:]
    }

    private let store: CalibrationStore?
    private let state = Locked(State())

    public init(store: CalibrationStore?) { self.store = store }

    /// The estimator with what is known now.
    public func estimator() -> TranscodeEstimator {
        let (calibration, corrections) = state.withLock { s in
            if !s.loaded, let store {
                // The key names the FFmpeg build, known once FFmpeg is loaded: checked here, at first use.
                let text = s.prefetched ?? store.read()
                if case .fresh(let found) = store.load(text: text, for: MachineKey.current(), now: Calibrator.now) { s.calibration = found }
            }
            s.loaded = true
            return (s.calibration, s.corrections)
        }
        return TranscodeEstimator(calibration: calibration, corrections: corrections,
                                  cores: SystemProcess.processorCount)
    }

    /// Reads the cache file now, to be judged at first use: a worker process calls it before it
    /// confines itself (its sandbox reads beneath the input folders only).
    public func prefetch() {
        state.withLock { s in
            if !s.loaded, s.prefetched == nil { s.prefetched = .some(store?.read()) }
        }
    }

    /// Uses `calibration` from now on (just measured) and forgets the corrections made against the old one.
    public func use(_ calibration: SpeedCalibration?) {
        state.withLock { s in
            s.loaded = true
            s.calibration = calibration
            s.corrections = [:]
        }
    }

    /// Learns from one encode at `preset`: it took `real` seconds where the estimate (already
    /// corrected) said `estimated`.
    public func record(_ preset: EncoderSpeed, estimated: Double, real: Double) {
        guard estimated > 0.05, real > 0, estimated.isFinite, real.isFinite else { return }
        state.withLock { s in
            let previous = s.corrections[preset] ?? 1
            let observed = previous * real / estimated
            let next = previous + Self.learningRate * (observed - previous)
            s.corrections[preset] = min(Self.correctionRange.upperBound, max(Self.correctionRange.lowerBound, next))
        }
    }

    public var corrections: [EncoderSpeed: Double] { state.withLock { $0.corrections } }

    /// No machine runs a transcode this many times faster than the fallback constants say: when
    /// even `ultrafast` would not fit the time left at that speed, no quick calibration is run
    /// (the work is refused at once, as before).
    static let quickCalibrationHopeless = 8.0

    /// Before a deadline-bearing transcode: when there is no full calibration (none cached, or a
    /// quick one without `work`'s output height or source codec), runs ``Calibrator/quick(height:codec:)``
    /// (about a second), uses it from now on, and caches it (merged into a cached quick one) for
    /// the next process unless its figures contradict each other
    /// (``SpeedCalibration/inconsistencies``); `attachkit budget` replaces it. A worker process, whose sandbox hides the
    /// cache, keeps it for its own life. Not run when the time left is hopeless even at
    /// ``quickCalibrationHopeless`` × the fallback speed, or the measurement fails (the fallback
    /// constants apply). Returns the seconds it took, `nil` when none was run.
    @discardableResult
    public func calibrateQuickly(for work: TranscodeWork, remaining: Double) -> Double? {
        let current = estimator()
        let height = work.outputHeight
        if let calibration = current.calibration {
            guard calibration.quick else { return nil }
            let heights = calibration.encode.keys.map { abs(Double($0 - height)) / Double(max(1, height)) }
            if heights.contains(where: { $0 <= 0.15 }), calibration.decode[work.sourceCodec] != nil || !Calibrator.sources.contains(where: { $0.codec == work.sourceCodec }) {
                return nil
            }
        }
        let fallback = TranscodeEstimator(calibration: nil, cores: current.cores).seconds(.ultrafast, work)
        guard fallback / Self.quickCalibrationHopeless <= remaining else { return nil }
        let started = ContinuousClock.now
        guard let measured = try? Calibrator.quick(height: height, codec: work.sourceCodec).run() else { return nil }
        let merged = current.calibration.map { measured.adding($0) } ?? measured
        state.withLock { s in
            s.loaded = true
            s.calibration = merged
        }
        // Figures a neighbour's burst bent (a faster preset measured slower) serve this process
        // only; the next one measures again.
        if merged.inconsistencies.isEmpty { try? store?.save(merged) }
        return (ContinuousClock.now - started).seconds
    }
}
