/// How a batch runs.
public struct BatchOptions: Sendable {
    /// The folder whose files are prepared (recursively).
    public var inputRoot: String
    /// Where outputs go, mirroring the input folders; holds the manifest.
    public var outputRoot: String
    /// Profile, budgets and thumbnail settings; `outputFolder` is set per input.
    public var prepare: PrepareOptions
    /// Files prepared at once. Default: the number of cores.
    public var jobs: Int
    /// The part of the input set this run handles. Default ``Shard/all``.
    public var shard: Shard
    public var safety: SafetyLimits
    /// Where the media work runs. Default ``Isolation/inProcess`` for the library; `attachkit
    /// batch` uses worker processes unless told `--in-process`.
    public var isolation: Isolation
    /// Prepare again the inputs an earlier run recorded as failed for good (the same bytes and
    /// options); by default they are skipped and counted as failed, so a rerun exits 1 while they
    /// stand. Default `false`.
    public var retryFailed = false
    /// Also report each input as it starts and its encode's progress (``BatchEvent/queued(files:bytes:)``,
    /// ``BatchEvent/started(relativePath:bytes:)``, ``BatchEvent/progress(relativePath:fraction:)``);
    /// worker processes are then asked for progress lines. Default off.
    public var fileProgress = false

    public init(inputRoot: String, outputRoot: String, prepare: PrepareOptions, jobs: Int = BatchOptions.coreCount,
                shard: Shard = .all, safety: SafetyLimits = SafetyLimits(), isolation: Isolation = .inProcess) {
        self.inputRoot = inputRoot
        self.outputRoot = outputRoot
        self.prepare = prepare
        self.jobs = max(1, jobs)
        self.shard = shard
        self.safety = safety
        self.isolation = isolation
    }

    /// Cores available to this process.
    public static var coreCount: Int { SystemProcess.processorCount }

    /// The manifest's file name: `manifest.jsonl`, or `manifest-shard-I-of-N.jsonl` for one shard.
    public var manifestName: String { Self.manifestName(shard) }

    private static func manifestName(_ shard: Shard) -> String {
        shard.count == 1 ? "manifest.jsonl" : "manifest-shard-\(shard.index)-of-\(shard.count).jsonl"
    }

    /// Every shard's manifest name, this split's (`manifest.jsonl` alone when unsplit).
    var manifestNames: [String] {
        (0..<shard.count).compactMap { try? Shard(index: $0, count: shard.count) }.map(Self.manifestName)
    }

    /// What the runs of this split write in the output root itself, with what each is: every
    /// shard's manifest, its lock (``BatchLock``) and compaction temporary, and the split's lock
    /// files (``BatchSplitLock``). The same for every shard, so every shard plans the same names.
    var rootFiles: [(name: String, role: String)] {
        manifestNames.flatMap { name in
            [(name, "the batch manifest"), (name + BatchLock.suffix, "the batch manifest's lock"),
             (name + BatchManifest.compactionSuffix, "the batch manifest's compaction temporary")]
        } + BatchSplitLock.fileNames.map { ($0, "the batch split lock") }
    }
}
