/// Encodes a clip to fit its byte budget: H.264 + AAC (or AAC alone) at bitrates computed from the
/// duration and the budget, then checks the real size and corrects once.
///
/// 1. **Size** (``sizing(duration:)``): the budget less the container's bytes, times 8, over the
///    duration, is the total bitrate; audio takes ~10 % of it (between its floor and its comfortable
///    rate), video the rest. When the budget is not the limit, the comfortable rates are used and
///    the file lands well under it. When the video share is below the minimum for the picture size,
///    the picture steps down the ladder (1920 → 1280 → 854 → 640 → 426 → 320) until it is not.
/// 2. **Shorten** when even the smallest rung at the minimum bitrates does not fit: the clip is cut
///    (exactly, from the same start) to the duration those minimums can carry, never under 1 s.
/// 3. **Encode** aiming at 94 % of the budget (x264 one-pass ABR misses by a few percent).
/// 4. **Check and correct once**: over the budget, the video bitrate is scaled by what the real
///    sizes say it should have been (aiming at 92 %) and the file is encoded again over the
///    first; under 85 % of a budget that was the limit, it is encoded again into a scratch file
///    and the better of the two that fits is kept. Never hands back an over-budget file.
struct BudgetFitter {
    let job: PrepareJob
    let source: ClipSource
    var template: EncodeTemplate

    /// Share of the budget the first encode aims at, and the retry after an overshoot.
    static let firstTarget = 0.94
    static let retryTarget = 0.92
    /// Below this share of a binding budget a second encode is tried.
    static let lowLanding = 0.85
    /// The shortest clip worth sending when the budget forces shortening.
    static let shortestClip = 1.0

    struct Sizing: Sendable, Equatable {
        var width: Int
        var height: Int
        var videoBitRate: Int
        var audioBitRate: Int
        /// Whether the budget (not comfort) set the bitrates.
        var binding: Bool
        /// Whether the profile's recommended size (``EncodeTemplate/recommended``), below both the
        /// budget and comfort, set the bitrates.
        var aimed = false
    }

    struct Fitted {
        var plan: ClipPlan
        var outcome: ClipOutcome
        var attempts: Int
        var notes: [String]
        var shortened: Bool
    }

    private var budget: Int64 { template.budget }
    private var frameRate: Double { source.video?.frameRate.value ?? 0 }
    private var capSize: (width: Int, height: Int)? { template.video?.geometry.output(maxLongEdge: template.maxLongEdge) }

    /// The bits media may use over `duration` seconds at `share` of `bytes` (default the budget).
    private func usableBits(duration: Double, share: Double, of bytes: Int64? = nil) -> Double {
        let overhead = BitrateBudget.containerOverhead(duration: duration, frameRate: template.video == nil ? nil : frameRate,
                                                       audioSampleRate: template.audio.map { EncodeTemplate.sampleRate(for: $0.sampleRate) })
        return (Double(bytes ?? budget) * share - Double(overhead) - Double(template.cover?.bytes ?? 0)) * 8
    }

    /// Bits per second over `duration` that keep the output under the recommended size, when that
    /// is tighter than `total` (the budget's) and reachable: the picture at the cap size gets at
    /// least its ladder minimum (``BitrateBudget/minimumVideoBitRate(longEdge:frameRate:)``) beside
    /// the sound's share. `nil` otherwise (the recommendation never shrinks the picture or the clip).
    func recommendedTotal(duration: Double, total: Int) -> Int? {
        guard let recommended = template.recommended, recommended < budget else { return nil }
        let soft = (usableBits(duration: duration, share: Self.firstTarget, of: recommended) / duration)
            .clampedInteger(in: Int.min...Int.max, rounding: .towardZero)
        guard soft < total else { return nil }
        let minAudio = template.audio == nil ? 0 : BitrateBudget.minimumAudioBitRate(channels: template.channels)
        guard let cap = capSize else { return soft >= minAudio ? soft : nil }
        let comfortAudio = template.audio == nil ? 0 : BitrateBudget.comfortableAudioBitRate(channels: template.channels, sourceBitRate: template.audio?.bitRate)
        let audio = template.audio == nil ? 0 : min(comfortAudio, max(minAudio, soft / 10))
        let floor = BitrateBudget.minimumVideoBitRate(longEdge: max(cap.width, cap.height), frameRate: frameRate)
        return soft.saturatingAdd(-audio) >= floor ? soft : nil
    }

