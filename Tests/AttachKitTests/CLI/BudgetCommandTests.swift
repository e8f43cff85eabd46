import Foundation
import Testing
@testable import AttachKit

/// `attachkit budget`: the table's JSON shape, from the calibration alone and for the user's files.
/// `--quick` calibrates on small frames and caches nothing; the cache folder is a temporary one anyway.
@Suite("attachkit budget")
struct BudgetCommandTests {
    static func run(_ arguments: [String]) throws -> JSONValue {
        let cache = TestEnvironment.temporaryFolder("budget-cache").path
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", "--quick", "--json"] + arguments,
                                             environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache]) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty, "--quick wrote a cache")
        return try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("without files: the calibration and an estimated row per source codec, height and preset")
    func synthetic() throws {
        let json = try Self.run(["--deadline", "10"])
        let calibration = try #require(json["calibration"].flatMap { SpeedCalibration(json: $0) })
        #expect(Set(calibration.encode.keys) == [180])
        #expect(Set(calibration.encode[180]?.keys ?? [:].keys) == Set(EncoderSpeed.allCases))
        #expect(Set(calibration.overheadFrames.keys) == Set(EncoderSpeed.allCases))
        #expect(json["cache"] == nil || json["cache"] == .null)
        #expect(json["deadline"]?.doubleValue == 10)
        let rows = try #require(json["rows"]?.arrayValue)
        #expect(rows.count == 3 * 3 * 3)
        for row in rows {
            #expect(row["seconds"] == nil)
            #expect((row["estimated"]?.doubleValue ?? 0) > 0)
            #expect(row["unit"]?.stringValue == "s")
            #expect(abs((row["longest"]?.doubleValue ?? 0) * (row["perUnit"]?.doubleValue ?? 0) - 10) < 1e-6)
        }
    }

    @Test("with a file that is transcoded: one timed row per preset, with the estimate beside it")
    func files() throws {
        let json = try Self.run([TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm")])
        let rows = try #require(json["rows"]?.arrayValue)
        #expect(rows.compactMap { $0["preset"]?.stringValue } == EncoderSpeed.allCases.map(\.rawValue))
        for row in rows {
            #expect(row["operation"]?.stringValue == "vp9 → H.264 (ios)")
            // The path as given (a folder's files as folder/relative path: two x.png in two subfolders stay apart).
            #expect(row["input"]?.stringValue == TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm"))
            #expect((row["seconds"]?.doubleValue ?? 0) > 0)
            #expect((row["estimated"]?.doubleValue ?? 0) > 0)
            #expect((row["estimateRatio"]?.doubleValue ?? 0) > 0)
            #expect(abs((row["amount"]?.doubleValue ?? 0) - 2) < 0.1)
            #expect(row["error"] == nil)
        }
    }

    @Test("a file that cannot be read, or a folder with nothing in it, is reported before the calibration")
    func unreadableFirst() throws {
        let folder = TestEnvironment.temporaryFolder("budget-unreadable")
        let empty = folder.appendingPathComponent("empty").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let cache = TestEnvironment.temporaryFolder("budget-cache").path
        let environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache]) { $1 }
        let started = Date()
        // Without --quick: a calibration would take most of a minute.
        let missing = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", folder.appendingPathComponent("missing.webm").path,
                                                                          TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm")],
                                              environment: environment)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot measure: not-found: \(folder.appendingPathComponent("missing.webm").path): no such file or folder"),
                "\(missing.stderr)")
        let nothing = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", empty], environment: environment)
        #expect(nothing.status == 1)
        #expect(nothing.stderr.contains("no files to measure"), "\(nothing.stderr)")
        #expect(Date().timeIntervalSince(started) < 20, "the calibration ran first")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty)
    }

    @Test("an empty or a non-media file is refused before the calibration (a header probe)")
    func probedFirst() throws {
        let folder = TestEnvironment.temporaryFolder("budget-probe")
        let empty = folder.appendingPathComponent("empty.png").path
        let text = folder.appendingPathComponent("note.txt").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(FileManager.default.createFile(atPath: text, contents: Data("just words, not media\n".utf8)))
        let started = Date()
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", empty, text],
                                             environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": folder.path]) { $1 })
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot measure: empty: \(empty)"), "\(result.stderr)")
        #expect(result.stderr.contains("cannot measure: unrecognized-type: \(text)"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 20, "the calibration ran first")
    }

    @Test("a FIFO, a device, or a link out of a folder named is refused before the calibration, not waited on")
    func irregularFirst() throws {
        let folder = TestEnvironment.temporaryFolder("budget-irregular")
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": folder.appendingPathComponent("cache").path]) { $1 }
        let started = Date()
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", fifo, "/dev/null"], environment: environment)
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot measure: unreadable: \(fifo): a FIFO, not a regular file"), "\(result.stderr)")
        #expect(result.stderr.contains("cannot measure: unreadable: /dev/null: a character device, not a regular file"), "\(result.stderr)")
        // A link in a folder named that leads out of it, or to a folder, is what the run would refuse.
        let named = folder.appendingPathComponent("named")
        try FileManager.default.createDirectory(at: named.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let outside = folder.appendingPathComponent("outside.jpg").path
        try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"))).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.createSymbolicLink(atPath: named.appendingPathComponent("out").path, withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: named.appendingPathComponent("loop").path, withDestinationPath: "sub")
        let links = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", named.path], environment: environment)
        #expect(links.status == 1)
        #expect(links.stderr.contains("cannot measure: access-denied: \(named.path)/out resolves to"), "\(links.stderr)")
        #expect(links.stderr.contains("cannot measure: unreadable: \(named.path)/loop: a folder, not a regular file"), "\(links.stderr)")
        #expect(Date().timeIntervalSince(started) < 20, "the calibration ran first")
        // A folder that cannot be listed says why (as root, a FIFO walked as a folder is the case at hand).
        let listing = FileSystem.listing(under: fifo)
        #expect(listing.files.isEmpty && listing.unlistable.map(\.folder) == [""] && listing.unlistable.first?.reason == "Not a directory")
        #expect(FileSystem.listing(under: folder.path).unlistable.isEmpty)
    }

    @Test("a FIFO inside a folder named is reported before the calibration, as when it is named itself")
    func fifoInFolder() throws {
        // Given a folder with a video and a FIFO beside it
        let folder = TestEnvironment.temporaryFolder("budget-fifo-folder")
        let named = folder.appendingPathComponent("named")
        try FileManager.default.createDirectory(at: named, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm"),
                                         toPath: named.appendingPathComponent("clip.webm").path)
        let fifo = named.appendingPathComponent("pipe.webm").path
        #expect(mkfifo(fifo, 0o644) == 0)
        // The walk lists it (the ledger, not the walk, decides what is refused)
        #expect(FileSystem.listing(under: named.path).files == ["clip.webm", "pipe.webm"])
        // When budget is asked to measure the folder (no --quick: a calibration would take a minute)
        let environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": folder.appendingPathComponent("cache").path]) { $1 }
        let started = Date()
        let result = try TestEnvironment.run(TestEnvironment.attachkit, ["budget", named.path], environment: environment)
        // Then the FIFO is refused by name, at once
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot measure: unreadable: \(fifo): a FIFO, not a regular file"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 20, "the calibration ran first")
    }
}
