#if canImport(Glibc)
import Glibc
#endif

/// Why the speed calibration could not be measured or cached.
public struct CalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    /// A system call on `path` failed (the reason from `errno`, read now).
    init(call: String, path: String) {
        message = "\(call) \(path): \(String(cString: strerror(errno)))"
    }

    public var description: String { message }
}
