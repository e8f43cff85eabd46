/// Why a file could not be prepared. Nothing is written when preparation fails.
public enum PrepareError: CodedError, Equatable, CustomStringConvertible {
    /// Not media, empty, or not readable (see the probe error's code).
    case probe(ProbeError)
    /// The input is broken (what iOS reports as attachment corrupt).
    case corrupt(reason: String)
    /// A safety cap refused the input before any decoding (pixels, frames, duration, streams...).
    case overCap(SafetyViolation)
    /// The budget cannot be met without going under the quality floor / minimum bitrate / duration.
    case cannotFit(reason: String)
    /// No conversion exists from this input to an allowed type, or the decoders here cannot
    /// decode its codec or item type.
    case unsupported(reason: String)
    /// The input is encrypted (DRM): a notification cannot play it.
    case encrypted(reason: String)
    /// The time budget ran out at `step`.
    case deadlineExceeded(step: String, budget: Double)
    /// libvips or FFmpeg failed while decoding, processing or encoding.
    case processing(step: String, reason: String)
    /// The output could not be written (disk full, permission denied, out of scope).
    case output(OutputError)
    /// The output, re-probed and re-validated, still breaks the profile (a bug guard: never shipped).
    case outputInvalid(reason: String)

    /// Stable code: `unrecognized-type`, `corrupt`, `over-cap`, `cannot-fit`, `unsupported`,
    /// `deadline-exceeded`, `processing-failed`, `write-failed`, `access-denied`, `output-invalid`...
    public var code: ErrorCode {
        switch self {
        case .probe(let error): return error.code
        case .corrupt: return .corrupt
        case .overCap: return .overCap
        case .cannotFit: return .cannotFit
        case .unsupported: return .unsupported
        case .encrypted: return .encrypted
        case .deadlineExceeded: return .deadlineExceeded
        case .processing: return .processingFailed
        case .output(let error): return error.code
        case .outputInvalid: return .outputInvalid
        }
    }

    public var message: String {
        switch self {
        case .probe(let error): return error.message
        case .corrupt(let reason): return "the input is corrupt: \(reason)"
        case .overCap(let violation): return "refused before decoding: \(violation)"
        case .cannotFit(let reason): return "cannot fit the budget: \(reason)"
        case .unsupported(let reason): return reason
        case .encrypted(let reason): return "DRM-protected media cannot play in a notification: \(reason)"
        case .deadlineExceeded(let step, let budget): return "the \(budget) s deadline ran out during \(step)"
        case .processing(let step, let reason): return "\(step) failed: \(reason)"
        case .output(let error): return "cannot write the output: \(error.description)"
        case .outputInvalid(let reason): return "the output failed re-validation: \(reason)"
        }
    }

    public var description: String { "\(code): \(message)" }
}

extension PrepareError {
    /// The refusal a structure check's verdict means: `corrupt` for a broken layout (or no
    /// samples), `over-cap` for a layout over a cap, `encrypted` for DRM-protected media,
    /// `unsupported` for a codec the decoders here lack; `nil` when intact or not checked.
    init?(_ verdict: StructureVerdict) {
        switch verdict {
        case .corrupt(let reason): self = .corrupt(reason: reason)
        case .overCap(let violation): self = .overCap(violation)
        case .encrypted(let reason): self = .encrypted(reason: reason)
        case .undecodable(let reason): self = .unsupported(reason: reason)
        case .intact, .recoverable, .notChecked: return nil
        }
    }
}