    /// Bitrates and picture size for `duration` seconds, or `nil` when even the smallest picture at
    /// the minimum bitrates does not fit.
    func sizing(duration: Double) -> Sizing? {
        // Bits per second the budget allows, clamped: past `Int.max` (a duration of picoseconds)
        // the budget is simply not the limit; below 0 (the container's bytes alone are over it)
        // nothing fits.
        var total = (usableBits(duration: duration, share: Self.firstTarget) / duration)
            .clampedInteger(in: Int.min...Int.max, rounding: .towardZero)
        let soft = recommendedTotal(duration: duration, total: total)
        total = soft ?? total
        let channels = template.channels
        let comfortAudio = template.audio == nil ? 0 : BitrateBudget.comfortableAudioBitRate(channels: channels, sourceBitRate: template.audio?.bitRate)
        let minAudio = template.audio == nil ? 0 : BitrateBudget.minimumAudioBitRate(channels: channels)
        guard let video = template.video, let cap = capSize else {
            guard total >= minAudio else { return nil }
            let rate = min(comfortAudio, total)
            let aimed = soft != nil && rate < comfortAudio
            return Sizing(width: 0, height: 0, videoBitRate: 0, audioBitRate: rate, binding: rate < comfortAudio && !aimed, aimed: aimed)
        }
        let comfortVideo = BitrateBudget.comfortableVideoBitRate(width: cap.width, height: cap.height, frameRate: frameRate)
        if comfortVideo.saturatingAdd(comfortAudio) <= total {
            return Sizing(width: cap.width, height: cap.height, videoBitRate: comfortVideo, audioBitRate: comfortAudio, binding: false)
        }
        let audio = template.audio == nil ? 0 : min(comfortAudio, max(minAudio, total / 10))
        let videoRate = total.saturatingAdd(-audio)
        let capLong = max(cap.width, cap.height)
        for edge in [capLong] + BitrateBudget.ladder.filter({ $0 < capLong }) {
            let size = video.geometry.output(maxLongEdge: edge)
            if videoRate >= BitrateBudget.minimumVideoBitRate(longEdge: max(size.width, size.height), frameRate: frameRate) {
                return Sizing(width: size.width, height: size.height, videoBitRate: videoRate, audioBitRate: audio,
                              binding: soft == nil, aimed: soft != nil)
            }
        }
        return nil
    }

    /// The longest duration (≤ `duration`) the minimum bitrates fit in, 0.1 s steps.
    func shortenedDuration(from duration: Double) -> Double {
        var minimum = Double(template.audio == nil ? 0 : BitrateBudget.minimumAudioBitRate(channels: template.channels))
        if let video = template.video {
            let smallest = video.geometry.output(maxLongEdge: BitrateBudget.ladder.last!)
            minimum += Double(BitrateBudget.minimumVideoBitRate(longEdge: max(smallest.width, smallest.height), frameRate: frameRate))
        }
        var fitted = duration
        for _ in 0..<4 { fitted = min(duration, max(0, usableBits(duration: fitted, share: Self.firstTarget)) / minimum) }
        return (fitted * 10).rounded(.down) / 10
    }

    func plan(_ sizing: Sizing, preset: EncoderSpeed) -> ClipPlan {
        var plan = ClipPlan(container: template.container, video: nil, audio: nil, window: template.window, trim: job.options.trim,
                            cover: template.cover?.index, decoding: DecoderBudget(job: job))
        if let video = template.video {
            plan.video = VideoTrackPlan(index: video.index, encode: .init(width: sizing.width, height: sizing.height,
                                                                          bitRate: sizing.videoBitRate, preset: preset),
                                        frameRate: video.frameRate)
        }
        if let audio = template.audio {
            let rate = EncodeTemplate.sampleRate(for: audio.sampleRate, bitRate: sizing.audioBitRate, channels: template.channels)
            plan.audio = AudioTrackPlan(index: audio.index, encode: .init(sampleRate: rate, channels: template.channels,
                                                                          bitRate: sizing.audioBitRate))
        }
        return plan
    }

