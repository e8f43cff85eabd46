import CVips

/// A libvips call failed. ``operation`` names the call (that is how failures are classified:
/// libvips' error buffer is one global string shared by all threads, so its text is only a hint).
struct VipsError: Error, Sendable, CustomStringConvertible {
    /// Which call failed.
    let operation: VipsOperation
    /// libvips' error text for the failure, best effort (may be empty or mixed with another thread's).
    let message: String

    var description: String { message.isEmpty ? "\(operation.rawValue) failed" : "\(operation.rawValue): \(message)" }

    /// libvips' text for a report, or which call failed when libvips left none.
    var detail: String { message.isEmpty ? description : message }

    private static let bufferLock = Locked(())

    /// Empties libvips' error buffer before a call, so a failure's text is not mixed with stale
    /// text from an earlier, unrelated warning.
    static func clearBuffer() {
        bufferLock.withLock { _ in vips_error_clear() }
    }

    /// Reads and clears libvips' error buffer, tagging the text with the failed operation.
    static func take(operation: VipsOperation) -> VipsError {
        let text: String = bufferLock.withLock { _ in
            let text = vips_error_buffer().map { String(cString: $0) } ?? ""
            vips_error_clear()
            return text
        }
        // A loader names the file by the path it was opened with: an access handle's descriptor
        // path (`/proc/self/fd/N`) means nothing to people and differs from verb to verb.
        let cleaned = text.split(separator: "\n").map { $0.trimmingPrefix("VipsForeignLoad: ") }.joined(separator: "; ")
            .replacing(#/"?/proc/self/fd/[0-9]+"?/#, with: "the file")
        return VipsError(operation: operation, message: cleaned)
    }
}
