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
        for name in ["XDG_CACHE_HOME", "HOME"] { if let value = SystemProcess.environment(name) { values[name] = value } }
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
        if let error = FileSystem.folderFailure(folder) { throw CalibrationError(call: "mkdir", path: folder, error) }
        let made: FileNames.TemporaryFile
        do { made = try FileNames.makeTemporaryFile(prefix: folder + "/.speed-calibration.") } catch {
            throw CalibrationError(call: "mkstemp", path: folder, error)
        }
        let temporary = made.path
        var renamed = false
        defer {
            if !renamed { try? FileNames.remove(temporary) }
        }
        let bytes = Array((calibration.json.serialized + "\n").utf8)
        do { try made.descriptor.writeAll(bytes) } catch { throw CalibrationError(call: "write", path: temporary, error) }
        try? made.descriptor.setPermissions(0o644)
        do { try made.descriptor.sync() } catch { throw CalibrationError(call: "fsync", path: temporary, error) }
        do { try FileNames.rename(temporary, to: path) } catch { throw CalibrationError(call: "rename", path: path, error) }
        renamed = true
        if let directory = try? FileDescriptor.open(folder, [.readOnly, .directory]) {
            try? directory.sync()
        }
    }
}
