import CFFmpeg

/// An FFmpeg call failed. ``operation`` names the call that failed (how failures are classified);
/// ``code`` is FFmpeg's negative error code (`AVERROR(...)`), rendered by ``message``.
struct FFmpegError: Error, Sendable, CustomStringConvertible {
    let operation: FFmpegOperation
    let code: Int32
    let message: String

    init(operation: FFmpegOperation, code: Int32) {
        self.operation = operation
        self.code = code
        var buffer = [CChar](repeating: 0, count: 256)
        ak_strerror(code, &buffer, buffer.count)
        self.message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    init(operation: FFmpegOperation, message: String) {
        self.operation = operation
        self.code = ak_averror_invaliddata()
        self.message = message
    }

    var description: String { "\(operation.rawValue): \(message)" }

    static let endOfFile = ak_averror_eof()
    static let tryAgain = ak_averror_eagain()
}

/// FFmpeg's process-wide settings, applied once: logging goes quiet (AttachKit reports errors
/// itself; set `ATTACHKIT_FFMPEG_LOG=debug|info|warning|error` to see FFmpeg's own messages on stderr).
enum FFmpegRuntime {
    private static let configured: Bool = {
        let level: Int32
        switch getenvString("ATTACHKIT_FFMPEG_LOG") {
        case "debug": level = AV_LOG_DEBUG
        case "info": level = AV_LOG_INFO
        case "warning": level = AV_LOG_WARNING
        case "error": level = AV_LOG_ERROR
        default: level = AV_LOG_QUIET
        }
        av_log_set_level(level)
        return true
    }()

    static func start() { _ = configured }

    private static func getenvString(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}
