/// Prepares audio and video: an ordered plan chosen per input (``ClipPlanner``), stream copy
/// before re-encode, the deadline checked between steps and inside every read loop.
///
/// 1. **Stream copy** (remux into MP4/M4A with `moov` first and HEVC tagged `hvc1`, fast trim from
///    the keyframe at or before `--start`), when the codecs are allowed and the copy's estimated
///    size fits; kept when its real size fits the budget.
/// 2. **Encode to fit** (``BudgetFitter``): H.264 + AAC in MP4, or AAC in M4A, at the profile's
///    long-edge cap and bitrates computed from the budget, checked and corrected once.
///
/// Everything is written into the output's temporary file (the ``Preparer`` deletes it on any
/// failure, so no partial output is ever left).
struct AudioVideoPipeline: MediaPipeline {
    func run(_ job: PrepareJob, into output: borrowing AtomicOutput) throws(PrepareError) -> PipelineResult {
        let source = try ClipSource.read(path: job.inputPath, info: job.info, decoding: DecoderBudget(job: job))
        try job.deadline.check("planning")
        let strategy = try ClipPlanner(job: job, source: source).plan()
        var notes = strategy.notes
        // What the input says it lasts, where it says so (not an estimate from the bit rate).
        let declared = job.info.durationIsEstimate == true ? nil : source.duration
        // Damage left out is noted by the Preparer (``PrepareJob/repairNote``).
        if job.repairNote == nil,
           job.findings.allSatisfy({ $0.severity != .error || $0.code == .extensionMismatch || $0.code == .missingExtension }),
           let reason = Self.rewriteReason(path: job.inputPath, info: job.info, options: job.options) {
            notes.append("rewritten although valid: \(reason)")
        }
        var attempts = 0

        if let light = strategy.light, estimatedCopyFits(light, source: source, budget: strategy.template.budget) {
            let outcome = try ClipWriter(inputPath: source.path, demuxer: source.demuxer, plan: light, deadline: job.deadline)
                .write(to: output.temporaryPath)
            attempts += 1
            if outcome.bytes <= strategy.template.budget {
                notes.append(copyNote(light, outcome: outcome))
                return result(plan: light, outcome: outcome, source: source, attempts: attempts, notes: notes, shortened: false,
                              hdr: job.info.hdr, declared: declared)
            }
            notes.append("the stream copy is \(ByteCount.text(outcome.bytes)), over the \(ByteCount.limit(strategy.template.budget)) budget: re-encoding")
        }
        try job.deadline.check("planning the transcode")
        // Re-encoding decodes whole frames: refuse a picture too large to hold, from the header.
        if let violation = job.safety.wholeFrameViolation(of: job.info) { throw .overCap(violation) }
        // ...and the decoder's reference frames with x264's at the output size must fit the budget.
        if let video = strategy.template.video,
           let memory = DecodeMemoryEstimator.transcode(job.info, threads: DecodeMemoryEstimator.threads(job.options.threads),
                                                        encoderThreads: DecodeMemoryEstimator.encoderThreads(job.options.threads),
                                                        output: video.geometry.output(maxLongEdge: strategy.template.maxLongEdge)),
           let violation = job.safety.decodeViolation(memory, loadedPixels: 0) {
            throw .overCap(violation)
        }
        if let refusal = strategy.encodeRefusal { throw .cannotFit(reason: "a re-encode is needed but \(refusal)") }
        if let note = strategy.encodeNote { notes.append(note) }
        var fitter = BudgetFitter(job: job, source: source, template: strategy.template)
        let fitted = try fitter.run(into: output)
        notes += fitted.notes
        return result(plan: fitted.plan, outcome: fitted.outcome, source: source, attempts: attempts + fitted.attempts,
                      notes: notes, shortened: fitted.shortened, hdr: job.info.hdr, declared: declared)
    }

    /// An input that passes validation is still rewritten rather than copied when `--start` asks
    /// for a cut, or its layout is one iOS handles badly (``LayoutCheck``: moov last).
    func passthroughBlocker(_ job: PrepareJob) throws(PrepareError) -> String? {
        if job.repairNote != nil { return "a clean copy is written instead of the damaged file" }
        if (job.info.attachedPictures ?? 0) > 0, let demuxer = Demuxers.name(for: job.info.container),
           let broken = CoverArtStage.brokenCover(path: job.inputPath, demuxer: demuxer, decoding: DecoderBudget(job: job)) {
            return broken + ": the sound is copied without it"
        }
        return Self.rewriteReason(path: job.inputPath, info: job.info, options: job.options)
    }

    static func rewriteReason(path: String, info: MediaInfo, options: PrepareOptions) -> String? {
        guard info.kind == .audio || info.kind == .video else { return nil }
        if options.start > 0 { return "a start at \(ClipText.seconds(options.start)) asks for a cut" }
        return LayoutCheck.remuxReason(path: path, info: info)
    }

