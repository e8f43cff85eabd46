/// Why options could not be read. Each case names the option by the library's key (`start`);
/// each front end renders that name its own way (``message(naming:)``): `--start` on the command
/// line, `option "start"` in `serve` (the default ``message``). The code is always `bad-options`.
package enum OptionsError: CodedError, Equatable, CustomStringConvertible {
    /// A value the option does not accept: the range of ``OptionLimits``, a type, a choice.
    case invalid(OptionError)
    /// A required option is absent.
    case missing(key: String, expected: String)
    /// An option the operation does not take; `allowed` lists those it does (may be empty).
    case unknown(key: String, allowed: [String])
    /// The `profile` option names no profile, or its policy is not valid.
    case profile(ProfileError)

    package var code: ErrorCode { .badOptions }

    /// The key of the option concerned.
    package var key: String {
        switch self {
        case .invalid(let error): return error.key
        case .missing(let key, _), .unknown(let key, _): return key
        case .profile: return "profile"
        }
    }

    /// The message with the option named by `name(key)`.
    package func message(naming name: (String) -> String) -> String {
        switch self {
        case .invalid(let error): return "\(name(error.key)) must be \(error.expected), not \(error.givenAndHint)"
        case .missing(let key, let expected): return "\(name(key)) must be \(expected)"
        case .unknown(let key, let allowed):
            return "unknown \(name(key))" + (allowed.isEmpty ? "" : " (allowed: \(allowed.sorted().joined(separator: ", ")))")
        case .profile(let error): return error.description
        }
    }

    /// The message as `serve` gives it: `option "start" must be ...`.
    package var message: String { message { "option \($0.debugDescription)" } }

    package var description: String { "\(code): \(message)" }
}
