/// Why a profile could not be loaded.
public enum ProfileError: CodedError, Equatable, CustomStringConvertible {
    /// Neither a built-in profile name nor an existing file.
    case unknown(name: String)
    /// The policy file could not be read.
    case unreadable(path: String, reason: String)
    /// The policy file is not valid: bad JSON, an unknown key, a wrong value. `at` is the key path.
    case invalid(source: String, at: String, reason: String)

    /// Stable code: `unknown-profile`, `unreadable`, `invalid-profile`.
    public var code: ErrorCode {
        switch self {
        case .unknown: return .unknownProfile
        case .unreadable: return .unreadable
        case .invalid: return .invalidProfile
        }
    }

    public var message: String { description }

    public var description: String {
        switch self {
        case .unknown(let name):
            return "no profile named \(name.debugDescription): use \(Profile.builtIn.keys.sorted().joined(separator: ", ")) or a path to a .json policy"
        case .unreadable(let path, let reason): return "cannot read policy \(path): \(reason)"
        case .invalid(let source, let at, let reason): return "\(source): \(at.isEmpty ? "" : "\(at): ")\(reason)"
        }
    }
}
