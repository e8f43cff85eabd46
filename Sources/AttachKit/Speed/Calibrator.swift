/// Measures this machine's ``SpeedCalibration``: each x264 preset encoding ``frames`` frames of
/// ``SyntheticVideo`` at each of ``heights`` (16:9; 480, 720 and 1080 rows by default) three times
/// and keeping the median run (about 1.6 s of 30 fps media each), then decoding ``decodeFrames`` frames
/// of the largest picture, grained and encoded as H.264, HEVC and VP9 at a filmed clip's bitrate
/// (``sourceBitRate(width:height:)``: the source codecs whose decoding dominates an `ultrafast`
/// transcode), timing only the encoder and decoder calls; last, whole `ios` transcodes of short
/// VP9 samples at each preset, for what a real job costs beyond its codecs
/// (``SpeedCalibration/pipeline``). The encoded files go to a temporary folder that is removed after.
///
/// About 45–70 s on two cores (the decode sources are encoded once, untimed, to have something
/// to decode): run on demand (`attachkit budget`), never inside a preparation.
public struct Calibrator: Sendable {
    /// Heights the presets are measured at, each 16:9 (width rounded to even).
    public var heights = [480, 720, 1080]
    public var frames = 48
    /// Frames of the longer VP9 sample whole transcodes are timed on (3 s at 30 fps; the shorter
    /// has a third as many).
    public var pipelineFrames = 90
    public var decodeFrames = 30
    /// Encoder and decoder threads; `nil` = FFmpeg's choice (every core), as a single `prepare` runs.
    public var threads: Int?
    /// Rounds of encode measurements, the median run kept. Default ``runs`` (3).
    public var rounds = Calibrator.runs
    /// The source codecs whose decoding is measured (names in ``sources``); `nil` = all.
    public var decodedCodecs: Set<String>?
    /// Whether whole transcodes are timed for the pipeline factors; without them the calibration
    /// is a quick one (``SpeedCalibration/quick``) with typical factors, and each preset's rate is
    /// its whole encode's (opening and flush included, no overhead frames): x264's latency (its
    /// lookahead and frame threads) holds back the packets of an encode this short, so a steady
    /// rate cannot be told from it. Default `true`.
    public var measuresJobs = true

    /// Frames fed before the throughput is timed (x264's lookahead and frame threads fill up).
    static let warmUpFrames = 16
    /// Timed runs per measurement; the median is kept.
    static let runs = 3

    public init() {}

    /// The short calibration a deadline-bearing transcode runs on a machine with no full one
    /// (``SpeedModel/calibrateQuickly(for:remaining:)``): each preset encoding ``quickFrames``
    /// frames at the job's output `height` once (timed whole, see ``measuresJobs``), the decoding of
    /// ``quickFrames`` frames of `codec` (H.264's when `codec` is not among ``sources``), no whole
    /// transcodes (``SpeedCalibration/typicalPipeline``). About 0.6–1.2 s of 720p–1080p work on
    /// two cores.
    public static func quick(height: Int, codec: String) -> Calibrator {
        var calibrator = Calibrator()
        calibrator.heights = [height]
        calibrator.frames = quickFrames
        calibrator.decodeFrames = quickFrames
        calibrator.rounds = 1
        calibrator.decodedCodecs = [sources.contains { $0.codec == codec } ? codec : "h264"]
        calibrator.measuresJobs = false
        return calibrator
    }

    /// Frames per measurement of ``quick(height:codec:)``.
    static let quickFrames = 10

    /// The source codecs measured, with the encoder and its options that make them and the container.
    static let sources: [(codec: String, encoder: String, options: [String: String], muxer: String, demuxer: String)] = [
        ("h264", "libx264", ["preset": "veryfast"], "mp4", "mov"),
        ("hevc", "libx265", ["preset": "ultrafast", "x265-params": "log-level=error"], "mp4", "mov"),
        ("vp9", "libvpx-vp9", ["deadline": "realtime", "cpu-used": "8"], "webm", "matroska"),
    ]