    /// Encodes into `output` (and a scratch file beside it for a second try that must not lose the first).
    /// - Throws: ``PrepareError/cannotFit(reason:)`` when no encode fits, and what ``ClipWriter`` throws.
    mutating func run(into output: borrowing AtomicOutput) throws(PrepareError) -> Fitted {
        var notes: [String] = []
        let (first, shortened) = try sizeForBudget(notes: &notes)
        // Known: sizing needed the window's span, and a shortened window has a duration.
        let seconds = template.window.span(total: source.duration) ?? 0
        let chosen = try presetForDeadline(first, seconds: seconds, notes: &notes)
        let started = job.deadline.elapsed
        let (plan, outcome) = try PacedEncode(job: job, source: source, work: work(first, seconds: seconds), model: .shared)
            .write(plan(first, preset: chosen), to: output.temporaryPath, notes: &notes)
        let preset = plan.video?.encode?.preset ?? chosen
        let firstTook = job.deadline.elapsed - started
        notes.append("attempt 1: \(describe(first, preset: preset)) → \(ByteCount.text(outcome.bytes))" + limitText(first, bytes: outcome.bytes))
        var fitted = Fitted(plan: plan, outcome: outcome, attempts: 1, notes: notes, shortened: shortened)
        try correctOnce(&fitted, sizing: first, preset: preset, seconds: seconds, firstTook: firstTook, output: output)
        guard fitted.outcome.bytes <= budget else {
            throw .cannotFit(reason: "after \(fitted.attempts) encodes the clip is \(ByteCount.text(fitted.outcome.bytes)), over the \(ByteCount.limit(budget)) budget")
        }
        return fitted
    }

    /// Steps 1 and 2: the sizing for the window, which is shortened (a note says so) when even the
    /// minimum bitrates do not fit.
    /// - Returns: the sizing, and whether the clip was shortened.
    /// - Throws: ``PrepareError/cannotFit(reason:)`` for an unknown duration, or a budget too small
    ///   even for ``shortestClip`` at the minimums.
    private mutating func sizeForBudget(notes: inout [String]) throws(PrepareError) -> (Sizing, shortened: Bool) {
        guard let duration = template.window.span(total: source.duration), duration > 0 else {
            throw .cannotFit(reason: "the input's duration is unknown, so no bitrate can be computed for the budget")
        }
        if let sizing = sizing(duration: duration) {
            explainRecommendation(sizing, duration: duration, notes: &notes)
            return (sizing, false)
        }
        let shorter = shortenedDuration(from: duration)
        guard shorter >= min(Self.shortestClip, duration) else {
            throw .cannotFit(reason: "\(ByteCount.limit(budget)) cannot carry even \(ClipText.seconds(min(Self.shortestClip, duration))) at the minimum bitrates (\(minimumsText))")
        }
        template.window = ClipWindow(start: template.window.start, duration: shorter)
        notes.append("shortened to \(ClipText.seconds(shorter)): \(ByteCount.limit(budget)) cannot carry \(ClipText.seconds(duration)) at the minimum bitrates (\(minimumsText))")
        guard let sizing = sizing(duration: shorter) else {
            throw .cannotFit(reason: "\(ByteCount.limit(budget)) is too small for this clip at the minimum bitrates (\(minimumsText))")
        }
        return (sizing, true)
    }

    /// The x264 preset for the first encode: the best the deadline allows (``TranscodeEstimator``;
    /// a note gives the estimate, and whether it is calibrated, when there is a deadline).
    /// - Throws: ``PrepareError/deadlineExceeded(step:budget:)`` when even `ultrafast` cannot make it.
    private func presetForDeadline(_ sizing: Sizing, seconds: Double, notes: inout [String]) throws(PrepareError) -> EncoderSpeed {
        guard template.video != nil else { return .veryfast }
        if let forced = job.options.encoderPreset { return forced }
        if let left = job.deadline.remaining, let took = SpeedModel.shared.calibrateQuickly(for: work(sizing, seconds: seconds), remaining: left) {
            notes.append("deadline: this machine had no calibration: measured a quick one in \(ClipText.seconds(took)) (cached; `attachkit budget` measures it in full)")
        }
        let estimator = SpeedModel.shared.estimator()
        let remaining = job.deadline.remaining
        switch estimator.choose(work(sizing, seconds: seconds), remaining: remaining) {
        case .refuse(let fastest, let preset):
            throw .deadlineExceeded(step: "planning the transcode (about \(ClipText.seconds(fastest)) needed even at x264 \(preset.rawValue), "
                                    + "\(ClipText.seconds(remaining ?? 0)) left; \(Self.model(estimator, withMargin: false)))", budget: job.deadline.budget ?? 0)
        case .preset(let preset, let estimate, let withMargin):
            if let remaining {
                let left = ClipText.seconds(remaining)
                let fit = withMargin ? "of the \(left) left"
                    : estimate <= remaining ? "of the \(left) left, no room for the safety margin"
                    : estimator.calibration?.quick == true
                    ? "over the \(left) left, tried because a quick calibration is rough (refused only past \(TranscodeEstimator.quickRefusal)×)"
                    : "over the \(left) left, tried because the uncalibrated constants are pessimistic (refused only past \(TranscodeEstimator.fallbackRefusal)×)"
                notes.append("deadline: x264 \(preset.rawValue), estimated \(ClipText.seconds(estimate)) \(fit) (\(Self.model(estimator, withMargin: withMargin)))")
            }
            return preset
        }
    }

