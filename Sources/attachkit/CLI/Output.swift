import AttachKit

/// Writes to stdout and stderr unbuffered per line, so JSON Lines reach a pipe as they are made
/// and logs never mix into results. Text for people is a ``HumanText`` (its values escaped);
/// machine lines go through ``json(_:)``.
enum Output {
    /// A line (or lines) for people on stdout.
    static func line(_ text: HumanText) {
        writeAll(SystemProcess.standardOutput, text.description + "\n")
    }

    /// A line (or lines) for people on stderr.
    static func error(_ text: HumanText) {
        writeAll(SystemProcess.standardError, text.description + "\n")
    }

    /// Terminal control text on stderr, as it is, without a newline (a progress block redrawn in
    /// place). Its values must already be escaped (``BatchProgressView`` escapes names).
    static func terminal(_ text: String) {
        writeAll(SystemProcess.standardError, text)
    }

    /// One machine-readable line (JSON) on stdout, as it is.
    static func json(_ line: String) {
        writeAll(SystemProcess.standardOutput, line + "\n")
    }

    private static let lock = Locked(())

    /// Writes the whole text under a lock, so lines from concurrent writers never interleave
    /// whatever their length.
    private static func writeAll(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        lock.withLock { _ in SystemProcess.writeAll(bytes, to: fd) }
    }
}
