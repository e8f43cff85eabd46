/// How fast this machine encodes and decodes video, measured by ``Calibrator`` on a synthetic
/// 1080p picture with all cores, and cached by ``CalibrationStore``.
public struct SpeedCalibration: Sendable, Equatable {
    /// The machine and builds it was measured on.
    public var key: MachineKey
    /// When, in seconds since 1970.
    public var measuredAt: Double
    /// Output megapixels per wall-clock second each x264 preset encodes (the frames already in
    /// 8-bit 4:2:0, ABR at the bitrate a 1080p clip gets).
    public var encode: [EncoderSpeed: Double]
    /// Input megapixels per wall-clock second each source codec decodes at (`"h264"`, `"hevc"`,
    /// `"vp9"`; a codec FFmpeg cannot encode here to measure is absent).
    public var decode: [String: Double]

    public init(key: MachineKey, measuredAt: Double, encode: [EncoderSpeed: Double], decode: [String: Double]) {
        self.key = key
        self.measuredAt = measuredAt
        self.encode = encode
        self.decode = decode
    }

    /// The cache file's JSON: `{"version": 1, "key": {...}, "measuredAt", "encode": {preset: Mpx/s},
    /// "decode": {codec: Mpx/s}}`.
    public var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("version", 1)
        o.set("key", key.json)
        o.set("measuredAt", measuredAt)
        o.set("encode", JSONValue.object(EncoderSpeed.allCases.compactMap { p in encode[p].map { (p.rawValue, JSONValue.number($0)) } }))
        o.set("decode", JSONValue.object(decode.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.number($0.value)) }))
        return o.value
    }

    /// Throughputs a real machine can measure, in Mpx per second (the unit of ``encode`` and
    /// ``decode``): from 1 (a 1080p frame every two seconds) to 100,000. A cache file outside it was
    /// not written by a calibration: it is ignored, like a damaged one (the estimate falls back to
    /// the conservative constants, and the note says so).
    public static let plausibleRates: ClosedRange<Double> = 1...100_000

    /// Reads ``json``; `nil` for another version, anything missing, or a rate outside ``plausibleRates``.
    public init?(json: JSONValue) {
        guard json["version"]?.intValue == 1, let key = MachineKey(json: json["key"]),
              let measuredAt = json["measuredAt"]?.doubleValue,
              let encodePairs = json["encode"]?.objectValue, let decodePairs = json["decode"]?.objectValue else { return nil }
        var encode: [EncoderSpeed: Double] = [:]
        for (name, value) in encodePairs {
            guard let preset = EncoderSpeed(rawValue: name), let rate = value.doubleValue, Self.plausibleRates.contains(rate) else { return nil }
            encode[preset] = rate
        }
        var decode: [String: Double] = [:]
        for (name, value) in decodePairs {
            guard let rate = value.doubleValue, Self.plausibleRates.contains(rate) else { return nil }
            decode[name] = rate
        }
        guard encode.count == EncoderSpeed.allCases.count else { return nil }
        self.init(key: key, measuredAt: measuredAt, encode: encode, decode: decode)
    }
}
