import Foundation
import Testing
@testable import AttachKit

/// One version, from `BuildInfo`: what `attachkit --version` and `version --json` print, what the
/// prepare reports and the metrics carry, and the library versions read at run time, checked
/// against the reference tools' own answers.
@Suite("Build version and runtime libraries")
struct BuildVersionTests {
    /// `attachkit version --json`, decoded.
    static func versionReport(environment: [String: String]? = nil) throws -> JSONValue {
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["version", "--json"], environment: environment)
        try #require(result.status == 0, "stderr: \(result.stderr)")
        return try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("--version and version --json print BuildInfo.version, a commit and the Swift version")
    func versionLine() throws {
        let line = try TestEnvironment.runAttachKit(["--version"])
        #expect(line.status == 0)
        #expect(line.stdout == "attachkit \(BuildInfo.version)\n")
        #expect(BuildInfo.version.split(separator: ".").count == 3 && BuildInfo.version.allSatisfy { $0.isNumber || $0 == "." })
        let report = try Self.versionReport()
        #expect(report["version"]?.stringValue == BuildInfo.version)
        #expect(report["commit"]?.stringValue == BuildInfo.commit)
        #expect(report["swift"]?.stringValue?.hasPrefix("6.") == true, "\(report)")
        let help = try TestEnvironment.runAttachKit(["--help"])
        #expect(help.stdout.contains("  version "), "the command is listed: \(help.stdout)")
    }

    @Test("libvips' version is the one vips itself reports", .enabled(if: TestEnvironment.hasTool("vips"), "needs vips (libvips-tools)"))
    func vipsVersion() throws {
        let vips = try TestEnvironment.run("vips", ["--version"])
        // "vips-8.14.1"
        let reported = vips.stdout.trimmingCharacters(in: .whitespacesAndNewlines).replacing("vips-", with: "")
        #expect(try Self.versionReport()["vips"]?.stringValue == reported)
    }

    @Test("FFmpeg's release and each library's version are those ffprobe reports from the same libraries",
          .enabled(if: TestEnvironment.hasTool("ffprobe"), "needs ffprobe (ffmpeg)"))
    func ffmpegVersions() throws {
        let ffmpeg = try #require(try Self.versionReport()["ffmpeg"])
        let probe = try TestEnvironment.run("ffprobe", ["-hide_banner", "-version"]).stdout
        // "ffprobe version 5.1.9-0+deb12u1 Copyright ..." and "libavutil      57. 28.100 / 57. 28.100"
        let release = probe.split(separator: "\n").first?.split(separator: " ").dropFirst(2).first.map(String.init)
        #expect(ffmpeg["version"]?.stringValue == release, "\(probe.prefix(200))")
        let libraries = try #require(ffmpeg["libraries"]?.arrayValue)
        #expect(libraries.compactMap { $0["name"]?.stringValue }
            == ["libavutil", "libswresample", "libswscale", "libavcodec", "libavformat", "libavfilter"])
        for library in libraries {
            let name = try #require(library["name"]?.stringValue)
            let line = try #require(probe.split(separator: "\n").first { $0.hasPrefix(name + " ") }, "ffprobe lists \(name)")
            let loaded = line.split(separator: "/").last.map { String($0.replacing(" ", with: "")) }
            #expect(library["version"]?.stringValue == loaded, "\(name): \(line)")
            let major = try #require(library["version"]?.stringValue?.split(separator: ".").first)
            #expect(library["soname"]?.stringValue == "\(name).so.\(major)")
            #expect(library["package"]?.stringValue == "\(name)\(major)")
        }
    }

    @Test("the libraries version --json lists are exactly those the loader opens (the package's Depends comes from this list)")
    func loaderListIsWhatOpens() throws {
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["version", "--json"],
                                             environment: ProcessInfo.processInfo.environment.merging(["LD_DEBUG": "files"]) { _, new in new })
        try #require(result.status == 0)
        let opened = Set(result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            let name = String(line[range.upperBound...].prefix { $0 != " " })
            return ["libav", "libsw"].contains { name.hasPrefix($0) } && name.contains(".so.") ? name : nil
        })
        let listed = try #require(try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))["ffmpeg"]?["libraries"]?.arrayValue)
        #expect(Set(listed.compactMap { $0["soname"]?.stringValue }) == opened, "opened: \(opened.sorted())")
    }

    @Test("a missing FFmpeg: version --json names the failure, exit 1, the libraries still listed")
    func missingFFmpeg() throws {
        let environment = ProcessInfo.processInfo.environment.merging(["ATTACHKIT_FFMPEG_LIBDIR": "/nonexistent-attachkit-test"]) { _, new in new }
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["version", "--json"], environment: environment)
        #expect(result.status == 1)
        let ffmpeg = try #require(try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))["ffmpeg"])
        #expect(ffmpeg["version"] == nil)
        #expect(ffmpeg["error"]?.stringValue?.contains("libavutil57") == true, "\(ffmpeg)")
        #expect(ffmpeg["libraries"]?.arrayValue?.count == 6)
        #expect(ffmpeg["libraries"]?.arrayValue?.allSatisfy { $0["version"] == nil } == true)
    }

    @Test("every prepare report names the version that made it")
    func prepareReportVersion() throws {
        let out = TestEnvironment.temporaryFolder("version-prepare")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path,
                                                       TestEnvironment.fixture("images/png_rgba_transparency_320x240.png"),
                                                       TestEnvironment.fixture("malformed/zero_bytes.jpg")])
        let reports = CLITests.lines(result.stdout)
        try #require(reports.count == 2, "\(result.stdout)")
        #expect(reports[0]["ok"] == .bool(true))
        #expect(reports[1]["ok"] == .bool(false))
        for report in reports { #expect(report["attachkitVersion"]?.stringValue == BuildInfo.version) }
    }

    @Test("GET /metrics carries attachkit_build_info with the version, commit, libvips and FFmpeg")
    func metricsBuildInfo() throws {
        let text = HTTPMetrics().render(inFlight: 0, workerRestarts: 0)
        let sample = try #require(text.split(separator: "\n").first { $0.hasPrefix("attachkit_build_info{") })
        let libraries = RuntimeLibraries.current(filters: false)
        let ffmpeg = try #require(libraries.ffmpeg)
        #expect(sample == "attachkit_build_info{version=\"\(BuildInfo.version)\",commit=\"\(BuildInfo.commit)\",vips=\"\(libraries.vips)\",ffmpeg=\"\(ffmpeg)\"} 1")
        #expect(text.contains("# TYPE attachkit_build_info gauge"))
    }
}
