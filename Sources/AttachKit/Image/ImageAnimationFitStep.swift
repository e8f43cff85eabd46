/// Encodes an animated (or still) GIF within the byte budget. The animation stays animated: the
/// levers planned from the header (``ImageAnimationPlanStep``) are tried, and each measured size
/// corrects the size model before the levers are chosen again (a smaller picture first, then
/// fewer frames, then fewer colours: ``AnimationBudgetPlanner``).
///
/// Smaller levers work on the frames held in memory (frames dropped evenly from those kept, then
/// resampled); gentler ones, or frames too big to hold, load the file again. When a fitting GIF
/// comes out far below the budget after levers moved, one more try moves them back towards full.
/// Never returns more bytes than the budget, and never refuses one before the smallest GIF the
/// levers make (``AnimationBudgetPlanner/floor``) was measured over it: fitting is monotonic in
/// the budget. ``PrepareError/cannotFit(reason:)`` says why.
struct ImageAnimationFitStep: ImageStep {
    let name = "fit animation"

    /// Encodes allowed in all, the floor once more when none of them fitted.
    static let maximumAttempts = 6
    /// A fitting result below this share of the budget is worth one try with gentler levers...
    static let undershoot = 0.75
    /// ...when that try is cheap: at most this many pixels over all frames (GIF encoding costs
    /// about 0.3 µs a pixel: 100 frames of 588×331 take 6 s on two cores).
    static let retryPixels = 8_000_000
    /// libimagequant effort for GIF palettes (1...10): 1 is twice as fast as the default 7 on
    /// large animations, for the same size and no visible difference at 256 colours.
    static let effort = 1

    func run(_ work: inout ImageWork) throws(PrepareError) {
        guard work.format == .gif else { return }
        let planner = ImageAnimationPlanStep.planner(for: work)
        let budget = work.plan.budget
        var levers = work.levers ?? planner.full
        var applied = levers
        var best: (encoded: EncodedImage, levers: AnimationLevers, selection: FrameSelection, delays: [Int])?
        var tried: [AnimationLevers] = []
        while true {
            try work.job.deadline.check(name)
            if work.image == nil || levers != applied {
                try adjust(to: levers, from: applied, work: &work)
                applied = levers
            }
            let encoded = try encode(colours: levers.colours, work: &work)
            tried.append(levers)
            work.attempts += 1
            let share = ImageAnimationPlanStep.aim * Double(budget) / planner.reference(measured: encoded.size, with: levers)
            if encoded.size <= budget {
                if best == nil || encoded.size > best!.encoded.size {
                    best = (encoded, levers, work.selection, work.delays)
                }
                guard tried.count < Self.maximumAttempts,
                      let gentler = gentler(than: levers, encoded: encoded, share: share, tried: tried, planner: planner, work: work) else { break }
                levers = gentler
                continue
            }
            // Over the budget: smaller levers while attempts last, then the floor. No budget is
            // refused before the smallest GIF was measured over it: whatever fits a budget then
            // fits every larger one.
            if best != nil, tried.count >= Self.maximumAttempts { break }
            let next = tried.count < Self.maximumAttempts ? smaller(than: levers, share: share, planner: planner) : planner.floor
            if !tried.contains(next) {
                levers = next
                continue
            }
            if best != nil { break }
            guard !tried.contains(planner.floor) else {
                throw .cannotFit(reason: "the GIF is \(encoded.size) bytes at \(encoded.width)×\(encoded.height), \(work.selection.kept.count) frame(s), \(levers.colours) colours, the smallest picture, frames and palette allowed: over the \(budget)-byte budget")
            }
            levers = planner.floor
        }
        guard let best else { throw .processing(step: name, reason: "no GIF was kept") }
        work.selection = best.selection
        work.delays = best.delays
        report(best.encoded, levers: best.levers, planner: planner, work: &work)
    }

    /// Gentler levers after a GIF came out far under the budget (below ``undershoot``), when a
    /// try is cheap (``retryPixels``) and the model predicts a larger GIF; `nil` otherwise.
    private func gentler(than levers: AnimationLevers, encoded: EncodedImage, share: Double, tried: [AnimationLevers],
                         planner: AnimationBudgetPlanner, work: borrowing ImageWork) -> AnimationLevers? {
        let volume = encoded.width * encoded.height * max(1, work.frameCount)
        guard Double(encoded.size) < Self.undershoot * Double(work.plan.budget), levers != planner.full, volume <= Self.retryPixels else { return nil }
        let gentler = planner.levers(forShare: share)
        guard planner.predictedShare(gentler) > planner.predictedShare(levers), !tried.contains(gentler) else { return nil }
        return gentler
    }

    /// Levers for a smaller GIF after a measured size over budget: the planner's choice for the
    /// corrected `share`; when the model still predicts no reduction, the picture shrinks by the
    /// byte ratio directly, down to the smallest size allowed (the same levers again when it is
    /// there: the caller then takes the floor).
    private func smaller(than levers: AnimationLevers, share: Double, planner: AnimationBudgetPlanner) -> AnimationLevers {
        let next = planner.levers(forShare: share)
        guard planner.predictedShare(next) >= planner.predictedShare(levers) else { return next }
        var shrunk = levers
        shrunk.scale = max(planner.minimumScale, levers.scale * pow(share, 1 / (2 * AnimationBudgetPlanner.pixelExponent)))
        return shrunk
    }

