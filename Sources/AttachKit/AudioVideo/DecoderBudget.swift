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
    /// Bytes of one decoded picture of the video decoded under this budget
    /// (``DecodeMemoryEstimator/frameBytes(of:)``), which picks its threading
    /// (``videoDecoderOptions``). Default 0: unknown, threaded as ``threads`` says.
    var frameBytes: Double = 0
    /// Whether a video decoder skips the steps that only shape the pictures, not whether the
    /// bitstream decodes (``VerifyMode/fast``): in-loop filters (`skip_loop_filter=all`) and, where
    /// the decoder honours it, the inverse transform (`skip_idct=all`). Default `false`: pictures
    /// that are shown or encoded need every step.
    var skipsReconstruction = false
    /// Decoders a check of a whole video stream runs at once, each single-threaded on its own
    /// segments (``IndependentSegments``: H.264/HEVC cut at IDR pictures), for the same verdict as
    /// one decoder running through. Default 1: one decoder (and any stream that cannot be cut).
    var segmentThreads = 1

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
        frameBytes = DecodeMemoryEstimator.frameBytes(of: job.info)
    }

    /// Options for `AVDecoder`.
    var decoderOptions: [String: String] {
        ["threads": threads.map(String.init) ?? "auto", "max_pixels": String(maxPixels)]
    }

    /// Options for a decoder of `codec`: ``decoderOptions``, with every error fatal
    /// (`err_detect=+crccheck+explode`) where FFmpeg's decoder finds damage, logs it and carries
    /// on: a still JPEG (`mjpeg` with `still`: the 12-bit, lossless and other JPEGs
    /// libjpeg-turbo does not read here). An overread, a bitstream that ends inside a scan or a
    /// Huffman code that does not decode gives a picture whose rest is black or green, and a JPEG
    /// is one picture, with nothing later to recover on. Other decoders keep FFmpeg's default:
    /// explode failed valid TIFFs over an unknown tag, and a FLAC file with an ID3v1 tag after
    /// its last frame (a common layout) over the tag's 128 bytes, though it would have caught a
    /// frame failing its CRC-16; a video decoder conceals what it can, and concealed frames are
    /// judged as such.
    ///
    /// With ``skipsReconstruction``, a moving picture's decoder (not a still's) skips its loop
    /// filters and inverse transform.
    func decoderOptions(for codec: Codec, still: Bool = false) -> [String: String] {
        var options = decoderOptions
        if still && codec == .mjpeg { options["err_detect"] = "+crccheck+explode" }
        if skipsReconstruction, !still {
            options["skip_loop_filter"] = "all"
            options["skip_idct"] = "all"
        }
        return options
    }

    /// Decoded pictures of this many bytes or more are decoded with one frame thread
    /// (``frameThreads(_:frameBytes:)``): 4K (3840 × 2160) 10-bit 4:2:0, 24.9 MB, and anything
    /// larger; not 4K 8-bit (12.4 MB).
    static let largeFrameBytes: Double = 16 * 1_048_576

    /// Frame threads a video decoder of `frameBytes`-byte pictures runs with `threads` (the
    /// resolved count, ``DecodeMemoryEstimator/threads(_:)``): `threads`, or 1 for large pictures
    /// (``largeFrameBytes``). Each frame thread holds one more picture and a decoding context of its
    /// own: for 4K HEVC Main 10 at 2 threads, 77 MB more peak RSS than one thread (measured,
    /// `attachkit prepare` of a 3 s 4K PQ clip to 1080p), and far more on many cores.
    static func frameThreads(_ threads: Int, frameBytes: Double) -> Int {
        frameBytes >= largeFrameBytes ? 1 : max(1, threads)
    }

    /// ``decoderOptions`` for the video decoder of ``frameBytes``-byte pictures: large ones
    /// (``largeFrameBytes``) use slice threads only (`thread_type=slice`), so a stream with slices
    /// or wavefronts still decodes on every core; one without them decodes on one (4K HEVC: about
    /// 30 % slower end to end here, 2 cores, x264 taking the other).
    var videoDecoderOptions: [String: String] {
        var options = decoderOptions
        if frameBytes >= Self.largeFrameBytes { options["thread_type"] = "slice" }
        return options
    }

    /// Options for a sound decoder of `codec`: ``decoderOptions(for:still:)`` on one thread. With
    /// frame threads FFmpeg 5.1's FLAC decoder drops a frame that fails to decode without a word
    /// (`ffmpeg -threads 2` is silent where `-threads 1` says "invalid frame header"), so a
    /// transcode of a damaged file passed while `validate --deep` refused it; sound decodes far
    /// faster than it encodes anyway.
    func audioDecoderOptions(for codec: Codec) -> [String: String] {
        var options = decoderOptions(for: codec)
        options["threads"] = "1"
        return options
    }

    /// Options merged into an encoder's: `threads`, or x264's own choice bounded by
    /// ``DecodeMemoryEstimator/maxEncoderThreads`` (``DecodeMemoryEstimator/encoderThreads(_:)``),
    /// the count its memory is estimated at.
    var encoderOptions: [String: String] {
        ["threads": String(DecodeMemoryEstimator.encoderThreads(threads))]
    }
}
