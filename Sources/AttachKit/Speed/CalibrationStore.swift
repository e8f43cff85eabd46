#if canImport(Glibc)
import Glibc
#endif

/// Where the speed calibration is cached: `FOLDER/speed-calibration.json`, by default in
/// `$XDG_CACHE_HOME/attachkit` (`~/.cache/attachkit` when it is unset). A cached calibration is
/// used while its ``MachineKey`` is this machine's and it is at most ``maxAge`` old.
public struct CalibrationStore: Sendable {
    public let folder: String
    /// Thirty days: long enough not to calibrate often, short enough to follow a machine whose
    /// neighbours (on shared hosts) changed.
    public static let maxAge: Double = 30 * 86_400

    public init(folder: String) { self.folder = folder }

    /// The default folder, from `environment` (`XDG_CACHE_HOME`, else `HOME`/.cache); `nil` when neither is set.
    public static func standard(environment: [String: String]) -> CalibrationStore? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return CalibrationStore(folder: cache + "/attachkit") }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return CalibrationStore(folder: home + "/.cache/attachkit")
    }

    /// The process's environment, for ``standard(environment:)``.
    public static var processEnvironment: [String: String] {
        var values: [String: String] = [:]
        for name in ["XDG_CACHE_HOME", "HOME"] { if let value = getenv(name) { values[name] = String(cString: value) } }
        return values
    }

    public var path: String { folder + "/speed-calibration.json" }

    /// What the cache holds for `key` at time `now` (seconds since 1970).
    public enum Lookup: Sendable, Equatable {
        case fresh(SpeedCalibration)
        /// There is a calibration, but not for this machine or too old (the reason says which).
        case stale(String)
        case missing
    }

    public func load(for key: MachineKey, now: Double) -> Lookup {
        load(text: read(), for: key, now: now)
    }

    /// The cache file's text, `nil` when there is none (or it is not a regular file).
    func read() -> String? { TextFile.contents(path, limit: 1 << 20) }

    /// ``load(for:now:)`` from text read earlier (``read()``).
    func load(text: String?, for key: MachineKey, now: Double) -> Lookup {
        guard let text else { return .missing }
        guard let json = try? JSONValue.parse(text), let calibration = SpeedCalibration(json: json) else {
            return .stale("the cache file is not a calibration this version reads")
        }
        if calibration.key != key { return .stale("measured on another machine or FFmpeg/x264 build") }
        let age = now - calibration.measuredAt
        if age > Self.maxAge || age < -86_400 { return .stale("measured \(Int(age / 86_400)) days ago (at most \(Int(Self.maxAge / 86_400)))") }
        return .fresh(calibration)
    }

    /// Writes `calibration` atomically: a unique temporary file in the folder (created if
    /// missing), flushed, renamed over the cache file, then the folder flushed.
    /// - Throws: ``CalibrationError`` naming the call that failed and the path.
    public func save(_ calibration: SpeedCalibration) throws(CalibrationError) {
        guard FileSystem.makeFolders(folder) else { throw CalibrationError(call: "mkdir", path: folder) }
        var template = Array((folder + "/.speed-calibration.XXXXXX").utf8CString)
        let (fd, temporary) = template.withUnsafeMutableBufferPointer { ($0.baseAddress.map { mkstemp($0) } ?? -1, String(cString: $0.baseAddress!)) }
        guard fd >= 0 else { throw CalibrationError(call: "mkstemp", path: folder) }
        var renamed = false
        defer {
            close(fd)
            if !renamed { unlink(temporary) }
        }
        let bytes = Array((calibration.json.serialized + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw CalibrationError(call: "write", path: temporary) }
            written += count
        }
        fchmod(fd, 0o644)
        guard fsync(fd) == 0 else { throw CalibrationError(call: "fsync", path: temporary) }
        guard rename(temporary, path) == 0 else { throw CalibrationError(call: "rename", path: path) }
        renamed = true
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
