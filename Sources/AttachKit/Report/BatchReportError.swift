/// Why a batch report could not be written. Nothing is left behind: the report is written under
/// a temporary name and renamed into place only when whole.
public enum BatchReportError: CodedError, Equatable, CustomStringConvertible {
    /// The folder holds no batch manifest (`manifest.jsonl`, `manifest-shard-I-of-N.jsonl`), or
    /// is not a folder (`not-found`).
    case noManifest(String)
    /// The report's path names a file the report may not replace: one that is not a batch report
    /// AttachKit wrote, or an input of the batch (`output-collision`), or the report cannot be
    /// written there (`write-failed`, `access-denied`).
    case output(OutputError)

    public var code: ErrorCode {
        switch self {
        case .noManifest: return .notFound
        case .output(let error): return error.code
        }
    }

    public var message: String {
        switch self {
        case .noManifest(let folder): return "\(folder) holds no batch manifest (manifest.jsonl or manifest-shard-I-of-N.jsonl): give the OUT_DIR of a batch"
        case .output(let error): return error.description
        }
    }

    public var description: String { "\(code): \(message)" }
}
