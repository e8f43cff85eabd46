#if canImport(Glibc)
import Glibc
#endif

/// A failed system call's `errno`, typed (swift-system's `Errno`): the one way AttachKit describes
/// one. Capture it with ``current`` straight after the call that failed, before anything else can
/// change `errno`; compare it with the named values below.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: Int32

    public init(code: Int32) { self.code = code }

    /// The calling thread's `errno` now.
    static var current: SystemError { SystemError(code: errno) }

    /// `strerror`'s text ("No such file or directory").
    public var description: String { String(cString: strerror(code)) }

    static let interrupted = SystemError(code: EINTR)
    static let exists = SystemError(code: EEXIST)
    static let noEntry = SystemError(code: ENOENT)
    static let notPermitted = SystemError(code: EPERM)
    static let permissionDenied = SystemError(code: EACCES)
    static let tooManySymbolicLinks = SystemError(code: ELOOP)
    static let crossDevice = SystemError(code: EXDEV)
    static let noSuchProcess = SystemError(code: ESRCH)
    static let noSpace = SystemError(code: ENOSPC)
    static let isDirectory = SystemError(code: EISDIR)
    static let notDirectory = SystemError(code: ENOTDIR)
    static let wouldBlock = SystemError(code: EAGAIN)
    static let brokenPipe = SystemError(code: EPIPE)
    static let badDescriptor = SystemError(code: EBADF)
    static let notImplemented = SystemError(code: ENOSYS)
    static let notSupported = SystemError(code: EOPNOTSUPP)
    static let nameTooLong = SystemError(code: ENAMETOOLONG)
    static let fileTooLarge = SystemError(code: EFBIG)
    static let invalid = SystemError(code: EINVAL)
    static let noChild = SystemError(code: ECHILD)
    static let ioError = SystemError(code: EIO)
    static let quotaExceeded = SystemError(code: EDQUOT)
    static let outOfMemory = SystemError(code: ENOMEM)
}

/// The one EINTR policy: a call interrupted by a signal before it did anything is made again.
/// Everything in `Bridges/System` goes through it; callers that must see `EINTR` (a wait meant to
/// be cut short by a signal) pass `retryOnInterrupt: false`.
enum SystemCall {
    /// `call`'s result, made again while it returns `-1` with `errno` `EINTR` (unless
    /// `retryOnInterrupt` is `false`); `-1` becomes the `errno` captured straight after the call.
    @inline(__always)
    static func result<T: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> T) -> Result<T, SystemError> {
        while true {
            let value = call()
            if value != -1 { return .success(value) }
            let code = errno
            if code == EINTR && retryOnInterrupt { continue }
            return .failure(SystemError(code: code))
        }
    }

    /// The same for calls that return `0` or `-1`.
    @inline(__always)
    static func check(retryOnInterrupt: Bool = true, _ call: () -> Int32) throws(SystemError) {
        if case .failure(let error) = result(retryOnInterrupt: retryOnInterrupt, call) { throw error }
    }

    /// `call`, made again while it throws ``SystemError/interrupted``.
    @inline(__always)
    static func retrying<T>(_ call: () throws(SystemError) -> T) throws(SystemError) -> T {
        while true {
            do { return try call() } catch { if error != .interrupted { throw error } }
        }
    }

    /// The same, throwing; the value on success.
    @inline(__always)
    static func value<T: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> T) throws(SystemError) -> T {
        switch result(retryOnInterrupt: retryOnInterrupt, call) {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }
}
