#if canImport(Glibc)
import Glibc
#endif

/// Writes to stdout and stderr unbuffered per line, so JSON Lines reach a pipe as they are made
/// and logs never mix into results.
enum Output {
    static func line(_ text: String) {
        writeAll(STDOUT_FILENO, text + "\n")
    }

    static func error(_ text: String) {
        writeAll(STDERR_FILENO, text + "\n")
    }

    /// One `write(2)` per call (retried until complete), so concurrent writers never interleave
    /// inside a line of up to PIPE_BUF bytes.
    private static func writeAll(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }

    /// Whether stdout is a terminal (tables and colours) rather than a pipe or file.
    static var isTerminal: Bool { isatty(STDOUT_FILENO) != 0 }
}
