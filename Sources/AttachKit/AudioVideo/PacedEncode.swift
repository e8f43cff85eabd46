/// Runs a clip's encode under the deadline model: the preset the plan carries
/// (``TranscodeEstimator`` chose it), watched by ``EncodePace``. When the pace projects an
/// overrun, the clip is encoded again from its start at the slowest faster preset whose estimate,
/// scaled by how much slower than estimated the watched encode ran, fits the time left; when none
/// does, the work stops there with `deadline-exceeded`.
///
/// A restart, not a switch mid-stream: an MP4 H.264 track carries one set of parameter sets, and
/// the presets differ in what those declare (CABAC, 8×8 transforms, B-frames), so a second
/// encoder cannot continue the first one's stream. The watch judges early (after
/// ``EncodePace/warmUp``), so little is thrown away. Every encode, finished or stopped, teaches
/// ``SpeedModel`` its real ÷ estimated time; the notes give the preset(s) and estimated against
/// real seconds.
struct PacedEncode {
    let job: PrepareJob
    let source: ClipSource
    let work: TranscodeWork
    let model: SpeedModel
    /// The watch's rule for each encode (0 = the first). Default ``EncodePace/Rule()`` for all.
    var paceRule: @Sendable (_ attempt: Int) -> EncodePace.Rule = { _ in EncodePace.Rule() }

    /// Writes `plan` into `path` (`attempt` counts the restarts so far).
    /// - Returns: the plan written (its preset may be faster than asked) and what it produced.
    /// - Throws: what ``ClipWriter`` throws; ``PrepareError/deadlineExceeded(step:budget:)`` when
    ///   the projection overruns and no faster preset can make it.
    func write(_ plan: ClipPlan, to path: String, notes: inout [String], attempt: Int = 0) throws(PrepareError) -> (ClipPlan, ClipOutcome) {
        guard let preset = plan.video?.encode?.preset else {
            return (plan, try ClipWriter(inputPath: source.path, demuxer: source.demuxer, plan: plan, deadline: job.deadline).write(to: path))
        }
        let estimator = model.estimator()
        let estimate = estimator.seconds(preset, work)
        let started = job.deadline.elapsed
        let pace = job.deadline.budget.map { _ in
            EncodePace(deadline: job.deadline, span: plan.window.span(total: source.duration) ?? 0, startedAt: started, rule: paceRule(attempt),
                       encoding: "x264 \(preset.rawValue), estimated \(ClipText.seconds(estimate))" + (attempt > 0 ? " after \(attempt) restart(s)" : ""))
        }
        do {
            let outcome = try ClipWriter(inputPath: source.path, demuxer: source.demuxer, plan: plan, deadline: job.deadline, pace: pace)
                .write(to: path)
            let real = job.deadline.elapsed - started
            model.record(preset, estimated: estimate, real: real)
            notes.append("x264 \(preset.rawValue): \(ClipText.seconds(real)) (estimated \(ClipText.seconds(estimate)))")
            return (plan, outcome)
        } catch {
            guard case .deadlineExceeded(let step, let budget) = error else { throw error }
            guard let projected = pace?.projected else {
                // The time ran out before the pace could be judged: still say what was being encoded.
                throw .deadlineExceeded(step: "\(step) at x264 \(preset.rawValue), estimated \(ClipText.seconds(estimate))", budget: budget)
            }
            model.record(preset, estimated: estimate, real: projected)
            let slower = projected / max(estimate, 1e-3)
            let left = job.deadline.remaining ?? 0
            // Each restart is at a strictly faster preset, so there are at most two.
            let next = EncoderSpeed.allCases.drop { $0 != preset }.dropFirst().first { estimator.seconds($0, work) * slower <= left }
            guard let next else { throw error }
            let nextEstimate = estimator.seconds(next, work) * slower
            notes.append("deadline: x264 \(preset.rawValue) was estimated at \(ClipText.seconds(estimate)) but projected "
                         + "\(ClipText.seconds(projected)) after \(ClipText.seconds(job.deadline.elapsed - started)); restarted at x264 "
                         + "\(next.rawValue) (estimated \(ClipText.seconds(nextEstimate)) of the \(ClipText.seconds(left)) left)")
            var faster = plan
            faster.video?.encode?.preset = next
            return try write(faster, to: path, notes: &notes, attempt: attempt + 1)
        }
    }
}
