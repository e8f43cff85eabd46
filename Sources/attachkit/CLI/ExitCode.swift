import AttachKit

/// The exit statuses of `attachkit`, named (BSD sysexits where one fits).
enum ExitCode: Int32 {
    /// Every input passed / was prepared.
    case success = 0
    /// At least one input failed validation or could not be prepared.
    case failure = 1
    /// The command line is wrong (EX_USAGE).
    case usage = 64
    /// An internal invariant broke, e.g. an access handle leaked (EX_SOFTWARE).
    case software = 70
    /// Another run holds the batch's manifest (same output folder and shard): try again once it
    /// has finished (EX_TEMPFAIL).
    case busy = 75
    /// Stopped by SIGINT (128 + 2).
    case interrupted = 130
    /// Stopped by SIGTERM (128 + 15).
    case terminated = 143
}

/// A command-line mistake: reported in one line, with where to find the command's usage, and
/// exit status 64 (`main`'s one place that reports them).
struct UsageError: Error, CustomStringConvertible {
    let description: String
    /// An option the command does not take, as written (`--max-byte`): the report then suggests
    /// the nearest one it does take, and names the commands that take it (``UsageHint``).
    var unknownOption: String? = nil
    init(_ description: String) { self.description = description }
    init(unknownOption option: String) {
        description = "unknown option \(option)"
        unknownOption = option
    }
}

extension ExitCode {
    /// The status an error with `code` ends a command with (``ErrorCode/exitStatus``: 1 for an
    /// input's failure, 64 for a request made wrongly, 70 for a leaked handle).
    init(_ code: ErrorCode) { self = ExitCode(rawValue: code.exitStatus) ?? .failure }

    /// The graver of two statuses (the higher number): one failed file among many good ones
    /// still fails the run.
    func worse(_ other: ExitCode) -> ExitCode { rawValue >= other.rawValue ? self : other }
}
