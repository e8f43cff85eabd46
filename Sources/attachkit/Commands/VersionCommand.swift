import AttachKit

/// `attachkit version [--json]`: this build (version, commit, Swift) and the libvips and FFmpeg it
/// runs against, read from the libraries (FFmpeg is loaded for it). `attachkit --version` prints
/// the first line only.
struct VersionCommand: Command {
    static let name = "version"
    static let summary = "print the version, the commit, and the libvips and FFmpeg it runs against"
    static let usage = """
        usage: attachkit version [--json]
               attachkit --version

        Prints the version, the commit it was built from ("unknown" unless built by
        scripts/package.sh), the Swift compiler that built it, and the versions of libvips and
        FFmpeg as the libraries loaded at run time report them (FFmpeg is loaded for this).
        `attachkit --version` prints only "attachkit VERSION".
          --json   one object: {"version", "commit", "swift", "vips",
                   "ffmpeg": {"version" | "error", "libraries": [{"name", "soname", "package", "version"}]}}
        Exit status: 0, or 1 when FFmpeg cannot be loaded (the reason is printed).
        """
    static let options: Set<String> = []
    static let flags: Set<String> = ["json"]

    /// The line `attachkit --version` prints.
    static let versionLine = "attachkit \(BuildInfo.version)"

    let json: Bool

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.isEmpty else { throw UsageError("version takes no arguments") }
        json = arguments.flag("json")
    }

    func run() -> ExitCode {
        let libraries = RuntimeLibraries.current()
        if json {
            Output.json(BuildInfo.json(libraries).serialized)
        } else {
            Output.line("\(rendered: Self.text(libraries))")
        }
        return libraries.ffmpeg == nil ? .failure : .success
    }

    private static func text(_ libraries: RuntimeLibraries) -> String {
        let ffmpeg = libraries.ffmpegLibraries.map { "\($0.name) \($0.version ?? "not loaded")" }.joined(separator: ", ")
        return """
            \(versionLine)
            commit \(BuildInfo.commit)
            swift \(BuildInfo.swiftVersion)
            libvips \(libraries.vips)
            ffmpeg \(libraries.ffmpeg ?? "unavailable: \(libraries.ffmpegFailure ?? "")") (\(ffmpeg))
            """
    }
}
