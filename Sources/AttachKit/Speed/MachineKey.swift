/// What a speed calibration holds for: the CPU model, the cores, and the libavcodec and x264
/// builds. A calibration measured under another key is stale (``CalibrationStore``).
public struct MachineKey: Sendable, Equatable {
    /// `/proc/cpuinfo`'s first "model name" (`"unknown"` when absent).
    public var cpuModel: String
    /// Online cores.
    public var cores: Int
    /// The libavcodec loaded (`"59.37.100"`, from the library's file name), `"unknown"` when not found.
    public var libavcodec: String
    /// x264's build (`"164"`, the soname libavcodec links), `"unknown"` when not found.
    public var x264: String

    public init(cpuModel: String, cores: Int, libavcodec: String, x264: String) {
        self.cpuModel = cpuModel
        self.cores = cores
        self.libavcodec = libavcodec
        self.x264 = x264
    }

    /// This machine, with FFmpeg loaded first (the versions are read from the libraries mapped
    /// into the process, `/proc/self/maps`).
    public static func current() -> MachineKey {
        try? FFmpegLibrary.require()
        let cpu = TextFile.contents("/proc/cpuinfo")?.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters() } ?? "unknown"
        let maps = TextFile.contents("/proc/self/maps") ?? ""
        return MachineKey(cpuModel: cpu, cores: SystemProcess.processorCount,
                          libavcodec: version(of: "libavcodec.so.", in: maps), x264: version(of: "libx264.so.", in: maps))
    }

    /// The version after `prefix` in the first mapped file name carrying it.
    static func version(of prefix: String, in maps: String) -> String {
        for line in maps.split(separator: "\n") {
            guard let range = line.firstRange(of: prefix) else { continue }
            let version = line[range.upperBound...].prefix { $0.isNumber || $0 == "." }
            if !version.isEmpty { return String(version) }
        }
        return "unknown"
    }

    var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("cpuModel", cpuModel)
        o.set("cores", cores)
        o.set("libavcodec", libavcodec)
        o.set("x264", x264)
        return o.value
    }

    init?(json: JSONValue?) {
        guard let json, let cpu = json["cpuModel"]?.stringValue, let cores = json["cores"]?.intValue,
              let avcodec = json["libavcodec"]?.stringValue, let x264 = json["x264"]?.stringValue else { return nil }
        self.init(cpuModel: cpu, cores: cores, libavcodec: avcodec, x264: x264)
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
