/// One input of a batch, once finished (or skipped because an earlier run finished it).
public struct BatchItem: Sendable {
    /// Path relative to the input folder.
    public let relativePath: String
    /// `true` when resume found it done by an earlier run with the same options and content.
    public let skipped: Bool
    /// This run's outcome; `nil` when skipped.
    public let outcome: PrepareOutcome?
    /// Whether the input has a valid output (this run or the earlier one).
    public let ok: Bool
    public let inputBytes: Int64
    public let outputBytes: Int64
    public let elapsedMilliseconds: Double
    /// For a skipped input that an earlier run recorded as failed: that failure (code, message).
    public var recordedFailure: (code: ErrorCode, message: String)? = nil
}

/// What a batch tells its caller as it goes (from worker threads).
public enum BatchEvent: Sendable {
    /// The plan: files in this shard, of which `skipped` were already done, and where the work
    /// runs (`in-process`, or `N worker process(es), sandbox: landlock|none`).
    case planned(total: Int, skipped: Int, bytes: Int64, isolation: String)
    case finished(BatchItem)
    /// With ``BatchOptions/fileProgress``, after ``planned(total:skipped:bytes:isolation:)``: the
    /// inputs this run prepares (not already done) and their bytes.
    case queued(files: Int, bytes: Int64)
    /// With ``BatchOptions/fileProgress``: an input's preparation starts (`bytes`: its size).
    case started(relativePath: String, bytes: Int64)
    /// With ``BatchOptions/fileProgress``: the share (0...1) of an input's audio or video output
    /// written so far, a few times a second while it is encoded (each fitting attempt from 0).
    case progress(relativePath: String, fraction: Double)
}