    /// How the estimate was made, for the notes: calibrated or not, and the margin when one was kept.
    private static func model(_ estimator: TranscodeEstimator, withMargin: Bool) -> String {
        let margin = withMargin ? ", × \(estimator.safetyMargin) margin" : ""
        let kind = estimator.calibration.map { $0.quick ? "calibrated estimate, quick calibration" : "calibrated estimate" }
        return (kind ?? "uncalibrated estimate from conservative constants") + margin
    }

    /// The transcode ``TranscodeEstimator`` judges: the window's frames from the source picture to `sizing`.
    private func work(_ sizing: Sizing, seconds: Double) -> TranscodeWork {
        TranscodeWork(frames: seconds * frameRate, sourceCodec: template.video?.codec.rawValue ?? "",
                      inputWidth: template.video?.geometry.width ?? 0, inputHeight: template.video?.geometry.height ?? 0,
                      outputWidth: sizing.width, outputHeight: sizing.height, threads: job.options.threads)
    }

    /// Step 4: over the budget, encodes again over the first file at corrected bitrates; under
    /// ``lowLanding`` of a binding budget, with time left for it, encodes again into a scratch file
    /// and keeps the better of the two that fits (a second try that fails keeps the first).
    /// - Throws: ``PrepareError/cannotFit(reason:)`` when no correction is possible, and what
    ///   ``ClipWriter`` throws for the encode over the first.
    private func correctOnce(_ fitted: inout Fitted, sizing: Sizing, preset: EncoderSpeed, seconds: Double, firstTook: Double,
                             output: borrowing AtomicOutput) throws(PrepareError) {
        let over = fitted.outcome.bytes > budget
        let low = sizing.binding && Double(fitted.outcome.bytes) < Double(budget) * Self.lowLanding
        let timeForRetry = job.deadline.remaining.map { $0 > firstTook * 1.2 } ?? true
        guard over || (low && timeForRetry) else { return }
        guard let corrected = correct(sizing, after: fitted.outcome, target: over ? Self.retryTarget : Self.firstTarget) else {
            throw .cannotFit(reason: "the encode at the minimum bitrates is \(ByteCount.text(fitted.outcome.bytes)), over \(ByteCount.limit(budget))")
        }
        let retryPreset = over ? choosePreset(sizing: corrected, seconds: seconds) : preset
        let retryPlan = plan(corrected, preset: retryPreset)
        fitted.attempts = 2
        let writer = ClipWriter(inputPath: source.path, demuxer: source.demuxer, plan: retryPlan, deadline: job.deadline)
        if over {
            do {
                fitted.outcome = try writer.write(to: output.temporaryPath)
            } catch {
                guard case .deadlineExceeded(let step, let deadline) = error else { throw error }
                throw .deadlineExceeded(step: "\(step) again at x264 \(retryPreset.rawValue) (the first encode, at \(preset.rawValue), "
                                        + "was \(ByteCount.text(fitted.outcome.bytes)), over the \(ByteCount.limit(budget)) budget)", budget: deadline)
            }
            fitted.plan = retryPlan
        } else {
            // The first file fits: a second try that fails or overshoots leaves it in place.
            do {
                let scratch = try ScratchFile(beside: output)
                let second = try writer.write(to: scratch.path)
                if second.bytes <= budget && second.bytes > fitted.outcome.bytes {
                    try scratch.move(over: output)
                    fitted.outcome = second
                    fitted.plan = retryPlan
                }
            } catch {
                // Whatever stopped the optional second try (a processing failure, the
                // deadline), the first encode already fits: keep it.
                fitted.notes.append("attempt 2 stopped (\(error.code): \(error.message)); attempt 1 kept")
            }
        }
        fitted.notes.append("attempt 2: \(describe(corrected, preset: retryPreset)) → \(percent(fitted.outcome.bytes)) of the budget kept")
    }