    /// A note when the media ends well before what the input declares it holds, counted from the
    /// window's start (an Ogg last granule claiming 10 h over 3 s of sound, an inflated `mvhd`
    /// in a transcode): what was written is all that decodes. Against a whole input the deep
    /// check's margin applies (under ``DeepCheck/minimumDurationShare`` and more than
    /// ``DeepCheck/durationSlack`` short); against a trim, under half the window, as a copy may
    /// end a few frames before the window does. `nil` when it matches or `declared` is unknown.
    static func shortfall(declared: Double?, window: ClipWindow, trimmed: Bool, written: Double) -> String? {
        guard let declared else { return nil }
        let fromStart = max(0, declared - window.start)
        if trimmed, let length = window.duration {
            guard written < min(fromStart, length) * 0.5 else { return nil }
        } else {
            guard written < fromStart * DeepCheck.minimumDurationShare, fromStart - written > DeepCheck.durationSlack else { return nil }
        }
        return "the media ends at \(ClipText.seconds(window.start + written)) though the input declares \(ClipText.seconds(declared)): "
            + "the attachment holds all that decodes"
    }

    /// A stream copy is worth trying when its share of the input's bytes fits the budget.
    private func estimatedCopyFits(_ plan: ClipPlan, source: ClipSource, budget: Int64) -> Bool {
        guard let total = source.duration, total > 0, let kept = plan.window.span(total: total) else { return true }
        return Double(source.bytes) * min(1, kept / total) <= Double(budget) * 1.02
    }

    private func copyNote(_ plan: ClipPlan, outcome: ClipOutcome) -> String {
        var text = "stream copy into \(plan.container.rawValue.uppercased()) (no re-encode"
        if plan.audio?.encode != nil { text += " of the picture; sound → AAC" }
        text += ")"
        if plan.window.cuts {
            text += ", from the \(plan.video == nil ? "packet" : "keyframe") at \(ClipText.seconds(outcome.start)) for \(ClipText.seconds(outcome.duration))"
        }
        return text
    }

    /// The result of writing `plan`; `hdr` (the input's dynamic range) adds the note saying what
    /// happened to it (``ToneMapper/note(_:toneMapped:)``); `declared` (the input's length, `nil`
    /// when unknown or estimated) the note on media that ends well before it (``shortfall``).
    private func result(plan: ClipPlan, outcome: ClipOutcome, source: ClipSource, attempts: Int, notes: [String],
                        shortened: Bool, hdr: HDRInfo?, declared: Double?) -> PipelineResult {
        var result = PipelineResult(container: plan.container.container, kind: plan.container.kind)
        var actions: [PrepareAction] = []
        // A window cuts what the input declares past its end; over an input of unknown length (a
        // tracker module, rendered as it plays) it cut nothing when the media ended well before it.
        let cutShort: Bool
        if plan.window.start > 0 {
            cutShort = true
        } else if let length = plan.window.duration, let total = source.duration {
            // ...or, past what it declares, the media ran on to the window's end (a chained Ogg).
            cutShort = total > length + DurationRule.slack || outcome.duration >= length - DurationRule.slack
        } else {
            cutShort = plan.window.duration.map { outcome.duration >= $0 * DeepCheck.minimumDurationShare } ?? false
        }
        let trimmed = (plan.window.cuts && cutShort) || shortened
        if trimmed { actions.append(.trimmed) }
        if let encode = plan.video?.encode, let video = source.video,
           Double(encode.width * encode.height) < video.geometry.squareWidth.rounded() * Double(video.geometry.height) {
            actions.append(.downscaled)
        }
        if plan.isStreamCopy {
            if plan.container.container != source.container || !plan.window.cuts { actions.append(.remuxed) }
        } else {
            let videoChanged = plan.video?.encode != nil && source.video?.codec != .h264
            let audioChanged = plan.audio?.encode != nil && source.audio?.codec != .aac
            actions.append(videoChanged || audioChanged || plan.container.container != source.container ? .transcoded : .reencoded)
            result.bitRate = plan.encodedBitRate
        }
        result.actions = actions
        result.attempts = attempts
        result.copiedWithoutDecoding = plan.isStreamCopy || (plan.video != nil && plan.video?.encode == nil)
            || (plan.audio != nil && plan.audio?.encode == nil)
        if trimmed {
            result.trimStart = outcome.start
            result.trimDuration = outcome.duration
        }
        result.notes = notes
        if let note = Self.shortfall(declared: declared, window: plan.window, trimmed: trimmed, written: outcome.duration) { result.notes.append(note) }
        // A stream called SDR whose later frames are HDR (segments joined) is noted from the frames.
        let seen = hdr ?? outcome.video?.toneMapped.map { HDRInfo(format: $0) }
        if let video = plan.video, let note = ToneMapper.note(seen, toneMapped: video.encode != nil) { result.notes.append(note) }
        return result
    }
}
