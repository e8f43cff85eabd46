import Foundation
import Testing
@testable import AttachKit
#if canImport(Glibc)
import Glibc
#endif

/// What a folder's walk cannot list or look at (``FolderListing/unlistable``) is a failure of
/// `probe`, `validate`, `prepare`, `batch` and `budget`, with its reason: never dropped in silence.
@Suite("Folder walks record what they cannot look at", .serialized)
struct WalkFailureTests {
    /// A folder holding one GIF (unless `gif` is false) and 2100 nested folders `d`, whose deepest
    /// paths are past PATH_MAX.
    static func deepFolder(_ name: String = #function, gif: Bool = true) throws -> URL {
        let root = TestEnvironment.temporaryFolder(name)
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        if gif {
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_static_320x240.gif"), toPath: input.appendingPathComponent("a.gif").path)
        }
        var descriptor = open(input.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        for _ in 0..<2100 {
            #expect(mkdirat(descriptor, "d", 0o755) == 0)
            let next = openat(descriptor, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(descriptor)
            descriptor = next
        }
        close(descriptor)
        return input
    }

    static let tooLong = String(cString: strerror(ENAMETOOLONG))

    @Test("probe, validate and prepare of a folder: the entry past PATH_MAX is a failure with its reason, beside the file they could read")
    func commands() throws {
        let input = try Self.deepFolder()
        defer { _ = try? TestEnvironment.run("/bin/rm", ["-rf", input.deletingLastPathComponent().path]) }
        let out = input.deletingLastPathComponent().appendingPathComponent("out").path
        for verb in [["probe"], ["validate"], ["prepare", "--out", out]] {
            let result = try TestEnvironment.runAttachKit(verb + ["--json", input.path])
            #expect(result.status == 1, "\(verb[0]): \(result.stderr)")
            let lines = try result.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
            #expect(lines.count == 2, "\(verb[0]): \(result.stdout.prefix(400))")
            // probe and prepare say it in `error`, validate in its one diagnostic; the path under `path` or `input`.
            let failed = lines.filter { line in
                let failure = line["error"] ?? line["diagnostics"]?.arrayValue?.first
                let path = line["path"]?.stringValue ?? line["input"]?.stringValue ?? ""
                return failure?["code"]?.stringValue == "unreadable" && failure?["message"]?.stringValue?.contains(Self.tooLong) == true
                    && path.contains("/d/d/d")
            }
            #expect(failed.count == 1, "\(verb[0]): \(result.stdout.prefix(600))")
        }
        let table = try TestEnvironment.runAttachKit(["probe", input.path])
        #expect(table.stdout.contains("cannot list or look at it (\(Self.tooLong))"), "\(table.stdout.suffix(400))")
    }

    @Test("batch: the entry past PATH_MAX is a failed manifest line with its reason, and counted")
    func batch() throws {
        let input = try Self.deepFolder()
        defer { _ = try? TestEnvironment.run("/bin/rm", ["-rf", input.deletingLastPathComponent().path]) }
        let out = input.deletingLastPathComponent().appendingPathComponent("out")
        let result = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--in-process"])
        #expect(result.status == 1, "\(result.stderr.suffix(400))")
        #expect(result.stdout.contains("2 file(s): 1 prepared, 0 already done, 1 failed"), "\(result.stdout.prefix(300))")
        let lines = try BatchProcessTests.manifestLines(out)
        #expect(lines.count == 2)
        let failed = try #require(lines.first { $0["ok"]?.boolValue == false })
        #expect(failed["path"]?.stringValue?.hasPrefix("d/d/d") == true)
        #expect(failed["error"]?["code"]?.stringValue == "unreadable")
        #expect(failed["error"]?["message"]?.stringValue?.contains(Self.tooLong) == true)
    }

    @Test("budget: the entry past PATH_MAX is reported as a folder that cannot be walked, not dropped")
    func budget() throws {
        let input = try Self.deepFolder(gif: false)
        defer { _ = try? TestEnvironment.run("/bin/rm", ["-rf", input.deletingLastPathComponent().path]) }
        let listing = FileSystem.listing(under: input.path)
        #expect(listing.unlistable.contains { $0.reason == Self.tooLong }, "\(listing.unlistable.map(\.reason))")
        let cache = input.deletingLastPathComponent().appendingPathComponent("cache").path
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", "--quick", input.path],
                                             environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache]) { $1 })
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot be walked: \(Self.tooLong)"), "\(result.stderr.suffix(300))")
    }
}
