/// Reads newline-separated lines from a file descriptor with a cap on line length, so a hostile
/// peer cannot make the reader buffer gigabytes: an over-long line is reported as
/// ``Line/tooLong`` (its bytes discarded up to the next newline) and reading goes on.
public struct LineReader {
    public enum Line: Equatable, Sendable {
        case text(String)
        /// A line longer than the cap (its first bytes are dropped with the rest).
        case tooLong(bytes: Int)
    }

    private let fd: Int32
    private let maxBytes: Int
    private let pollMilliseconds: Int32
    private var buffer: [UInt8] = []
    private var discarding = 0
    private var finished = false

    /// Reads `fd` (not closed by the reader), refusing lines longer than `maxBytes`; while waiting
    /// for input, `shouldStop` is asked every `pollMilliseconds` (default 200).
    public init(fd: Int32, maxBytes: Int, pollMilliseconds: Int32 = 200) {
        self.fd = fd
        self.maxBytes = maxBytes
        self.pollMilliseconds = pollMilliseconds
    }

    /// The next line (without its newline), or `nil` at end of input or once `shouldStop` says so
    /// (checked while waiting for input, every `pollMilliseconds`). A last line without a newline is returned
    /// too. Invalid UTF-8 is repaired with U+FFFD (the JSON parser then refuses it).
    public mutating func next(shouldStop: () -> Bool = { false }) -> Line? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                if discarding > 0 {
                    let total = discarding + line.count
                    discarding = 0
                    return .tooLong(bytes: total)
                }
                return .text(String(decoding: line, as: UTF8.self))
            }
            if buffer.count > maxBytes {
                discarding += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
            if finished {
                if discarding > 0 {
                    let total = discarding + buffer.count
                    discarding = 0
                    buffer.removeAll()
                    return .tooLong(bytes: total)
                }
                guard !buffer.isEmpty else { return nil }
                let line = buffer
                buffer.removeAll()
                return .text(String(decoding: line, as: UTF8.self))
            }
            let ready: Bool
            do { ready = try FileDescriptor.waitForInput(fd, milliseconds: pollMilliseconds) } catch where error == .interrupted { continue } catch { ready = true }
            if !ready {
                if shouldStop() { return nil }
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            do {
                let n = try FileDescriptor.read(fd, into: &chunk, retryOnInterrupt: false)
                if n > 0 { buffer.append(contentsOf: chunk[..<n]) } else { finished = true }
            } catch where error == .interrupted {
            } catch {
                finished = true
            }
        }
    }
}
