/// Turns any image into one that satisfies the job's profile: upright, within the pixel caps, in
/// a type the profile allows, within the byte budget. The steps run in this order, each returning
/// at once when it has nothing to do, the deadline checked before each:
///
/// 1. ``ImageFrameCapStep``: more frames than the cap → keep that many, evenly (header only).
/// 2. ``ImageAnimationPlanStep``: size, frames and colours an animation needs for its budget,
///    estimated before decoding.
/// 2a. ``ImagePhotoStep``: a big PNG without alpha judged a photograph from its top rows (it will
///    stream into a JPEG).
/// 3. ``ImageLoadStep``: shrink-on-load to the caps (`vips_thumbnail`, fail on warnings; a JPEG
///    decoded down to 1.4× the output rather than 2×), upright, ICC/CMYK → sRGB; FFmpeg for what
///    libvips cannot read (BMP, 12-bit JPEG, sequences).
/// 4. ``ImageFrameDropStep``: the kept frames of an animation, delays merged.
/// 5. ``ImageAnimationResizeStep``: an animation's kept frames resampled to the planned size.
/// 6. ``ImageColourStep``: 8-bit sRGB, or 8-bit grey for grey input.
/// 7. ``ImageMemoryStep``: decode once into memory (a damaged file fails here); a still bound for
///    JPEG/HEIC without alpha (or a PNG judged a photograph) instead streams from the decoder into
///    its first encode, as `vipsthumbnail` does, and is loaded into memory only if byte fitting
///    needs a second.
/// 8. ``ImageAlphaStep``: drop an alpha band that is opaque everywhere.
/// 9. ``ImageFormatStep``: keep the format when allowed, else JPEG, or PNG with transparency;
///    animations become animated GIFs.
/// 10. ``ImageStillFitStep``: JPEG/HEIC quality search, shrink below the floor; PNG → palette → JPEG.
/// 11. ``ImageAnimationFitStep``: GIF within budget by size, then frames, then colours.
///
/// Metadata is stripped unless ``PrepareOptions/keepMetadata`` (EXIF/XMP kept, orientation reset to
/// upright, colours already in sRGB). The bytes are encoded in memory and written once.
struct ImagePipeline: MediaPipeline {
    /// HEIF and AVIF are handed back unchanged only after a full decode: their structure check
    /// reaches the box tree and item locations, not the coded picture (a fuzzed HEIC can parse and
    /// still not decode). A JPEG's entropy-coded data are decoded by libjpeg-turbo
    /// (``JPEGDataCheck``). Other still formats' structure checks already reach the end of the data.
    func passthroughBlocker(_ job: PrepareJob) throws(PrepareError) -> String? {
        // Damage outside the picture (junk after the last box) is never handed back.
        if job.repairNote != nil { return "damage outside the picture is left out of a re-encode" }
        if job.info.container == .jpeg, let reason = JPEGDataCheck.reason(path: job.inputPath) { throw .corrupt(reason: reason) }
        guard [.heic, .heif, .avif].contains(job.info.container) else { return nil }
        if case .corrupt(let reason) = DeepCheck.check(path: job.inputPath, info: job.info, maxDecodeBytes: job.safety.maxDecodeBytes) {
            throw .corrupt(reason: reason)
        }
        return nil
    }

    /// Header-only planning, run once.
    static let planning: [any ImageStep] = [
        ImageFrameCapStep(),
        ImageAnimationPlanStep(),
        ImagePhotoStep(),
    ]

    /// From the file to the pixels the encoders take: run again, as they are, whenever byte fitting
    /// needs the pixels loaded again (``reload(_:)``).
    static let loading: [any ImageStep] = [
        ImageLoadStep(),
        ImageFrameDropStep(),
        ImageAnimationResizeStep(),
        ImageColourStep(),
        ImageMemoryStep(),
        ImageAlphaStep(),
    ]

    /// Choosing the output format and encoding within the budget.
    static let fitting: [any ImageStep] = [
        ImageFormatStep(),
        ImageStillFitStep(),
        ImageAnimationFitStep(),
    ]

    /// Every step, in order.
    static let steps = planning + loading + fitting

    /// Runs `steps` in order on `work`, the deadline checked before each.
    static func run(_ steps: [any ImageStep], on work: inout ImageWork) throws(PrepareError) {
        for step in steps {
            try work.job.deadline.check(step.name)
            try step.run(&work)
        }
    }

    /// Loads the pixels again through ``loading`` (the plan and the levers already applied stay):
    /// what byte fitting does when it needs the picture again, in memory or at another size.
    static func reload(_ work: inout ImageWork) throws(PrepareError) {
        work.image = nil
        work.pageHeight = nil
        work.delays = []
        work.inMemory = false
        try run(loading, on: &work)
    }

    /// The JPEG libvips decodes for `reader` (the file, or a camera raw's preview), checked by
    /// ``JPEGDataCheck`` on another thread; `nil` for other pictures.
    static func jpegCheck(path: String, info: MediaInfo, reader: ImagePlan.Reader) -> JPEGDataCheck.Background? {
        switch reader {
        case .vips where info.container == .jpeg:
            return JPEGDataCheck.Background { JPEGDataCheck.fileBytes(path: path) }
        case .embeddedPreview:
            guard let raw = info.cameraRaw else { return nil }
            return JPEGDataCheck.Background { CameraRawPreview.jpeg(path: path, raw: raw) }
        default:
            return nil
        }
    }

    func run(_ job: PrepareJob, into output: borrowing AtomicOutput) throws(PrepareError) -> PipelineResult {
        var work = ImageWork(job: job, plan: try ImagePlan(job: job))
        let jpegCheck = Self.jpegCheck(path: job.inputPath, info: job.info, reader: work.plan.reader)
        let stepsFailure: PrepareError?
        do {
            try Self.run(Self.steps, on: &work)
            stepsFailure = nil
        } catch {
            stepsFailure = error
        }
        // libjpeg's verdict on the data comes first: libvips' may only be its consequence.
        if let reason = jpegCheck?.reason() { throw .corrupt(reason: reason) }
        if let stepsFailure { throw stepsFailure }
        guard let encoded = work.encoded else {
            throw .processing(step: "encoding", reason: "no step produced an image")
        }
        guard encoded.size <= job.profile.image.maxBytes else {
            throw .cannotFit(reason: "\(encoded.size) bytes is over the \(job.profile.image.maxBytes)-byte budget")
        }
        do {
            try output.write(encoded.bytes)
        } catch {
            throw .output(error)
        }
        return PipelineResult(container: encoded.format.container, kind: .image, actions: work.actions,
                              quality: encoded.quality, attempts: max(1, work.attempts), notes: work.notes)
    }
}
