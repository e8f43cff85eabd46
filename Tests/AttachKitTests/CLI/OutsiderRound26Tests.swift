import Foundation
import Testing
@testable import AttachKit
#if canImport(Glibc)
import Glibc
#endif

/// Outside findings, round 26 (`budget`'s checks before its calibration): a policy named as a FIFO
/// hung the command (and `prepare`) before anything was checked; an entry of a folder's walk that
/// could not be looked at (a folder without search permission, a path past PATH_MAX) was dropped
/// in silence.
@Suite("Outside findings, round 26")
struct OutsiderRound26Tests {
    @Test("a policy named as a FIFO is refused at once, not waited on")
    func policyFIFO() throws {
        let folder = TestEnvironment.temporaryFolder("r26-fifo")
        let fifo = folder.appendingPathComponent("policy.json").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": folder.path]) { $1 }
        let started = Date()
        for verb in [["budget", "--quick"], ["prepare", "--out", folder.appendingPathComponent("out").path]] {
            let result = try TestEnvironment.run(TestEnvironment.attachkit, verb + ["--profile", fifo, TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm")],
                                                 environment: environment)
            #expect(result.status == 64, "\(verb[0]): \(result.stderr)")
            #expect(result.stderr.contains("not a regular file"), "\(verb[0]): \(result.stderr)")
        }
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test("an entry past PATH_MAX in a folder's walk is reported, not dropped")
    func tooDeep() throws {
        let root = TestEnvironment.temporaryFolder("r26-deep").path
        // 2100 nested "d" folders: the deepest paths are past PATH_MAX (4096), made with mkdirat.
        var descriptor = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(descriptor >= 0)
        for _ in 0..<2100 {
            #expect(mkdirat(descriptor, "d", 0o755) == 0)
            let next = openat(descriptor, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(descriptor)
            descriptor = next
        }
        close(descriptor)
        defer { _ = try? TestEnvironment.run("/bin/rm", ["-rf", root]) }
        let listing = FileSystem.listing(under: root)
        #expect(listing.unlistable.contains { $0.reason == String(cString: strerror(ENAMETOOLONG)) }, "\(listing.unlistable.map(\.reason))")
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", "--quick", root],
                                             environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": root + "-cache"]) { $1 })
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot be walked: File name too long"), "\(result.stderr.suffix(300))")
    }

    @Test("an empty or a non-media file is refused before the calibration (a header probe)")
    func probedFirst() throws {
        let folder = TestEnvironment.temporaryFolder("r26-probe")
        let empty = folder.appendingPathComponent("empty.png").path
        let text = folder.appendingPathComponent("note.txt").path
        FileManager.default.createFile(atPath: empty, contents: Data())
        FileManager.default.createFile(atPath: text, contents: Data("just words, not media\n".utf8))
        let started = Date()
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", empty, text],
                                             environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": folder.path]) { $1 })
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot measure: empty: \(empty)"), "\(result.stderr)")
        #expect(result.stderr.contains("cannot measure: unrecognized-type: \(text)"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 20, "the calibration ran first")
    }

    @Test("a calibration with a figure the cache reader would not believe, or a factor at its clamp, is flagged")
    func implausibleFlagged() {
        var absurd = TranscodeEstimatorTests.calibration
        absurd.overheadFrames[.ultrafast] = 1348.6
        #expect(absurd.inconsistencies == ["a figure is outside the plausible ranges (see json)"])
        var clamped = TranscodeEstimatorTests.calibration
        clamped.pipeline = [1080: [.veryfast: 5, .superfast: 1, .ultrafast: 1]]
        #expect(clamped.inconsistencies == ["x264 veryfast's whole-job factor at 1080p is at its bound (5.0)"])
    }
}
