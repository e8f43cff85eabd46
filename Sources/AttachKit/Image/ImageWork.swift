/// The state the image steps pass along: the job, the header-only plan, the pixels so far
/// (exactly one owner), and what has been decided and done.
struct ImageWork: ~Copyable {
    let job: PrepareJob
    let plan: ImagePlan

    /// The pixels: lazy after loading, in memory after ``ImageMemoryStep``. Animations are one tall
    /// image, frames stacked (``pageHeight`` rows each).
    var image: VipsImage?
    /// Size to load at (upright): the caps' box, or smaller when an animation is planned smaller.
    var loadBox: (width: Int, height: Int)
    /// Frames of the input to keep (animations).
    var selection: FrameSelection
    /// Frames left after the profile's frame cap (``ImageFrameCapStep``), before byte fitting.
    var cappedFrames: Int
    /// Rows per frame of an animation in ``image``; `nil` for a still.
    var pageHeight: Int?
    /// Milliseconds per kept frame (animations).
    var delays: [Int] = []
    /// Loop count of an animation (0 = forever).
    var loop: Int?
    /// The animation levers planned from the header (size, frames, colours), when any must move.
    var levers: AnimationLevers?
    /// Whether ``image`` holds its pixels in memory (else it is a lazy, read-once pipeline).
    var inMemory = false
    /// Whether ``ImageMemoryStep`` holds the pixels even when the picture could stream into one
    /// encode: set when byte fitting needs a second encode of a picture that streamed into its first.
    var holdPixels = false
    /// Whether the alpha band holds real transparency (an all-opaque one is dropped).
    var meaningfulAlpha = false
    /// A PNG judged a photograph before decoding (``ImagePhotoStep``): it streams into a JPEG.
    var photo: PhotoEstimate.Verdict?
    /// The format chosen for the output.
    var format: ImageFormat?
    /// The bytes to write.
    var encoded: EncodedImage?

    var actions: [PrepareAction] = []
    var notes: [String] = []
    /// What loading has told in ``notes``: each once, however often byte fitting loads again.
    var toldOnLoad: Set<LoadNote> = []
    /// Encodes tried.
    var attempts = 0

    init(job: PrepareJob, plan: ImagePlan) {
        self.job = job
        self.plan = plan
        self.loadBox = plan.box
        self.selection = .all(plan.frames)
        self.cappedFrames = plan.frames
    }

    /// Records an action once, in the order first done.
    mutating func did(_ action: PrepareAction) {
        if !actions.contains(action) { actions.append(action) }
    }

    /// Appends `note` unless `fact` was told already.
    mutating func noteOnce(_ fact: LoadNote, _ note: String) {
        if toldOnLoad.insert(fact).inserted { notes.append(note) }
    }

    /// Frames in ``image`` (1 for a still): one delay per frame of an animation.
    var frameCount: Int { pageHeight == nil ? 1 : max(1, delays.count) }

    /// Metadata is kept only when asked (and then never a stale orientation).
    var strip: Bool { !job.options.keepMetadata }
}

/// A finding of ``ImageLoadStep`` that the notes tell once.
enum LoadNote: Hashable, Sendable {
    /// The picture was loaded smaller than its upright size.
    case downscaled
    /// The decode budget, not the profile, set the load size.
    case memoryLimited
    /// An animation kept as its first frame (the profile allows no GIF).
    case firstFrameOnly
    /// Only one page of a multi-page picture kept (TIFF pages, HEIF top-level images).
    case pagesDropped
    /// A GIF screen over ``DecoderLimits/gifScreenEdge`` cut to what libnsgif composes.
    case screenCropped
    /// A camera raw shown as its embedded JPEG preview.
    case embeddedPreview
}
