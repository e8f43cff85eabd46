/// What a pipeline is asked to do for one input.
struct PrepareJob: Sendable {
    /// Resolved path of the input (read access is held by the caller for the whole job).
    let inputPath: String
    /// The probed input.
    let info: MediaInfo
    /// The input's findings under ``profile``: what the pipeline must cure.
    let findings: [Diagnostic]
    /// The profile with this run's budgets applied (``PrepareOptions/effectiveProfile``).
    let profile: Profile
    let options: PrepareOptions
    /// The caps the input already passed; decoders are bounded by them too.
    let safety: SafetyLimits
    let deadline: Deadline

    /// Whether the input has a finding with this code.
    func has(_ code: Diagnostic.Code) -> Bool { findings.contains { $0.code == code && $0.severity == .error } }

    /// The note of a rewrite that left out damage players step over (``Diagnostic/Code/recoverableDamage``:
    /// such an input is never handed back as it is); `nil` without such damage.
    var repairNote: String? {
        findings.first { $0.code == .recoverableDamage }.map { "repaired: \($0.message); the output is a clean copy" }
    }
}

/// What a pipeline produced in the job's output file.
struct PipelineResult: Sendable {
    /// The container of the bytes written (chooses the output's extension).
    var container: Container
    /// The kind of the bytes written (an audio-only MP4 is `.m4a`).
    var kind: MediaKind
    var actions: [PrepareAction] = []
    var quality: Int?
    var bitRate: Int?
    var attempts = 1
    var trimStart: Double?
    var trimDuration: Double?
    var notes: [String] = []
    /// Some stream's data went into the output without being decoded (a stream copy): the output
    /// is then decoded in full before it is handed back, as a passthrough is.
    var copiedWithoutDecoding = false
}

/// The ordered steps that turn one kind of input into a fitting attachment. Each pipeline checks
/// the job's deadline between steps, writes only into `output.temporaryPath`, and throws
/// ``PrepareError`` (never leaving a partial file: the caller deletes the temporary on failure).
protocol MediaPipeline: Sendable {
    /// Why an input that already satisfies the profile must still go through ``run(_:into:)``
    /// instead of being handed back byte for byte (`nil`: pass it through). Throws when the check
    /// finds the input broken.
    func passthroughBlocker(_ job: PrepareJob) throws(PrepareError) -> String?

    func run(_ job: PrepareJob, into output: borrowing AtomicOutput) throws(PrepareError) -> PipelineResult
}

extension MediaPipeline {
    func passthroughBlocker(_ job: PrepareJob) throws(PrepareError) -> String? { nil }
}

/// The pipeline for each kind of media.
enum Pipelines {
    /// The pipeline that prepares `kind`, or `nil` for content that is not media.
    static func pipeline(for kind: MediaKind) -> (any MediaPipeline)? {
        switch kind {
        case .image: return ImagePipeline()
        case .audio, .video: return AudioVideoPipeline()
        case .unknown: return nil
        }
    }
}
