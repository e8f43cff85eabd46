/// Why a file could not be probed. ``code`` is stable and machine-readable; ``message`` is for people.
public enum ProbeError: CodedError, Equatable, CustomStringConvertible {
    /// Access was refused (missing file, or a path outside every allowed scope).
    case access(AccessError)
    /// The file could not be opened or read (permissions, a folder instead of a file).
    case unreadable(path: String, reason: String)
    /// The file has no bytes.
    case empty(path: String)
    /// The bytes match no media format AttachKit knows (text, JSON, unknown binary).
    case unrecognized(path: String, detail: String)
    /// The bytes start like `container` but its header cannot be parsed.
    case corruptHeader(path: String, container: Container, detail: String)
    /// A header libavformat cannot read over media that is encrypted (CENC `encv`/`enca`,
    /// `pssh`, `senc`): DRM, not damage; `detail` says what marks it.
    case encrypted(path: String, container: Container, detail: String)
    /// A `container` whose content the decoders here cannot read (a HEIF `unci` item): neither
    /// broken nor verifiable; `detail` names what and which decoder lacks it.
    case unsupported(path: String, container: Container, detail: String)
    /// The header declares more than a ``SafetyLimits`` cap allows of what libavformat would
    /// build before anything is decoded (an MP4's sample tables): not handed to it.
    case overCap(path: String, violation: SafetyViolation)

    /// Stable code: `not-found`, `access-denied`, `unreadable`, `empty`, `unrecognized-type`,
    /// `corrupt`, `encrypted`, `unsupported`, `over-cap`.
    public var code: ErrorCode {
        switch self {
        case .access(let error): return error.code
        case .unreadable: return .unreadable
        case .empty: return .empty
        case .unrecognized: return .unrecognizedType
        case .corruptHeader: return .corrupt
        case .encrypted: return .encrypted
        case .unsupported: return .unsupported
        case .overCap: return .overCap
        }
    }

    public var message: String {
        switch self {
        case .access(let error): return error.description
        case .unreadable(_, let reason): return "cannot read the file: \(reason)"
        case .empty: return "the file is empty (0 bytes)"
        case .unrecognized(_, let detail): return "not a recognised media format (\(detail))"
        case .corruptHeader(_, let container, let detail): return "looks like \(container) but its header cannot be read: \(detail)"
        case .encrypted(_, _, let detail): return "DRM-protected media cannot play in a notification: \(detail)"
        case .unsupported(_, let container, let detail): return "\(container): \(detail)"
        case .overCap(_, let violation): return "not read: \(violation)"
        }
    }

    public var description: String { "\(code): \(message)" }
}