    /// - Parameter progress: called with what is measured next and the fraction done (0...1).
    /// - Throws: ``CalibrationError`` when an x264 preset cannot be measured (a source codec FFmpeg
    ///   cannot encode here is left out instead).
    /// - Parameter parent: the folder the samples' temporary folder is made in. Default `/tmp`.
    public func run(in parent: String = "/tmp", progress: (String, Double) -> Void = { _, _ in }) throws(CalibrationError) -> SpeedCalibration {
        let key = MachineKey.current()
        let folder: String
        do { folder = try FileNames.makeTemporaryFolder(prefix: "\(parent)/attachkit-calibration.") } catch {
            throw CalibrationError(call: "mkdtemp", path: parent, error)
        }
        defer { Self.removeFolder(folder) }
        let largest = heights.max() ?? 1080
        let picture = SyntheticVideo(width: Self.width(of: largest), height: largest)
        let steps = Double(EncoderSpeed.allCases.count * heights.count + 1 + 2 * Self.sources.count)
        var done = 0.0
        var encode: [Int: [EncoderSpeed: Double]] = [:]
        var overheadFrames: [EncoderSpeed: Double] = [:]
        var decode: [String: Double] = [:]
        let budget = DecoderBudget(threads: threads, maxPixels: DecoderBudget.standard.maxPixels)
        do {
            // Untimed: the first encode of a process pays for loading x264, its threads and first page faults.
            _ = try encodeFile(picture, encoder: "libx264", options: ["preset": "ultrafast"], frames: 8, path: "\(folder)/warm-up.mp4", muxer: "mp4")
            // The median of three runs, taken in three rounds over every preset and height: a
            // neighbour's burst on a shared machine slows a stretch of seconds, which then costs one
            // run of several measurements instead of all three runs of one.
            let pictures = heights.sorted().map { height in
                height == largest ? picture : SyntheticVideo(width: Self.width(of: height), height: height)
            }
            var runs: [Int: [EncoderSpeed: [EncodeSpeed]]] = [:]
            for _ in 0..<rounds {
                for sized in pictures {
                    for preset in EncoderSpeed.allCases {
                        progress("x264 \(preset.rawValue) \(sized.height)p", done / steps)
                        let options = ["preset": preset.rawValue].merging(budget.encoderOptions) { $1 }
                        runs[sized.height, default: [:]][preset, default: []].append(
                            try encodeFile(sized, encoder: "libx264", options: options, frames: frames,
                                           path: "\(folder)/\(preset.rawValue).mp4", muxer: "mp4"))
                        done += 1 / Double(rounds)
                    }
                }
            }
            for sized in pictures {
                for preset in EncoderSpeed.allCases {
                    var typical = Self.median(runs[sized.height]?[preset] ?? [], by: \.framesPerSecond)
                    if !measuresJobs { typical = EncodeSpeed(framesPerSecond: Double(frames) / max(typical.seconds, 1e-6), overheadFrames: 0, seconds: typical.seconds) }
                    encode[sized.height, default: [:]][preset] = Double(sized.width * sized.height) / 1e6 * typical.framesPerSecond
                    // The overhead of the largest picture: there the start and the flush weigh the most in seconds.
                    if sized.height == largest { overheadFrames[preset] = typical.overheadFrames }
                }
            }
        } catch {
            throw CalibrationError("measuring x264: \(error.description)")
        }
        // Decoding is timed on grained pictures at a filmed clip's bits (``sourceBitRate(width:height:)``).
        let grained = SyntheticVideo(width: picture.width, height: picture.height, grain: true)
        for source in Self.sources where decodedCodecs?.contains(source.codec) ?? true {
            progress("encoding \(source.codec) to decode", done / steps)
            let path = "\(folder)/\(source.codec).\(source.muxer)"
            do {
                _ = try encodeFile(grained, encoder: source.encoder, options: source.options, frames: decodeFrames, path: path,
                                   muxer: source.muxer, bitRate: Self.sourceBitRate(width: grained.width, height: grained.height))
                progress("decoding \(source.codec)", (done + 1) / steps)
                decode[source.codec] = megapixels(decodeFrames, height: largest) / max(try decodeFile(path, demuxer: source.demuxer, budget: budget), 1e-6)
            } catch {
                // FFmpeg built without that encoder: the estimator treats the codec as unmeasured.
            }
            done += 2
        }
        for codec in (decodedCodecs ?? ["h264"]).sorted() where decode[codec] == nil {
            throw CalibrationError("decoding \(codec): the sample could not be made or decoded")
        }
        var calibration = SpeedCalibration(key: key, measuredAt: Self.now, encode: encode, overheadFrames: overheadFrames, decode: decode)
        if !measuresJobs {
            calibration.pipeline = Dictionary(uniqueKeysWithValues: heights.map { ($0, SpeedCalibration.typicalPipeline) })
            calibration.jobSeconds = SpeedCalibration.typicalJobSeconds
            calibration.quick = true
        } else if decode["vp9"] != nil {
            progress("whole transcodes", (steps - 1) / steps)
            measureJobs(&calibration, folder: folder)
        }
        progress("done", 1)
        return calibration
    }

