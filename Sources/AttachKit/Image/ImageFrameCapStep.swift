/// The profile's frame cap (`maxFrames`, or `--max-frames`), checked from the header before any
/// decoding: an animation with more frames keeps that many, spread evenly, each shown longer so
/// the animation lasts as long as before. Absurd counts never get here (``SafetyLimits`` refuse
/// them before the pipeline runs).
struct ImageFrameCapStep: ImageStep {
    let name = "frame cap"

    func run(_ work: inout ImageWork) throws(PrepareError) {
        guard work.plan.animated, let cap = work.job.profile.image.maxFrames, work.plan.frames > cap else { return }
        work.selection = FrameSelection(total: work.plan.frames, keeping: max(1, cap))
        work.cappedFrames = work.selection.kept.count
        work.notes.append("\(work.plan.frames) frames, over the cap of \(cap): keeping \(work.selection.kept.count), evenly spread")
    }
}
