/// How every audio/video decoder AttachKit opens is bounded: its thread count (cores ÷ jobs when
/// several files are prepared at once, so parallel jobs do not oversubscribe the machine) and
/// libavcodec's `max_pixels` (a bitstream declaring larger frames than its container header is
/// refused before the decoder allocates them).
struct DecoderBudget: Sendable, Equatable {
    /// Threads for one decoder or encoder; `nil` = FFmpeg's choice (the core count).
    var threads: Int?
    /// Largest frame, width × height. Default ``SafetyLimits/maxWholeFramePixels`` (frames are
    /// decoded whole).
    var maxPixels: Int64

    static let standard = DecoderBudget(threads: nil, maxPixels: SafetyLimits().maxWholeFramePixels)

    init(threads: Int?, maxPixels: Int64) {
        self.threads = threads
        self.maxPixels = maxPixels
    }

    /// One thread: a single picture (cover art, a still read through FFmpeg), or a check that
    /// runs beside many others (parallelism comes from the files, not the decoder).
    static func singleThread(maxPixels: Int64) -> DecoderBudget {
        DecoderBudget(threads: 1, maxPixels: maxPixels)
    }

    /// The budget of one preparation.
    init(job: PrepareJob) {
        self.init(threads: job.options.threads, maxPixels: job.safety.maxWholeFramePixels)
    }

    /// Options for `AVDecoder`.
    var decoderOptions: [String: String] {
        ["threads": threads.map(String.init) ?? "auto", "max_pixels": String(maxPixels)]
    }

    /// Options merged into an encoder's (`threads` only when set).
    var encoderOptions: [String: String] {
        threads.map { ["threads": String($0)] } ?? [:]
    }
}