    /// What whole jobs cost beyond the codecs (``SpeedCalibration/jobSeconds`` and
    /// ``SpeedCalibration/pipeline``), from VP9 samples of the calibration picture prepared for
    /// `ios` at the two largest of ``heights`` (720p and 1080p by default): ``pipelineFrames`` and
    /// a third as many frames at each preset and height, in three rounds. Each preset's factor at
    /// a height is the median of its three marginal ratios (the longer sample's extra real seconds
    /// over its extra modelled seconds); the fixed seconds are the median intercept (a short
    /// sample's real seconds less its factored model). The samples are not grained: x264 encodes
    /// grain far slower than what a decoded filmed clip holds (grained samples at a filmed clip's
    /// bitrate gave factors of 1.0–1.4 and estimates 1.3–1.65× the real time of the harness's
    /// clips), while the model's decode rate is already a filmed clip's, so the factor also takes
    /// in how far decoding overlaps encoding on the cores. Unchanged when it cannot be measured.
    private func measureJobs(_ calibration: inout SpeedCalibration, folder: String) {
        let jobHeights = Array(Set(heights).sorted().suffix(2))
        guard let vp9 = Self.sources.first(where: { $0.codec == "vp9" }), !jobHeights.isEmpty else { return }
        // The model of the codecs alone (no factors, no fixed seconds yet).
        let estimator = TranscodeEstimator(calibration: calibration, cores: SystemProcess.processorCount)
        /// Real and modelled seconds of one transcode of `frames` frames at `height` and `preset`.
        func time(frames: Int, height: Int, preset: EncoderSpeed) -> (real: Double, model: Double)? {
            let path = "\(folder)/sample-\(height)p-\(frames).webm"
            if !FileSystem.exists(path) {
                let sample = SyntheticVideo(width: Self.width(of: height), height: height)
                guard (try? encodeFile(sample, encoder: vp9.encoder, options: vp9.options, frames: frames, path: path, muxer: vp9.muxer)) != nil
                else { return nil }
            }
            let report = BudgetRunner.prepare(path, profile: .ios, scratch: folder, preset: preset)
            guard report.ok, let before = report.before, let work = TranscodeWork(before: before, after: report.after) else { return nil }
            return (report.elapsedMilliseconds / 1000, estimator.seconds(preset, work))
        }
        // Marginal: the extra real time of the longer sample over the extra the model gives it, so
        // what a job costs once (opening at that size, threads starting, the output's check) is
        // not spread over the frames of a short sample (that made 1080p factors swing 0.75–1.28);
        // what it costs once is the fixed seconds, the line's intercept.
        var ratios: [Int: [EncoderSpeed: [Double]]] = [:]
        var intercepts: [(real: Double, model: Double, height: Int, preset: EncoderSpeed)] = []
        for _ in 0..<Self.runs {
            for height in jobHeights {
                for preset in EncoderSpeed.allCases {
                    guard let short = time(frames: max(1, pipelineFrames / 3), height: height, preset: preset),
                          let long = time(frames: pipelineFrames, height: height, preset: preset) else { return }
                    ratios[height, default: [:]][preset, default: []].append((long.real - short.real) / max(long.model - short.model, 1e-6))
                    intercepts.append((short.real, short.model, height, preset))
                }
            }
        }
        let pipeline = ratios.mapValues { byPreset in
            byPreset.mapValues { min(SpeedCalibration.plausiblePipeline.upperBound, max(SpeedCalibration.plausiblePipeline.lowerBound, Self.median($0, by: { $0 }))) }
        }
        let fixed = intercepts.map { $0.real - (pipeline[$0.height]?[$0.preset] ?? 1) * $0.model }
        calibration.jobSeconds = min(SpeedCalibration.plausibleJobSeconds.upperBound, max(0, Self.median(fixed, by: { $0 })))
        calibration.pipeline = pipeline
    }

    /// The middle element of `values` (not empty) ordered by `key`: the median run.
    private static func median<T>(_ values: [T], by key: (T) -> Double) -> T {
        values.sorted { key($0) < key($1) }[values.count / 2]
    }

    /// Seconds since 1970, now.
    static var now: Double {
        let wall = SystemClock.wall()
        return Double(wall.seconds) + Double(wall.nanoseconds) / 1e9
    }

    /// The width of a 16:9 picture `height` rows high, rounded to even (4:2:0).
    static func width(of height: Int) -> Int { (height * 16 / 9 + 1) / 2 * 2 }

    private func megapixels(_ count: Int, height: Int) -> Double { Double(count) * Double(Self.width(of: height) * height) / 1e6 }