    /// Bitrates corrected by what the first encode really spent: the video (or, for sound alone,
    /// the audio) share is scaled so the total lands at `target` of the budget. `nil` when the
    /// corrected video bitrate is under the minimum of every rung.
    func correct(_ sizing: Sizing, after outcome: ClipOutcome, target: Double) -> Sizing? {
        let videoBytes = Double(outcome.video?.bytes ?? 0)
        let audioBytes = Double(outcome.audio?.bytes ?? 0)
        let overhead = max(0, Double(outcome.bytes) - videoBytes - audioBytes)
        var corrected = sizing
        corrected.binding = true
        guard let video = template.video, videoBytes > 0 else {
            guard audioBytes > 0 else { return nil }
            let scale = (Double(budget) * target - overhead) / audioBytes
            // Clamped: the scale is finite (audioBytes > 0) but a budget of any Int64 can make it vast.
            corrected.audioBitRate = (Double(sizing.audioBitRate) * scale).clampedInteger(in: Int.min...Int.max, rounding: .towardZero)
            let floor = BitrateBudget.minimumAudioBitRate(channels: template.channels)
            return corrected.audioBitRate >= floor ? corrected : nil
        }
        let scale = (Double(budget) * target - overhead - audioBytes) / videoBytes
        let rate = (Double(sizing.videoBitRate) * scale).clampedInteger(in: Int.min...Int.max, rounding: .towardZero)
        let long = max(sizing.width, sizing.height)
        for edge in [long] + BitrateBudget.ladder.filter({ $0 < long }) {
            let size = video.geometry.output(maxLongEdge: edge)
            if rate >= BitrateBudget.minimumVideoBitRate(longEdge: max(size.width, size.height), frameRate: frameRate) {
                corrected.width = size.width
                corrected.height = size.height
                corrected.videoBitRate = rate
                return corrected
            }
        }
        return nil
    }

    /// The retry's preset: the best the time left allows, `ultrafast` when none fits.
    private func choosePreset(sizing: Sizing, seconds: Double) -> EncoderSpeed {
        guard template.video != nil else { return .veryfast }
        if case .preset(let preset, _, _) = SpeedModel.shared.estimator().choose(work(sizing, seconds: seconds), remaining: job.deadline.remaining) {
            return preset
        }
        return .ultrafast
    }

    private var minimumsText: String {
        var parts: [String] = []
        if let video = template.video {
            let smallest = video.geometry.output(maxLongEdge: BitrateBudget.ladder.last!)
            parts.append("\(smallest.width)×\(smallest.height) video \(ClipText.bitRate(BitrateBudget.minimumVideoBitRate(longEdge: max(smallest.width, smallest.height), frameRate: frameRate)))")
        }
        if template.audio != nil { parts.append("AAC \(ClipText.bitRate(BitrateBudget.minimumAudioBitRate(channels: template.channels)))") }
        return parts.joined(separator: " + ")
    }

    private func describe(_ sizing: Sizing, preset: EncoderSpeed) -> String {
        var parts: [String] = []
        if template.video != nil {
            parts.append("H.264 \(sizing.width)×\(sizing.height) \(ClipText.bitRate(sizing.videoBitRate)) (x264 \(preset.rawValue))")
        }
        if template.audio != nil { parts.append("AAC \(ClipText.bitRate(sizing.audioBitRate))") }
        return parts.joined(separator: " + ")
    }

    /// What set the first encode's bitrates, for its note.
    private func limitText(_ sizing: Sizing, bytes: Int64) -> String {
        if sizing.aimed, let recommended = template.recommended {
            let over = bytes > recommended ? "; x264 overshot it" : ""
            return " (aimed under the recommended \(ByteCount.limit(recommended))\(over))"
        }
        return sizing.binding ? " (\(percent(bytes)) of \(ByteCount.limit(budget)))" : " (the \(ByteCount.limit(budget)) budget is not the limit)"
    }

    /// Says why an encode sized by comfort or the budget will be over the recommended size: the
    /// recommendation cannot carry the window at the cap size's ladder minimum.
    private func explainRecommendation(_ sizing: Sizing, duration: Double, notes: inout [String]) {
        guard let recommended = template.recommended, recommended < budget, !sizing.aimed,
              Double(sizing.videoBitRate.saturatingAdd(sizing.audioBitRate)) * duration / 8 > Double(recommended) else { return }
        var minimum = "AAC \(ClipText.bitRate(BitrateBudget.minimumAudioBitRate(channels: template.channels)))"
        if let cap = capSize {
            let video = BitrateBudget.minimumVideoBitRate(longEdge: max(cap.width, cap.height), frameRate: frameRate)
            minimum = "\(cap.width)×\(cap.height) video \(ClipText.bitRate(video))" + (template.audio == nil ? "" : " + " + minimum)
        }
        notes.append("over the recommended \(ByteCount.limit(recommended)): it cannot carry \(ClipText.seconds(duration)) at the minimum bitrates (\(minimum))")
    }

    private func percent(_ bytes: Int64) -> String {
        "\((Double(bytes) / Double(max(1, budget)) * 100).clampedInteger(in: 0...Int.max))%"
    }
}
