/// One video transcode, as the speed model sees it: frames decoded from a source of one codec
/// and size, encoded at another size.
public struct TranscodeWork: Sendable, Equatable {
    /// Frames encoded (the window's seconds × the frame rate).
    public var frames: Double
    /// The source's codec as FFmpeg names it (`"vp9"`, `"h264"`, `"hevc"`...).
    public var sourceCodec: String
    public var inputWidth: Int
    public var inputHeight: Int
    public var outputWidth: Int
    public var outputHeight: Int
    /// Threads the job's decoder and encoder may use; `nil` = every core (a single `prepare`).
    public var threads: Int?

    public init(frames: Double, sourceCodec: String, inputWidth: Int, inputHeight: Int, outputWidth: Int, outputHeight: Int,
                threads: Int? = nil) {
        self.frames = frames
        self.sourceCodec = sourceCodec
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.threads = threads
    }

    /// The transcode of `before` into `after`'s size (the frames of `after`'s duration, else
    /// `before`'s, at `before`'s frame rate, 30 when unknown); `nil` without the sizes or a duration.
    public init?(before: MediaInfo, after: MediaInfo?) {
        guard let duration = after?.duration ?? before.duration, let width = before.width, let height = before.height,
              let outWidth = after?.width, let outHeight = after?.height else { return nil }
        self.init(frames: duration * (before.frameRate ?? 30), sourceCodec: before.codec?.rawValue ?? "",
                  inputWidth: width, inputHeight: height, outputWidth: outWidth, outputHeight: outHeight)
    }
}