    /// One timed encode: the steady throughput and what the start and the end cost beyond it.
    struct EncodeSpeed {
        var framesPerSecond: Double
        /// (Seconds in every encoder call, the opening and the flush included) × ``framesPerSecond``
        /// − frames encoded; never below 0.
        var overheadFrames: Double
        /// Seconds in every encoder call, the opening and the flush included.
        var seconds: Double
    }

    /// The bitrate of the sources whose decoding is timed: 0.13 bits per pixel at 30 fps (8 Mb/s at
    /// 1080p, the harness's clips; phones film 1080p at 10–17 Mb/s, web VP9 is 2–5).
    static func sourceBitRate(width: Int, height: Int) -> Int { width * height * 30 * 13 / 100 }

    /// Encodes `count` frames of `picture` into `path`, at `bitRate` (default: the comfortable
    /// bitrate AttachKit gives that size).
    /// - Returns: the encoder's steady throughput in frames per second (the packets it gave out
    ///   while frames ``warmUpFrames``… were fed, over the time spent in the encoder calls then: a
    ///   long clip spends nearly all its time in that state), and the start (opening, lookahead and
    ///   frame threads filling) and the end (the flush, on fewer threads) as frames at that rate.
    private func encodeFile(_ picture: SyntheticVideo, encoder name: String, options: [String: String], frames count: Int,
                            path: String, muxer: String, bitRate: Int? = nil) throws(FFmpegError) -> EncodeSpeed {
        let (width, height) = (picture.width, picture.height)
        var settings = VideoEncoderSettings(width: width, height: height, timeBase: Rational(1, 30), frameRate: Rational(30, 1),
                                            bitRate: bitRate ?? BitrateBudget.comfortableVideoBitRate(width: width, height: height, frameRate: 30))
        settings.encoder = name
        settings.options = options
        settings.gopSize = 60
        var output = try AVOutput(path: path, muxer: muxer)
        let opening = ContinuousClock.now
        let encoder = try AVEncoder(video: settings, globalHeader: output.wantsGlobalHeader)
        var all = ContinuousClock.now - opening
        let stream = try output.addStream(encoder: encoder)
        try output.writeHeader()
        let timeBase = output.timeBase(of: stream)
        let frame = try AVFrameBuffer()
        let packet = try AVPacketBuffer()
        var spent = Duration.zero
        var packets = 0
        func drain() throws(FFmpegError) {
            while try encoder.receive(into: packet) == .packet {
                packets += 1
                packet.fillDuration(1)
                packet.retime(minus: 0, from: encoder.timeBase, to: timeBase, stream: stream)
                try output.write(packet)
            }
        }
        let warmUp = min(Self.warmUpFrames, count / 2)
        var steadyPackets = 0
        for index in 0..<count {
            try picture.draw(index, into: frame)
            frame.prepareForEncoding(at: Int64(index))
            let before = packets
            let started = ContinuousClock.now
            while try encoder.send(frame) == .outputPending { try drain() }
            try drain()
            let took = ContinuousClock.now - started
            all += took
            if index >= warmUp {
                spent += took
                steadyPackets += packets - before
            }
        }
        let flushing = ContinuousClock.now
        _ = try encoder.sendEndOfStream()
        try drain()
        all += ContinuousClock.now - flushing
        try output.finish()
        let framesPerSecond = Double(max(1, steadyPackets)) / max(spent.seconds, 1e-6)
        return EncodeSpeed(framesPerSecond: framesPerSecond, overheadFrames: max(0, all.seconds * framesPerSecond - Double(count)), seconds: all.seconds)
    }

    /// Decodes every frame of `path`'s first stream; the seconds it took (reading included).
    private func decodeFile(_ path: String, demuxer: String, budget: DecoderBudget) throws(FFmpegError) -> Double {
        let input = try AVInput(path: path, demuxer: demuxer)
        let decoder = try AVDecoder(input: input, streamIndex: 0, options: budget.decoderOptions)
        let frame = try AVFrameBuffer()
        let packet = try AVPacketBuffer()
        let started = ContinuousClock.now
        func drain() throws(FFmpegError) {
            while try decoder.receive(into: frame) == .frame { frame.unref() }
        }
        while try input.read(into: packet) {
            defer { packet.unref() }
            while try decoder.send(packet) == .outputPending { try drain() }
            try drain()
        }
        _ = try decoder.sendEndOfStream()
        try drain()
        return (ContinuousClock.now - started).seconds
    }

    private static func removeFolder(_ folder: String) {
        for name in FileSystem.files(under: folder) { try? FileNames.remove(folder + "/" + name) }
        try? FileNames.removeFolder(folder)
    }
}
