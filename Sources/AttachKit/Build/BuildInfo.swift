/// Which build of AttachKit this is. ``version`` is the one place the release is written: the CLI
/// prints it (`attachkit --version`), scripts/package.sh reads it from the built binary for the
/// Debian package, `GET /metrics` carries it (`attachkit_build_info`) and every prepare report
/// names it (`attachkitVersion`).
public enum BuildInfo {
    /// The release, `MAJOR.MINOR.PATCH`.
    public static let version = "0.9.0"

    /// The commit the binary was built from: `git describe`'s commit as scripts/package.sh bakes it
    /// in (with `-dirty` when the checkout had uncommitted changes); `unknown` for a plain `swift build`.
    public static let commit = BuildCommit.value

    /// The Swift compiler that built this binary, `MAJOR.MINOR` (read with `#if compiler`: Swift
    /// has no run-time query; the standard library is linked in statically by release builds).
    public static let swiftVersion: String = {
        #if compiler(>=6.5)
        return "6.5 or later"
        #elseif compiler(>=6.4)
        return "6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }()

    /// `{"version", "commit", "swift", "vips", "ffmpeg": {"version" | "error", "libraries"}}`: this
    /// build and the libraries it runs against (`attachkit version --json`).
    public static func json(_ libraries: RuntimeLibraries) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("version", version)
        o.set("commit", commit)
        o.set("swift", swiftVersion)
        o.set("vips", libraries.vips)
        o.set("ffmpeg", libraries.ffmpegJSON)
        return o.value
    }
}
