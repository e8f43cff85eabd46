#if canImport(Glibc)
import Glibc
#endif

/// Measures this machine's ``SpeedCalibration``: each x264 preset encoding ``frames`` frames of
/// ``SyntheticVideo`` at ``width``×``height`` (1080p by default) twice and keeping the faster run
/// (about 1 s of 30 fps media each), then decoding ``decodeFrames`` frames of the same picture encoded as H.264, HEVC and
/// VP9 (the source codecs whose decoding dominates an `ultrafast` transcode). Only the encoder and
/// decoder calls are timed. The encoded files go to a temporary folder that is removed after.
///
/// About 5–10 s on two cores at 1080p (HEVC and VP9 are encoded once, untimed, to have something
/// to decode): run on demand (`attachkit budget`), never inside a preparation.
public struct Calibrator: Sendable {
    public var width = 1920
    public var height = 1080
    public var frames = 48
    public var decodeFrames = 30
    /// Encoder and decoder threads; `nil` = FFmpeg's choice (every core), as a single `prepare` runs.
    public var threads: Int?

    /// Frames fed before the throughput is timed (x264's lookahead and frame threads fill up).
    static let warmUpFrames = 16

    public init() {}

    /// The source codecs measured, with the encoder and its options that make them and the container.
    static let sources: [(codec: String, encoder: String, options: [String: String], muxer: String, demuxer: String)] = [
        ("hevc", "libx265", ["preset": "ultrafast", "x265-params": "log-level=error"], "mp4", "mov"),
        ("vp9", "libvpx-vp9", ["deadline": "realtime", "cpu-used": "8"], "webm", "matroska"),
    ]

    /// - Parameter progress: called with what is measured next and the fraction done (0...1).
    /// - Throws: ``CalibrationError`` when an x264 preset cannot be measured (a source codec FFmpeg
    ///   cannot encode here is left out instead).
    public func run(progress: (String, Double) -> Void = { _, _ in }) throws(CalibrationError) -> SpeedCalibration {
        let key = MachineKey.current()
        var template = Array("/tmp/attachkit-calibration.XXXXXX".utf8CString)
        guard let folder = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!).map { String(cString: $0) } }) else {
            throw CalibrationError(call: "mkdtemp", path: "/tmp")
        }
        defer { Self.removeFolder(folder) }
        let picture = SyntheticVideo(width: width, height: height)
        let steps = Double(EncoderSpeed.allCases.count + 1 + 2 * Self.sources.count)
        var done = 0.0
        var encode: [EncoderSpeed: Double] = [:]
        var decode: [String: Double] = [:]
        let budget = DecoderBudget(threads: threads, maxPixels: DecoderBudget.standard.maxPixels)
        do {
            // Untimed: the first encode of a process pays for loading x264, its threads and first page faults.
            _ = try encodeFile(picture, encoder: "libx264", options: ["preset": "ultrafast"], frames: 8, path: "\(folder)/warm-up.mp4", muxer: "mp4")
            for preset in EncoderSpeed.allCases {
                progress("x264 \(preset.rawValue)", done / steps)
                let options = ["preset": preset.rawValue].merging(budget.encoderOptions) { $1 }
                // The faster of two runs: a neighbour's burst on a shared machine slows one, rarely both.
                var framesPerSecond = 0.0
                for _ in 0..<2 {
                    framesPerSecond = max(framesPerSecond, try encodeFile(picture, encoder: "libx264", options: options, frames: frames,
                                                                          path: "\(folder)/\(preset.rawValue).mp4", muxer: "mp4"))
                }
                encode[preset] = megapixels(1) * framesPerSecond
                done += 1
            }
            progress("decoding h264", done / steps)
            decode["h264"] = megapixels(decodeFrames) / max(try decodeFile("\(folder)/veryfast.mp4", demuxer: "mov", budget: budget), 1e-6)
            done += 1
        } catch {
            throw CalibrationError("measuring x264: \(error.description)")
        }
        for source in Self.sources {
            progress("encoding \(source.codec) to decode", done / steps)
            let path = "\(folder)/\(source.codec).\(source.muxer)"
            do {
                _ = try encodeFile(picture, encoder: source.encoder, options: source.options, frames: decodeFrames, path: path, muxer: source.muxer)
                progress("decoding \(source.codec)", (done + 1) / steps)
                decode[source.codec] = megapixels(decodeFrames) / max(try decodeFile(path, demuxer: source.demuxer, budget: budget), 1e-6)
            } catch {
                // FFmpeg built without that encoder: the estimator treats the codec as unmeasured.
            }
            done += 2
        }
        progress("done", 1)
        return SpeedCalibration(key: key, measuredAt: Self.now, encode: encode, decode: decode)
    }

    /// Seconds since 1970, now.
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func megapixels(_ count: Int) -> Double { Double(count) * Double(width * height) / 1e6 }

    /// Encodes `count` frames of `picture` into `path`.
    /// - Returns: the encoder's steady throughput in frames per second: the packets it gave out
    ///   while frames ``warmUpFrames``… were fed, over the time spent in the encoder calls then.
    ///   The start (lookahead and frame threads filling) and the end (the flush, on fewer threads)
    ///   are left out: a long clip spends nearly all its time in between.
    private func encodeFile(_ picture: SyntheticVideo, encoder name: String, options: [String: String], frames count: Int,
                            path: String, muxer: String) throws(FFmpegError) -> Double {
        var settings = VideoEncoderSettings(width: width, height: height, timeBase: Rational(1, 30), frameRate: Rational(30, 1),
                                            bitRate: BitrateBudget.comfortableVideoBitRate(width: width, height: height, frameRate: 30))
        settings.encoder = name
        settings.options = options
        settings.gopSize = 60
        var output = try AVOutput(path: path, muxer: muxer)
        let encoder = try AVEncoder(video: settings, globalHeader: output.wantsGlobalHeader)
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
            if index >= warmUp {
                spent += ContinuousClock.now - started
                steadyPackets += packets - before
            }
        }
        _ = try encoder.sendEndOfStream()
        try drain()
        try output.finish()
        return Double(max(1, steadyPackets)) / max(spent.seconds, 1e-6)
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
        for name in FileSystem.files(under: folder) { unlink(folder + "/" + name) }
        rmdir(folder)
    }
}
