/// What one run of a batch will do, decided before any file is prepared (``BatchRunner/plan()``):
/// the folders, every input's output name, this shard's inputs in the order they start, what
/// earlier runs finished, and what the walk could not look at. It holds the run's locks (the
/// manifest's and the output folder's split) until it is dropped, at the end of
/// ``BatchRunner/execute(_:stop:start:onEvent:)``.
struct BatchPlan: ~Copyable, Sendable {
    /// The input and output folders (real paths).
    let inputRoot: String
    let outputRoot: String
    /// Output folder and stem of every input, all shards included (so shards agree on names).
    let layout: OutputLayout
    /// This shard's inputs to work on (relative paths), costliest first (``InputCost``): the
    /// longest work starts early instead of leaving one core busy at the end. Entries the walk
    /// could not look at (``unwalkable``) come last.
    let order: [String]
    /// This shard's inputs an earlier run finished for good with these options and these bytes:
    /// not worked on again (the header and the summary both count these).
    let skipped: [String]
    /// Entries of this shard the walk could not list or look at, each with the reason: each is
    /// recorded as a failure (`unreadable`), never dropped.
    let unwalkable: [ExactPath: String]
    /// Bytes of this shard's inputs.
    let bytes: Int64
    /// The line that makes each skipped input done (this shard's, or one copied from another split's manifest).
    let finished: [ExactPath: BatchManifest.Entry]
    /// Files earlier runs (any options) wrote for each input, relative to the output root.
    let earlierFiles: [ExactPath: Set<RecordedFile>]
    /// ``PrepareOptions/fingerprint`` of this run's options.
    let optionsHash: String
    /// Grants reads beneath the input folder and writes beneath the output folder.
    let ledger: AccessLedger
    /// The open manifest (it holds this shard's ``BatchLock``).
    let manifest: BatchManifest
    /// The hold on the output folder's split.
    private let split: BatchSplitLock

    init(inputRoot: String, outputRoot: String, layout: OutputLayout, order: [String], skipped: [String], unwalkable: [ExactPath: String],
         bytes: Int64, finished: [ExactPath: BatchManifest.Entry], earlierFiles: [ExactPath: Set<RecordedFile>], optionsHash: String,
         ledger: AccessLedger, manifest: BatchManifest, split: consuming BatchSplitLock) {
        self.inputRoot = inputRoot
        self.outputRoot = outputRoot
        self.layout = layout
        self.order = order
        self.skipped = skipped
        self.unwalkable = unwalkable
        self.bytes = bytes
        self.finished = finished
        self.earlierFiles = earlierFiles
        self.optionsHash = optionsHash
        self.ledger = ledger
        self.manifest = manifest
        self.split = split
    }

    /// The descriptors of the run's locks, which its worker processes inherit and hold while they
    /// live (``BatchLock``).
    var lockDescriptors: [Int32] { [manifest.lockDescriptor, split.descriptor.rawValue] }
}
