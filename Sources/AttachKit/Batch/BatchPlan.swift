/// What one run of a batch will do, decided before any file is prepared (``BatchRunner/plan()``):
/// the folders, every input's output name, this shard's inputs in the order they start, and what
/// earlier runs finished. It holds the run's locks (the manifest's and the output folder's split)
/// until it is dropped, at the end of ``BatchRunner/execute(_:stop:start:onEvent:)``.
struct BatchPlan: ~Copyable, Sendable {
    /// The input and output folders (real paths).
    let inputRoot: String
    let outputRoot: String
    /// Output folder and stem of every input, all shards included (so shards agree on names).
    let layout: OutputLayout
    /// This shard's inputs (relative paths), largest first: the longest work starts early instead
    /// of leaving one core busy at the end.
    let order: [String]
    /// Bytes of this shard's inputs.
    let bytes: Int64
    /// The finished line of an earlier run with the same options, by input.
    let finished: [String: BatchManifest.Entry]
    /// Files earlier runs (any options) wrote for each input, relative to the output root.
    let earlierFiles: [String: Set<String>]
    /// ``PrepareOptions/fingerprint`` of this run's options.
    let optionsHash: String
    /// Grants reads beneath the input folder and writes beneath the output folder.
    let ledger: AccessLedger
    /// The open manifest (it holds this shard's ``BatchLock``).
    let manifest: BatchManifest
    /// The hold on the output folder's split.
    private let split: BatchSplitLock

    init(inputRoot: String, outputRoot: String, layout: OutputLayout, order: [String], bytes: Int64,
         finished: [String: BatchManifest.Entry], earlierFiles: [String: Set<String>], optionsHash: String, ledger: AccessLedger,
         manifest: BatchManifest, split: consuming BatchSplitLock) {
        self.inputRoot = inputRoot
        self.outputRoot = outputRoot
        self.layout = layout
        self.order = order
        self.bytes = bytes
        self.finished = finished
        self.earlierFiles = earlierFiles
        self.optionsHash = optionsHash
        self.ledger = ledger
        self.manifest = manifest
        self.split = split
    }

    /// Inputs an earlier run finished for good (skipped unless their bytes changed since).
    var skipped: Int { order.filter { finished[$0]?.isFinal == true }.count }
}
