import Foundation
import Testing
@testable import AttachKit

/// Whether the package suite runs (`ATTACHKIT_PACKAGE_TEST=1`).
private let packageTestRequested = ProcessInfo.processInfo.environment["ATTACHKIT_PACKAGE_TEST"] == "1"

/// The Debian package as a user gets it: scripts/package.sh builds it (a release build: minutes),
/// `dpkg-deb -x` unpacks it into a temporary folder (nothing is installed on the machine), and the
/// unpacked binary runs with a bare environment from outside the repository. Enabled by
/// `ATTACHKIT_PACKAGE_TEST=1` (.ci/run sets it in a step of its own, after the suite, so the release
/// build does not compete with the timing-sensitive tests).
@Suite("Debian package", .enabled(if: packageTestRequested, "builds a release package (minutes): set ATTACHKIT_PACKAGE_TEST=1 (.ci/run does)"))
struct DebianPackageTests {
    /// The package built once for the whole suite, and where it was unpacked.
    struct Built: Sendable {
        let deb: String
        let root: URL
        let folder: URL
        var binary: String { root.appendingPathComponent("usr/bin/attachkit").path }
    }

    /// The suite's folder, removed when the test process exits.
    static let folder: URL = {
        let folder = TestEnvironment.temporaryFolder("debian-package")
        atexit { try? FileManager.default.removeItem(at: DebianPackageTests.folder) }
        return folder
    }()

    static let built: Result<Built, PackageError> = {
        let script = TestEnvironment.repoRoot.appendingPathComponent("scripts/package.sh").path
        let made: (status: Int32, stdout: String, stderr: String)
        do { made = try TestEnvironment.run(script, ["--out", folder.appendingPathComponent("dist").path]) } catch {
            return .failure(PackageError("scripts/package.sh did not start: \(error)"))
        }
        guard made.status == 0, let deb = made.stdout.split(separator: "\n").last.map(String.init), deb.hasSuffix(".deb") else {
            return .failure(PackageError("scripts/package.sh exited \(made.status): \(made.stdout.suffix(2_000))\(made.stderr.suffix(2_000))"))
        }
        let root = folder.appendingPathComponent("root")
        guard (try? TestEnvironment.run("dpkg-deb", ["-x", deb, root.path]))?.status == 0 else { return .failure(PackageError("dpkg-deb -x \(deb) failed")) }
        return .success(Built(deb: deb, root: root, folder: folder))
    }()

