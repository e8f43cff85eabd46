/// Every stable error code AttachKit gives, in one place: what `probe`, `validate --deep`,
/// `prepare`, `thumbnail`, `batch` and `serve` put in `error.code` (the raw value is the wire
/// text, e.g. `over-cap`), and what each front end does with it.
///
/// Each error type (``ProbeError``, ``PrepareError``, ``AccessError``, ``OutputError``,
/// ``ProfileError``, ``WorkerFailure``, ``ServiceError``, ``OptionsError``) reports its code as
/// one of these cases, so the same input gives the same code whichever verb or front end meets it.
public enum ErrorCode: String, Sendable, CaseIterable, CustomStringConvertible {
    // MARK: Access

    /// The input (or the folder of an output) does not exist.
    case notFound = "not-found"
    /// The path resolves outside every allowed scope, no scope was granted, or it kept changing
    /// while being opened.
    case accessDenied = "access-denied"
    /// Inside a scope but not readable as a file: permissions, a folder, a FIFO, a device.
    case unreadable

    // MARK: The input

    /// The file has no bytes.
    case empty
    /// The bytes are no media format AttachKit knows (text, JSON, unknown binary).
    case unrecognizedType = "unrecognized-type"
    /// Broken structure, or (decoding) data that does not decode.
    case corrupt
    /// Over a safety cap (pixels, frames, duration, streams, decode memory...), refused before
    /// any decoding.
    case overCap = "over-cap"
    /// The budget cannot be met above the quality floor, minimum bitrate or shortest duration.
    case cannotFit = "cannot-fit"
    /// No conversion exists from this input to an allowed type (or no picture for a thumbnail), or
    /// a codec or image item type the decoders here cannot decode (it cannot be verified).
    case unsupported
    /// The media is encrypted (DRM: CENC `cenc`/`cbcs`, FairPlay): a notification cannot play it.
    case encrypted

    // MARK: The work

    /// The time budget (`deadline`) ran out.
    case deadlineExceeded = "deadline-exceeded"
    /// libvips or FFmpeg failed while decoding, processing or encoding; or no worker process
    /// could be started.
    case processingFailed = "processing-failed"
    /// The output (or a batch's manifest line) could not be written: a full disk, permissions.
    case writeFailed = "write-failed"
    /// The output, re-probed and re-validated, still breaks the profile (a bug guard: never shipped).
    case outputInvalid = "output-invalid"

    // MARK: Planned paths (issue 27)

    /// A path the request names for writing (a thumbnail's `out`) is an input of the run (by name,
    /// ignoring letter case and Unicode normalization, or the same file through a link), or
    /// another path the run writes: refused before anything is written (HTTP 409).
    case outputCollision = "output-collision"

    // MARK: Worker processes (batch, serve)

    /// The worker process died (a signal, or an exit in the middle of a job).
    case crashed
    /// The worker went over its memory limit.
    case overMemory = "over-memory"
    /// The job used more CPU or wall-clock time than allowed.
    case timedOut = "timed-out"

    // MARK: Requests and options

    /// A `serve` line (or an HTTP request) that is not a request: not JSON, not an object,
    /// missing or mistyped fields, a query string that does not parse.
    case malformedRequest = "malformed-request"
    /// A `serve` request whose `op` is none of probe, validate, prepare, thumbnail.
    case unknownOp = "unknown-op"
    /// An unknown option, or a value outside what it accepts (``OptionLimits``).
    case badOptions = "bad-options"
    /// A profile name that is neither built in nor a policy file.
    case unknownProfile = "unknown-profile"
    /// A JSON policy that is not valid (bad JSON, an unknown key, a value out of range).
    case invalidProfile = "invalid-profile"

    // MARK: A server's own state (`attachkit http`)

    /// Every work slot and queue place is taken: try again shortly (HTTP 429).
    case busy
    /// Not ready (workers down, spool not writable) or shutting down (HTTP 503).
    case unavailable

