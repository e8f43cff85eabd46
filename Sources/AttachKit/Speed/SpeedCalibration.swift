/// How fast this machine encodes and decodes video, measured by ``Calibrator`` on a synthetic
/// 1080p picture with all cores, and cached by ``CalibrationStore``.
public struct SpeedCalibration: Sendable, Equatable {
    /// The machine and builds it was measured on.
    public var key: MachineKey
    /// When, in seconds since 1970.
    public var measuredAt: Double
    /// Output megapixels per wall-clock second each x264 preset encodes, by the picture's height
    /// (the frames already in 8-bit 4:2:0, ABR at the bitrate a clip of that size gets). x264 does
    /// not encode a small picture at a large one's pixel rate (its threads split a frame by rows,
    /// and per-frame work does not shrink with the picture), so it is measured at several heights
    /// (480, 720, 1080 by default) and ``encodeRate(_:height:)`` interpolates between them.
    public var encode: [Int: [EncoderSpeed: Double]]
    /// What each preset's start and end cost (opening the encoder, filling its lookahead and frame
    /// threads, the flush on fewer threads), counted as frames of steady encoding at the same size:
    /// an encode of N frames takes as long as N + this many steady frames.
    public var overheadFrames: [EncoderSpeed: Double]
    /// Real ÷ modelled seconds of a whole transcode, by the output's height and the preset: the
    /// rates above are measured on the encoder and the decoder alone, while a real job also probes,
    /// demuxes, converts pixels, encodes the audio, muxes and checks its output, with the decoder
    /// and x264's threads sharing the cores. How far they overlap depends on the preset: measured
    /// on two cores at 1080p, `veryfast` and `ultrafast` 0.6–0.85, `superfast` 0.8–1.0 (one factor
    /// for all presets made `superfast` estimates 0.62–0.93 of the real time). Measured by
    /// transcoding short VP9 samples of the calibration picture for `ios` at every preset at the
    /// two largest calibrated heights (``Calibrator``). Interpolated between the heights like
    /// ``encodeRate(_:height:)``.
    public var pipeline: [Int: [EncoderSpeed: Double]]
    /// Seconds a whole transcode costs whatever its length (probing, opening the codecs and the
    /// muxer, finishing and checking the output): the median intercept of the calibration's whole
    /// transcodes (a short sample's real time less its factored model; 0 when not measured).
    public var jobSeconds: Double
    /// Input megapixels per wall-clock second each source codec decodes at (`"h264"`, `"hevc"`,
    /// `"vp9"`; a codec FFmpeg cannot encode here to measure is absent), measured at the largest
    /// height of ``encode``.
    public var decode: [String: Double]
    /// Measured by ``Calibrator/quick(height:codec:)`` (one height, one source codec, no whole
    /// transcodes: ``typicalPipeline`` and ``typicalJobSeconds``) rather than by `attachkit budget`,
    /// which replaces it. Estimates from it keep ``TranscodeEstimator/quickMargin``.
    public var quick = false

    /// The pipeline factors a quick calibration assumes: the middle of what full calibrations
    /// measured on two cores at 1080p (`veryfast` and `ultrafast` 0.6–0.85, `superfast` 0.8–1.0).
    public static let typicalPipeline: [EncoderSpeed: Double] = [.veryfast: 0.75, .superfast: 0.9, .ultrafast: 0.75]
    /// The fixed seconds a quick calibration assumes a job costs beyond its frames.
    public static let typicalJobSeconds = 0.3

    /// This calibration with `other`'s figures for the heights and source codecs it lacks (what a
    /// quick calibration measured for another job); still quick.
    public func adding(_ other: SpeedCalibration) -> SpeedCalibration {
        var merged = self
        merged.encode.merge(other.encode) { mine, _ in mine }
        merged.pipeline.merge(other.pipeline) { mine, _ in mine }
        merged.decode.merge(other.decode) { mine, _ in mine }
        merged.overheadFrames.merge(other.overheadFrames) { mine, _ in mine }
        merged.measuredAt = min(measuredAt, other.measuredAt)
        return merged
    }

    public init(key: MachineKey, measuredAt: Double, encode: [Int: [EncoderSpeed: Double]], overheadFrames: [EncoderSpeed: Double] = [:],
                pipeline: [Int: [EncoderSpeed: Double]] = [:], jobSeconds: Double = 0, decode: [String: Double]) {
        self.key = key
        self.measuredAt = measuredAt
        self.encode = encode
        self.overheadFrames = overheadFrames
        self.pipeline = pipeline
        self.jobSeconds = jobSeconds
        self.decode = decode
    }

    /// `preset`'s encode rate for pictures `height` rows high: linear between the two measured
    /// heights around it, the nearest measured one outside them; `nil` when the preset was not measured.
    public func encodeRate(_ preset: EncoderSpeed, height: Int) -> Double? {
        Self.interpolate(encode.compactMap { h, rates in rates[preset].map { (h, $0) } }, at: height)
    }