    /// Brings the pixels to `levers`: frames dropped and resampled in memory when only reductions
    /// are asked of pixels held in memory, else loaded again from the file.
    private func adjust(to levers: AnimationLevers, from applied: AnimationLevers, work: inout ImageWork) throws(PrepareError) {
        let reduces = levers.scale <= applied.scale && levers.frames <= work.selection.kept.count
        if work.image != nil, work.inMemory, reduces {
            try reduceInMemory(to: levers, work: &work)
        } else {
            try reload(for: levers, work: &work)
        }
    }

    /// Drops frames evenly from those in memory and resamples them to the levers' size.
    private func reduceInMemory(to levers: AnimationLevers, work: inout ImageWork) throws(PrepareError) {
        let box = work.plan.box
        let target = levers.box(inside: box)
        guard var image = work.image.take() else { return }
        let pageHeight = work.pageHeight ?? image.height
        var frames = work.frameCount
        if work.plan.animated, levers.frames < frames {
            let local = FrameSelection(total: frames, keeping: levers.frames)
            image = try ImageFailure.vips(name) { () throws(VipsError) in
                try image.stacking(strips: local.kept.map { (top: $0 * pageHeight, height: pageHeight) })
            }
            work.delays = local.mergedDelays(work.delays)
            work.selection = local.composed(after: work.selection)
            frames = local.kept.count
        }
        var newPageHeight = pageHeight
        if image.width > target.width || pageHeight > target.height {
            let box = work.plan.caps.thumbnailBox(target, width: image.width, height: pageHeight)
            let resized = try ImageFailure.vips(name) { () throws(VipsError) in
                try ImageAnimationResizeStep.resize(image, frames: frames, pageHeight: pageHeight, into: box)
            }
            newPageHeight = resized.height / max(1, frames)
            image = consume resized
        }
        work.image = try ImageFailure.vips(name) { () throws(VipsError) in try image.copyToMemory() }
        if work.pageHeight != nil { work.pageHeight = newPageHeight }
        work.loadBox = target
    }

    /// Loads the file again at the levers' size and frames, through the same steps as the first time.
    private func reload(for levers: AnimationLevers, work: inout ImageWork) throws(PrepareError) {
        ImageAnimationPlanStep.apply(levers, to: &work)
        try ImagePipeline.reload(&work)
    }

    /// One GIF encode of the current pixels with a palette of `colours`.
    private func encode(colours: Int, work: inout ImageWork) throws(PrepareError) -> EncodedImage {
        guard var image = work.image.take() else { throw .processing(step: name, reason: "no pixels to encode") }
        let pageHeight = work.pageHeight ?? image.height
        do {
            if work.plan.animated {
                image = try image.editingMetadata([.int("page-height", pageHeight), .ints("delay", GIFDelays.centisecondDelays(work.delays)),
                                                   .int("loop", work.loop ?? 0)])
            }
            let bytes = try image.gifData(colours: colours, effort: Self.effort, strip: work.strip)
            let encoded = EncodedImage(bytes: bytes, format: .gif, width: image.width, height: pageHeight, colours: colours)
            // Pixels in memory serve the next attempt; a streamed image is spent.
            if work.inMemory { work.image = consume image }
            return encoded
        } catch {
            throw ImageFailure.from(error, step: "encoding GIF")
        }
    }

    private func report(_ encoded: EncodedImage, levers: AnimationLevers, planner: AnimationBudgetPlanner, work: inout ImageWork) {
        if encoded.width < work.plan.width || encoded.height < work.plan.height { work.did(.downscaled) }
        if work.plan.animated, work.selection.dropsFrames {
            work.did(.framesDropped)
            work.notes.append("kept \(work.selection.kept.count) of \(work.selection.total) frames, evenly spread; each kept frame "
                              + "shows for its own time and that of the dropped frames after it")
        }
        if levers.colours < 256 {
            work.did(.colorsReduced)
            work.notes.append("palette reduced to \(levers.colours) colours")
        }
        if encoded.format.container == work.job.info.container,
           work.job.has(.fileTooLarge) || levers != planner.full { work.did(.reencoded) }
        let share = (Double(encoded.size) / Double(work.plan.budget) * 1000).rounded() / 10
        // The duration the GIF really lasts (its delays in centiseconds), not the source's.
        let shown = GIFDelays.centisecondDelays(work.delays).reduce(0, +)
        if work.plan.animated, GIFDelays.needsRounding(work.delays) {
            work.notes.append("frame delays rounded to whole centiseconds (GIF's unit), each error carried into the next "
                              + "frame: \(shown) ms for the source's \(work.delays.reduce(0, +)) ms")
        }
        let frames = work.plan.animated ? ", \(work.selection.kept.count) frames, \(shown) ms" : ""
        work.notes.append("GIF \(encoded.width)×\(encoded.height)\(frames): \(encoded.size) bytes (\(share) % of the "
                          + "\(work.plan.budget)-byte budget) after \(work.attempts) encode(s)")
        work.encoded = encoded
    }
}