    struct PackageError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A field of the package's control file.
    static func field(_ name: String, _ built: Built) throws -> String {
        try TestEnvironment.run("dpkg-deb", ["-f", built.deb, name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs the unpacked binary as a user would from a shell with nothing set up: `env -i` with
    /// only `PATH=/usr/bin:/bin`, from a folder outside the repository.
    static func runBare(_ built: Built, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["-i", "PATH=/usr/bin:/bin", built.binary] + arguments
        process.currentDirectoryURL = built.folder
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test("the binary needs no library of the Swift toolchain and carries no run path")
    func noToolchainLibrary() throws {
        let built = try Self.built.get()
        let ldd = try TestEnvironment.run("ldd", [built.binary])
        try #require(ldd.status == 0, "\(ldd.stderr)")
        let lines = ldd.stdout.split(separator: "\n")
        #expect(!lines.contains { $0.contains("not found") }, "\(ldd.stdout)")
        #expect(!lines.contains { $0.lowercased().contains("swift") || $0.contains("/opt/") || $0.contains("libFoundation") || $0.contains("libdispatch") },
                "\(ldd.stdout)")
        #expect(lines.contains { $0.contains("libvips.so.42 => /") })
        let dynamic = try TestEnvironment.run("readelf", ["-d", built.binary]).stdout
        #expect(!dynamic.contains("(RPATH)") && !dynamic.contains("(RUNPATH)"), "\(dynamic)")
    }

    @Test("--version under a bare environment is the package's upstream version, and BuildInfo's")
    func versionMatchesPackage() throws {
        let built = try Self.built.get()
        let packageVersion = try Self.field("Version", built)
        let upstream = String(packageVersion[..<(packageVersion.lastIndex(of: "-") ?? packageVersion.endIndex)])
        let line = try Self.runBare(built, ["--version"])
        #expect(line.status == 0)
        #expect(line.stdout == "attachkit \(upstream)\n", "package \(packageVersion)")
        #expect(upstream == BuildInfo.version)
        #expect(built.deb.hasSuffix("/attachkit_\(packageVersion)_\(try Self.field("Architecture", built)).deb"))
    }

    @Test("the installed binary finds Debian's FFmpeg and names its commit")
    func runtimeLibraries() throws {
        let built = try Self.built.get()
        let result = try Self.runBare(built, ["version", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["ffmpeg"]?["version"]?.stringValue?.isEmpty == false, "\(report)")
        let libraries = report["ffmpeg"]?["libraries"]?.arrayValue ?? []
        #expect(libraries.count == 6 && libraries.allSatisfy { $0["version"]?.stringValue != nil }, "\(libraries)")
        let head = try TestEnvironment.run("git", ["-C", TestEnvironment.repoRoot.path, "rev-parse", "--short=12", "HEAD"])
        if head.status == 0 {
            #expect(report["commit"]?.stringValue?.hasPrefix(head.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == true, "\(report)")
        }
    }

    @Test("Depends names libvips, libmicrohttpd and every FFmpeg library the loader opens")
    func depends() throws {
        let built = try Self.built.get()
        let names = Set(try Self.field("Depends", built).split(separator: ",").map {
            String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != " " })
        })
        let report = try JSONValue.parse(try Self.runBare(built, ["version", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let loader = Set((report["ffmpeg"]?["libraries"]?.arrayValue ?? []).compactMap { $0["package"]?.stringValue })
        #expect(loader.count == 6)
        #expect(loader.isSubset(of: names), "missing \(loader.subtracting(names).sorted()) in \(names.sorted())")
        #expect(names.isSuperset(of: ["libvips42", "libmicrohttpd12", "libc6"]), "\(names.sorted())")
    }

    @Test("the unpacked binary prepares a photo and a video under a bare environment; ffprobe and vipsheader agree with the reports",
          .enabled(if: TestEnvironment.hasTool("ffprobe") && TestEnvironment.hasTool("vipsheader"), "needs ffprobe and vipsheader"))
    func preparesMedia() throws {
        let built = try Self.built.get()
        let out = built.folder.appendingPathComponent("prepared-\(UUID().uuidString.prefix(8))")
        let photo = TestEnvironment.fixture("images/jpeg_large_4032x3024.jpg")
        let video = TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4")
        let result = try Self.runBare(built, ["prepare", "--json", "--max-edge", "1024", "--out", out.path, photo, video])
        #expect(result.status == 0, "\(result.stderr)")
        let reports = CLITests.lines(result.stdout)
        try #require(reports.count == 2, "\(result.stdout)")
        for report in reports {
            #expect(report["ok"] == .bool(true), "\(report)")
            #expect(report["attachkitVersion"]?.stringValue == BuildInfo.version)
        }
        let image = try #require(reports[0]["output"]?.stringValue)
        let width = try TestEnvironment.run("vipsheader", ["-f", "width", image]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(width) == 1024 && reports[0]["after"]?["width"]?.intValue == 1024, "\(width)")
        let clip = try #require(reports[1]["output"]?.stringValue)
        func duration(_ path: String) throws -> Double? {
            Double(try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
                .stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let seconds = try #require(try duration(clip))
        #expect(abs(seconds - (try #require(try duration(video)))) < 0.1, "\(seconds)")
        #expect(abs(seconds - (reports[1]["after"]?["duration"]?.doubleValue ?? 0)) < 0.05)
    }

    @Test("the manual page renders without warnings and documents every command", .enabled(if: TestEnvironment.hasTool("man"), "needs man (man-db)"))
    func manualPage() throws {
        let built = try Self.built.get()
        let page = built.root.appendingPathComponent("usr/share/man/man1/attachkit.1.gz").path
        let rendered = try TestEnvironment.run("man", ["--warnings", "-E", "UTF-8", "-l", "-Tutf8", page],
                                               environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "100", "LC_ALL": "C.UTF-8"])
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
        let text = rendered.stdout.replacing("\u{2010}", with: "-")
        #expect(text.contains("attachkit - prepares media for iOS notification attachments"))
        let help = try Self.runBare(built, ["--help"]).stdout
        let commands = help.split(separator: "\n").drop { $0 != "commands:" }.dropFirst().prefix { $0.hasPrefix("  ") }.map { $0.split(separator: " ")[0] }
        #expect(commands.count >= 10, "\(help)")
        for command in commands { #expect(text.contains("usage: attachkit \(command)"), "\(command)") }
    }

    @Test("the package holds the systemd unit with its maintainer scripts, its settings as a conffile, the bash completion, the copyright and the Debian changelog")
    func contents() throws {
        let built = try Self.built.get()
        for path in ["lib/systemd/system/attachkit-http.service", "etc/default/attachkit-http", "usr/share/doc/attachkit/copyright",
                     "usr/share/doc/attachkit/changelog.Debian.gz", "usr/share/bash-completion/completions/attachkit",
                     "usr/share/doc/attachkit/cli.md.gz", "usr/share/doc/attachkit/policy.md.gz", "usr/share/doc/attachkit/http.md.gz"] {
            #expect(FileManager.default.fileExists(atPath: built.root.appendingPathComponent(path).path), "\(path)")
        }
        let control = built.folder.appendingPathComponent("control")
        try #require(try TestEnvironment.run("dpkg-deb", ["-e", built.deb, control.path]).status == 0)
        #expect(try String(contentsOf: control.appendingPathComponent("conffiles"), encoding: .utf8) == "/etc/default/attachkit-http\n")
        // The unit's maintainer scripts: reload after install, restart on upgrade, stop before
        // removal, forget the enablement on purge; each parses as sh.
        for (script, call) in [("postinst", "try-restart attachkit-http.service"), ("prerm", "stop attachkit-http.service"),
                               ("postrm", "purge attachkit-http.service")] {
            let path = control.appendingPathComponent(script).path
            #expect(FileManager.default.isExecutableFile(atPath: path), "\(script)")
            #expect((try? String(contentsOfFile: path, encoding: .utf8))?.contains(call) == true, "\(script)")
            #expect(try TestEnvironment.run("sh", ["-n", path]).status == 0, "\(script)")
        }
        let changelog = try TestEnvironment.run("sh", ["-c", "gzip -dc \"$0\" | head -n 1", built.root.appendingPathComponent("usr/share/doc/attachkit/changelog.Debian.gz").path])
        #expect(changelog.stdout.hasPrefix("attachkit (\(try Self.field("Version", built))) "), "\(changelog.stdout)")
    }

    @Test("lintian reports no error", .enabled(if: TestEnvironment.hasTool("lintian"), "needs lintian (scripts/setup.sh lintian; .ci/run installs it)"))
    func lintian() throws {
        let built = try Self.built.get()
        let result = try TestEnvironment.run("lintian", [built.deb])
        let errors = result.stdout.split(separator: "\n").filter { $0.hasPrefix("E: ") }
        #expect(errors.isEmpty, "\(result.stdout)")
        #expect(!result.stdout.contains("binary-or-shlib-defines-rpath") && !result.stdout.contains("unstripped-binary"), "\(result.stdout)")
    }
}
