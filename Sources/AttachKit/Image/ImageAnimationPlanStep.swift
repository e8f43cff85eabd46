/// Plans how an animation will fit its byte budget before decoding it, so a 30 MB GIF headed for
/// 100 KB is decoded small instead of whole: the size at full levers is estimated from the input
/// (a GIF re-encoded at the same size and frames is about as big as it was; other formats at
/// ``bytesPerPixelFrame``: the corpus' AVIF and HEIF sequences measure 0.44 and 0.55 as GIFs, the
/// animated WebP fixture 0.28), and the levers (size, frames, colours) are chosen for the budget.
/// Encoding then corrects the estimate (``ImageAnimationFitStep``).
struct ImageAnimationPlanStep: ImageStep {
    let name = "plan animation"

    /// Bytes per pixel per frame assumed for a GIF made from a non-GIF animation.
    static let bytesPerPixelFrame = 0.45
    /// Share of the budget aimed at (leaves room for the estimate's error).
    static let aim = 0.92

    func run(_ work: inout ImageWork) throws(PrepareError) {
        guard work.plan.outputsGIF else { return }
        let planner = Self.planner(for: work)
        let reference = Self.estimatedSize(of: work)
        let share = Self.aim * Double(work.plan.budget) / reference
        guard share < 1 else { return }
        Self.apply(planner.levers(forShare: share), to: &work)
    }

    /// The planner over the frames left after the frame cap and the size within the pixel caps.
    static func planner(for work: borrowing ImageWork) -> AnimationBudgetPlanner {
        let box = work.plan.box
        return AnimationBudgetPlanner(frames: work.cappedFrames, longEdge: max(box.width, box.height))
    }

    /// Predicted bytes of the GIF at full levers (caps applied, every kept frame, 256 colours).
    static func estimatedSize(of work: borrowing ImageWork) -> Double {
        let plan = work.plan
        let box = plan.box
        let frames = Double(work.cappedFrames)
        if work.job.info.container == .gif {
            let area = Double(box.width * box.height) / Double(plan.width * plan.height)
            return Double(work.job.info.bytes) * pow(area, AnimationBudgetPlanner.pixelExponent)
                * pow(frames / Double(plan.frames), AnimationBudgetPlanner.frameExponent)
        }
        return Double(box.width * box.height) * frames * bytesPerPixelFrame
    }

    /// Sets the load size and the kept frames (evenly over the whole animation) for `levers`.
    static func apply(_ levers: AnimationLevers, to work: inout ImageWork) {
        let box = work.plan.box
        work.levers = levers
        work.loadBox = levers.box(inside: box)
        work.selection = FrameSelection(total: work.plan.frames, keeping: min(levers.frames, work.cappedFrames))
    }
}
