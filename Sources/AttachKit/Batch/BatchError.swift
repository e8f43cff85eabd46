/// Why a batch could not run at all.
public enum BatchError: Error, Sendable, CustomStringConvertible {
    case inputFolder(String)
    case outputFolder(String)
    /// The output folder is the input folder or contains it.
    case overlappingFolders(input: String, output: String)
    case manifest(String)
    /// The worker processes could not be started.
    case workers(String)
    /// Another run (`pid`, when it could be read) holds the lock of this manifest: the same output
    /// folder and shard are being prepared right now.
    case busy(manifest: String, pid: Int32?)
    /// The run `pid` that held this manifest is gone, but its worker processes still held the
    /// lock after ``BatchLock/survivorWait``: a new run would write beside them.
    case survivors(manifest: String, pid: Int32)
    /// Runs with another split (unsharded, or another shard count) are writing the same output
    /// folder: their outputs would overwrite each other.
    case otherSplit(folder: String, shards: Int?)

    public var description: String {
        switch self {
        case .inputFolder(let path): return "input folder \(path) does not exist or cannot be read"
        case .outputFolder(let path): return "output folder \(path) cannot be created"
        case .overlappingFolders(let input, let output):
            return "the output folder \(output) is, or contains, the input folder \(input): choose an output folder apart from the input folder"
        case .manifest(let reason): return "cannot write the manifest: \(reason)"
        case .workers(let reason): return reason
        case .otherSplit(let folder, let shards):
            let split = shards.map { $0 == 1 ? "an unsharded batch" : "batches split into \($0) shards" } ?? "another batch"
            return "\(split) (see \(folder)/.attachkit-batch.lock) is writing \(folder): runs of one output folder must all be unsharded or all use the same shard count"
        case .survivors(let manifest, let pid):
            return "batch pid \(pid), which wrote \(manifest), is gone, but its worker processes still hold \(manifest).lock: wait for them to end (they die with their batch), then run again"
        case .busy(let manifest, let pid):
            return "another batch (\(pid.map { "pid \($0)" } ?? "pid unknown")) is writing \(manifest) (it holds \(manifest).lock until it ends)"
        }
    }
}
