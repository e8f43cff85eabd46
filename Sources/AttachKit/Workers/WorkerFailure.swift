/// Why a job sent to a worker process got no answer: the worker died or broke a limit. Only that
/// job fails; the pool starts a new worker.
public enum WorkerFailure: CodedError, Equatable, CustomStringConvertible {
    /// The worker died by `signal` (a decoder crash, an abort...). `detail` is the last line it
    /// wrote to stderr, when there was one.
    case crashed(signal: Int32, detail: String?)
    /// The worker exited on its own, with `status`, in the middle of a job.
    case exited(status: Int32, detail: String?)
    /// The worker's resident memory passed the limit (it was killed), or an allocation failed.
    case overMemory(limitBytes: Int64, seenBytes: Int64)
    /// The job used more CPU time (`cpu`) or wall time than allowed (it was killed).
    case timedOut(limitSeconds: Double, cpu: Bool)
    /// No worker could be started (the executable is missing, `posix_spawn` failed).
    case unavailable(reason: String)

    /// Stable code: `crashed`, `over-memory`, `timed-out`, `processing-failed` (no worker).
    public var code: ErrorCode {
        switch self {
        case .crashed, .exited: return .crashed
        case .overMemory: return .overMemory
        case .timedOut: return .timedOut
        case .unavailable: return .processingFailed
        }
    }

    public var message: String {
        switch self {
        case .crashed(let signal, let detail):
            return "the worker process died of \(Self.signalName(signal)) on this input" + (detail.map { " (\($0))" } ?? "")
        case .exited(let status, let detail):
            return "the worker process exited with status \(status) on this input" + (detail.map { " (\($0))" } ?? "")
        case .overMemory(let limit, let seen):
            return "the worker process went over its memory limit of \(limit >> 20) MiB (\(seen >> 20) MiB resident) on this input"
        case .timedOut(let limit, let cpu):
            return "the job used more than its \(Int(limit)) s of \(cpu ? "CPU" : "wall-clock") time; the worker was stopped"
        case .unavailable(let reason):
            return "no worker process could be started: \(reason)"
        }
    }

    public var description: String { "\(code): \(message)" }

    /// `SIGSEGV`, `SIGABRT`... (the number for signals without a usual name).
    static func signalName(_ signal: Int32) -> String {
        Signal(rawValue: signal).name
    }
}