    // MARK: URL mode's origin (`attachkit http`, `GET /v1/attach/...`)

    /// The media origin failed: it could not be reached, answered 5xx or a 4xx other than 404,
    /// redirected more than 3 times, broke off a transfer, or did not answer in time (HTTP 502;
    /// 504 for a timeout). Retryable: the origin may be back.
    case originFailed = "origin-failed"

    // MARK: A request's head (`attachkit http`, RFC 9112)

    /// A `Transfer-Encoding` naming a coding other than `chunked` (with `chunked` last): the
    /// server cannot decode the body (HTTP 501).
    case unsupportedCoding = "unsupported-coding"
    /// An HTTP version other than 1.0 and 1.1 (HTTP 505).
    case unsupportedVersion = "unsupported-version"
    /// A request's head (request line and header fields) over ``RequestHead/maxBytes`` (HTTP 431).
    case headerTooLarge = "header-too-large"

    // MARK: Access-handle misuse (a bug in the caller)

    /// An access handle was released a second time.
    case doubleRelease = "double-release"
    /// An access handle went away without being released.
    case handleLeak = "handle-leak"

    /// The wire text (`over-cap`), so messages read `over-cap: ...` wherever a code is printed.
    public var description: String { rawValue }

    /// Whether a batch rerun tries the input again: a failure that may pass next time (a full
    /// disk, a deadline, an I/O error, a file that was missing or not readable yet). Every other
    /// failure is final for the same bytes and options (corrupt, not media, encrypted, over a cap,
    /// cannot fit, a crashed worker...), and a rerun skips it.
    public var isRetryable: Bool {
        switch self {
        case .writeFailed, .deadlineExceeded, .processingFailed, .accessDenied, .unreadable, .notFound, .busy, .unavailable, .originFailed: return true
        default: return false
        }
    }

    /// The exit status of an `attachkit` command that met this error: 64 (usage) for what the
    /// caller asked wrongly (options, profile, request), 70 (software) for a leaked or doubly
    /// released access handle, 1 for everything about an input.
    public var exitStatus: Int32 {
        switch self {
        case .badOptions, .unknownProfile, .invalidProfile, .malformedRequest, .unknownOp: return 64
        case .unsupportedCoding, .unsupportedVersion, .headerTooLarge: return 64
        case .doubleRelease, .handleLeak: return 70
        default: return 1
        }
    }

    /// The HTTP status `attachkit http` answers with (one table, here). `encrypted` is 415
    /// (Unsupported Media Type), like `unsupported`: the bytes are well formed, it is their kind (DRM-protected) that is refused; 422 stays for
    /// content that is broken or cannot be fitted.
    public var httpStatus: Int {
        switch self {
        case .malformedRequest, .unknownOp, .badOptions, .unknownProfile, .invalidProfile: return 400
        case .outputCollision: return 409
        case .accessDenied: return 403
        case .notFound: return 404
        case .overCap, .overMemory: return 413
        case .unrecognizedType, .unsupported, .encrypted: return 415
        case .empty, .corrupt, .cannotFit, .unreadable: return 422
        case .timedOut, .deadlineExceeded: return 504
        case .busy: return 429
        case .unavailable: return 503
        case .unsupportedCoding: return 501
        case .originFailed: return 502
        case .unsupportedVersion: return 505
        case .headerTooLarge: return 431
        case .processingFailed, .writeFailed, .outputInvalid, .crashed, .doubleRelease, .handleLeak: return 500
        }
    }
}

/// An error with a stable ``ErrorCode`` and a message for people: what every front end prints as
/// `{"code", "message"}` (or `code: message`).
public protocol CodedError: Error, Sendable {
    var code: ErrorCode { get }
    /// What went wrong, for people; names the path or value concerned.
    var message: String { get }
}

extension CodedError {
    /// `{"code", "message"}`: the `error` object of every JSON report and `serve` answer.
    package var json: JSONValue { .object([("code", .string(code.rawValue)), ("message", .string(message))]) }
}