    /// `preset`'s pipeline factor for an output `height` rows high, interpolated as
    /// ``encodeRate(_:height:)``; 1 when none was measured.
    public func pipelineFactor(_ preset: EncoderSpeed, height: Int) -> Double {
        Self.interpolate(pipeline.compactMap { h, factors in factors[preset].map { (h, $0) } }, at: height) ?? 1
    }

    /// The value at `height` of `points` (height, value): linear between the two heights around
    /// it, the nearest one outside them; `nil` without points.
    static func interpolate(_ points: [(Int, Double)], at height: Int) -> Double? {
        let sorted = points.sorted { $0.0 < $1.0 }
        guard let first = sorted.first, let last = sorted.last else { return nil }
        if height <= first.0 { return first.1 }
        if height >= last.0 { return last.1 }
        let upper = sorted.firstIndex { $0.0 >= height }!
        let (a, b) = (sorted[upper - 1], sorted[upper])
        return a.1 + (b.1 - a.1) * Double(height - a.0) / Double(b.0 - a.0)
    }

    /// The cache file's JSON: `{"version": 4, "key": {...}, "measuredAt", "encode": {height: {preset:
    /// Mpx/s}}, "overheadFrames": {preset: frames}, "pipeline": {height: {preset: factor}}, "jobSeconds",
    /// "decode": {codec: Mpx/s}}`. (Version 1 had one encode rate per preset and no overhead,
    /// version 2 one pipeline factor and decoding timed on ungrained pictures, version 3 one
    /// factor per height from clean samples: such a file is read as missing, and the next
    /// `attachkit budget` measures again.)
    public var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("version", Self.version)
        o.set("key", key.json)
        o.set("measuredAt", measuredAt)
        o.set("encode", Self.byHeight(encode))
        o.set("overheadFrames", JSONValue.object(EncoderSpeed.allCases.compactMap { p in overheadFrames[p].map { (p.rawValue, JSONValue.number($0)) } }))
        o.set("pipeline", Self.byHeight(pipeline))
        o.set("jobSeconds", jobSeconds)
        o.set("decode", JSONValue.object(decode.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.number($0.value)) }))
        if quick { o.set("quick", JSONValue.bool(true)) }
        return o.value
    }

    /// `{height: {preset: value}}`, heights and presets in order.
    private static func byHeight(_ values: [Int: [EncoderSpeed: Double]]) -> JSONValue {
        JSONValue.object(values.keys.sorted().map { height in
            (String(height), JSONValue.object(EncoderSpeed.allCases.compactMap { p in values[height]?[p].map { (p.rawValue, JSONValue.number($0)) } }))
        })
    }

    /// The cache file's format version.
    static let version = 4

    /// Figures that contradict each other, in words (empty when none): a figure outside the ranges
    /// the cache reader believes (``init(json:)``), a faster preset measured more than 10 % slower
    /// than a slower one at the same height, a preset whose rate differs more than 3× between two
    /// heights, a pipeline factor at a bound of ``plausiblePipeline`` (clamped), or one that differs
    /// more than 2× between two heights. A machine does not work that way: such a calibration was
    /// measured while something else took the cores for a while, and `attachkit budget` does not
    /// cache it.
    public var inconsistencies: [String] {
        // Outside the ranges the cache reader believes: cached, it would be read as missing.
        guard SpeedCalibration(json: json) != nil else { return ["a figure is outside the plausible ranges (see json)"] }
        var found: [String] = []
        for height in encode.keys.sorted() {
            guard let rates = encode[height] else { continue }
            for (slower, faster) in zip(EncoderSpeed.allCases, EncoderSpeed.allCases.dropFirst()) {
                if let a = rates[slower], let b = rates[faster], b < a * 0.9 {
                    found.append("at \(height)p x264 \(faster.rawValue) measured \(Self.figure(b)) Mpx/s, slower than \(slower.rawValue)'s \(Self.figure(a))")
                }
            }
        }
        for preset in EncoderSpeed.allCases {
            if let spread = Self.spread(encode.compactMapValues { $0[preset] }), spread.high.value > spread.low.value * 3 {
                found.append("x264 \(preset.rawValue) measured \(Self.figure(spread.low.value)) Mpx/s at \(spread.low.height)p but "
                             + "\(Self.figure(spread.high.value)) at \(spread.high.height)p")
            }
            for (height, factors) in pipeline.sorted(by: { $0.key < $1.key }) {
                if let factor = factors[preset], factor <= Self.plausiblePipeline.lowerBound || factor >= Self.plausiblePipeline.upperBound {
                    found.append("x264 \(preset.rawValue)'s whole-job factor at \(height)p is at its bound (\(Self.figure(factor)))")
                }
            }
            if let spread = Self.spread(pipeline.compactMapValues { $0[preset] }), spread.high.value > spread.low.value * 2 {
                found.append("x264 \(preset.rawValue)'s whole-job factor is \(Self.figure(spread.low.value)) at \(spread.low.height)p but "
                             + "\(Self.figure(spread.high.value)) at \(spread.high.height)p")
            }
        }
        return found
    }

    /// The lowest and the highest of `values` by height; `nil` with fewer than two.
    private static func spread(_ values: [Int: Double]) -> (low: (height: Int, value: Double), high: (height: Int, value: Double))? {
        guard values.count >= 2, let low = values.min(by: { $0.value < $1.value }), let high = values.max(by: { $0.value < $1.value }) else { return nil }
        return ((low.key, low.value), (high.key, high.value))
    }

    /// `value` with two decimals below 10, whole above.
    private static func figure(_ value: Double) -> String {
        value < 10 ? "\((value * 100).rounded() / 100)" : "\(Int(value.rounded()))"
    }

    /// Throughputs a real machine can measure, in Mpx per second (the unit of ``encode`` and
    /// ``decode``): from 1 (a 1080p frame every two seconds) to 100,000. A cache file outside it was
    /// not written by a calibration: it is ignored, like a damaged one (the estimate falls back to
    /// the conservative constants, and the note says so).
    public static let plausibleRates: ClosedRange<Double> = 1...100_000

    /// Overheads a real encode can have, in frames (a lookahead of 250 frames is x264's maximum).
    public static let plausibleOverhead: ClosedRange<Double> = 0...500
    /// Pipeline factors a real machine can have.
    public static let plausiblePipeline: ClosedRange<Double> = 0.2...5
    /// When a calibration can have been measured, in seconds since 1970: from 2020 to the year 3000
    /// (a file outside it was not written by a calibration; an age computed from 1e308 would trap).
    public static let plausibleMeasuredAt: ClosedRange<Double> = 1_577_836_800...32_503_680_000
    /// Fixed seconds a transcode can plausibly cost beyond its frames.
    public static let plausibleJobSeconds: ClosedRange<Double> = 0...60
    /// Heights a calibration can be measured at.
    public static let plausibleHeights: ClosedRange<Int> = 16...8192

    /// Reads ``json``; `nil` for another version, anything missing (every preset at every height,
    /// every preset's pipeline factor at one height at least, and one decode rate),
    /// a time outside ``plausibleMeasuredAt``, a rate outside ``plausibleRates``, a height outside ``plausibleHeights``, an overhead outside
    /// ``plausibleOverhead``, a pipeline factor outside ``plausiblePipeline`` or job seconds outside ``plausibleJobSeconds``.
    public init?(json: JSONValue) {
        guard json["version"]?.intValue == Self.version, let key = MachineKey(json: json["key"]),
              let measuredAt = json["measuredAt"]?.doubleValue, Self.plausibleMeasuredAt.contains(measuredAt), let heightPairs = json["encode"]?.objectValue, !heightPairs.isEmpty,
              let overheadPairs = json["overheadFrames"]?.objectValue, let pipelinePairs = json["pipeline"]?.objectValue,
              let jobSeconds = json["jobSeconds"]?.doubleValue, Self.plausibleJobSeconds.contains(jobSeconds),
              let decodePairs = json["decode"]?.objectValue, !pipelinePairs.isEmpty, !decodePairs.isEmpty else { return nil }
        guard let encode = Self.presetValuesByHeight(heightPairs, within: Self.plausibleRates),
              let overheadFrames = Self.presetValues(overheadPairs, within: Self.plausibleOverhead),
              let pipeline = Self.presetValuesByHeight(pipelinePairs, within: Self.plausiblePipeline) else { return nil }
        var decode: [String: Double] = [:]
        for (name, value) in decodePairs {
            guard let rate = value.doubleValue, Self.plausibleRates.contains(rate) else { return nil }
            decode[name] = rate
        }
        self.init(key: key, measuredAt: measuredAt, encode: encode, overheadFrames: overheadFrames, pipeline: pipeline, jobSeconds: jobSeconds, decode: decode)
        quick = json["quick"]?.boolValue ?? false
    }

    /// `{height: {preset: value}}` with a value for every preset at each height, heights within
    /// ``plausibleHeights`` and values within `range`; `nil` otherwise.
    private static func presetValuesByHeight(_ pairs: [(String, JSONValue)], within range: ClosedRange<Double>) -> [Int: [EncoderSpeed: Double]]? {
        var values: [Int: [EncoderSpeed: Double]] = [:]
        for (text, presetPairs) in pairs {
            guard let height = Int(text), plausibleHeights.contains(height), let presetPairs = presetPairs.objectValue,
                  let presets = presetValues(presetPairs, within: range) else { return nil }
            values[height] = presets
        }
        return values
    }

    /// A value for every preset, each within `range`; `nil` otherwise.
    private static func presetValues(_ pairs: [(String, JSONValue)], within range: ClosedRange<Double>) -> [EncoderSpeed: Double]? {
        var values: [EncoderSpeed: Double] = [:]
        for (name, value) in pairs {
            guard let preset = EncoderSpeed(rawValue: name), let number = value.doubleValue, range.contains(number) else { return nil }
            values[preset] = number
        }
        return values.count == EncoderSpeed.allCases.count ? values : nil
    }
}
