/// Keeps the frames ``ImageWork/selection`` chose out of a libvips-loaded animation (frames are
/// stacked in one tall image: the kept bands of rows are joined again), adding the delays of the
/// dropped frames to the kept ones so the total duration is unchanged. FFmpeg-decoded animations
/// drop frames while decoding, so there is nothing left to do for them.
struct ImageFrameDropStep: ImageStep {
    let name = "drop frames"

    func run(_ work: inout ImageWork) throws(PrepareError) {
        guard work.plan.animated, work.selection.dropsFrames, let pageHeight = work.pageHeight,
              work.frameCount == work.selection.total, var image = work.image.take() else { return }
        let strips = work.selection.kept.map { (top: $0 * pageHeight, height: pageHeight) }
        do {
            image = try image.stacking(strips: strips)
        } catch {
            throw ImageFailure.from(error, step: name)
        }
        work.image = consume image
        work.delays = work.selection.mergedDelays(work.delays)
        work.did(.framesDropped)
    }
}
