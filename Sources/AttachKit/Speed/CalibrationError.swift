/// Why the speed calibration could not be measured or cached.
public struct CalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    /// A system call on `path` failed with `error`.
    init(call: String, path: String, _ error: SystemError) {
        message = "\(call) \(path): \(error)"
    }

    public var description: String { message }
}
