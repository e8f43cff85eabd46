import Foundation
import Synchronization
import Testing
@testable import AttachKit

/// No verb replaces a file AttachKit did not write: a user's photo or a FIFO at a thumbnail's
/// `--out`, a file already in `prepare`'s output folder, a file put at a batch output's name while
/// the batch runs. Only a batch's own earlier outputs (device, inode, size and modification time,
/// recorded when it was planned) are replaced, so a new file that reuses a freed inode is not. Names that differ only in invisible characters are one name.
@Suite("Files AttachKit did not write are never replaced")
struct ForeignFilesNeverReplacedTests {
    static let photo = TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")

    @Test("attachkit thumbnail --out onto a user's photo or a FIFO: output-collision, the photo's bytes and the FIFO kept")
    func thumbnailOntoAFile() throws {
        let folder = TestEnvironment.temporaryFolder("foreign-thumbnail")
        let theirs = folder.appendingPathComponent("holiday.jpg")
        try Data("the user's photo".utf8).write(to: theirs)
        let fifo = folder.appendingPathComponent("pipe.jpg").path
        #expect(mkfifo(fifo, 0o644) == 0)
        for target in [theirs.path, fifo] {
            let result = try TestEnvironment.runAttachKit(["thumbnail", Self.photo, "--json", "--out", target])
            #expect(result.status == 1, "\(target): \(result.stdout)")
            #expect(TestEnvironment.errorCode(result.stdout) == "output-collision", "\(target): \(result.stdout)")
        }
        #expect(try String(contentsOf: theirs, encoding: .utf8) == "the user's photo")
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["holiday.jpg", "pipe.jpg"])
    }

    @Test("attachkit prepare into a folder holding a user's a.jpg: the output takes the next name and says why; a.jpg is kept")
    func prepareBesideAUsersFile() throws {
        let inputs = TestEnvironment.temporaryFolder("foreign-prepare-in")
        let out = TestEnvironment.temporaryFolder("foreign-prepare-out")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/webp_lossy_800x600.webp"), toPath: inputs.appendingPathComponent("a.webp").path)
        try Data("the user's a.jpg".utf8).write(to: out.appendingPathComponent("a.jpg"))
        for run in 1...2 {
            let result = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path, inputs.appendingPathComponent("a.webp").path])
            #expect(result.status == 0, "\(result.stderr)")
            let report = try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            let output = try #require(report["output"]?.stringValue)
            #expect(PathResolver.fileName(output) != "a.jpg", "run \(run): \(output)")
            #expect(report["outputName"]?["reason"]?.stringValue?.contains("a.jpg is a file already in the output folder") == true, "\(result.stdout)")
        }
        #expect(try String(contentsOf: out.appendingPathComponent("a.jpg"), encoding: .utf8) == "the user's a.jpg")
    }

    @Test("a batch output replaces its own earlier file, never one put at its name since the plan")
    func replacesOnlyItsOwnEarlierOutput() throws {
        let inputs = TestEnvironment.temporaryFolder("foreign-batch-in")
        let out = TestEnvironment.temporaryFolder("foreign-batch-out")
        let input = inputs.appendingPathComponent("a.jpg").path
        try FileManager.default.copyItem(atPath: Self.photo, toPath: input)
        let earlier = out.appendingPathComponent("a.jpg")
        try Data("an earlier output".utf8).write(to: earlier)
        let recorded = try #require(FileVersion(path: earlier.path))
        let ledger = try AccessLedger.forTests([inputs, out])
        let preparer = Preparer(options: PrepareOptions(profile: .ios, outputFolder: out.path, maxBytes: 200_000))
        // When the earlier output is still there: it is replaced
        let first = ledger.withAccess(input, refused: { PrepareReport(input: input, error: .probe(.access($0))) }) {
            preparer.prepare($0, ledger: ledger, outputStem: "a", replacing: [recorded])
        }
        #expect(first.ok && first.output.map(PathResolver.fileName) == "a.jpg", "\(String(describing: first.error))")
        // When a user's file took the name since (another inode): it is kept, the output moves on
        try FileManager.default.removeItem(at: earlier)
        try Data("a user's file".utf8).write(to: earlier)
        let second = ledger.withAccess(input, refused: { PrepareReport(input: input, error: .probe(.access($0))) }) {
            preparer.prepare($0, ledger: ledger, outputStem: "a", replacing: [recorded])
        }
        #expect(second.ok, "\(String(describing: second.error))")
        #expect(second.output.map(PathResolver.fileName) != "a.jpg")
        #expect(try String(contentsOf: earlier, encoding: .utf8) == "a user's file")
        #expect(ledger.report.isClean)
    }

    @Test("a batch whose input folder sub/ would be mirrored where a user's file 'sub' is: the mirror becomes sub-2/, the file is kept")
    func fileWhereAFolderIsMirrored() throws {
        let inputs = TestEnvironment.temporaryFolder("foreign-mirror-in")
        let out = TestEnvironment.temporaryFolder("foreign-mirror-out")
        try FileManager.default.createDirectory(at: inputs.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.photo, toPath: inputs.appendingPathComponent("sub/a.jpg").path)
        try Data("the user's file".utf8).write(to: out.appendingPathComponent("sub"))
        let result = try TestEnvironment.runAttachKit(["batch", inputs.path, "--out", out.path, "--max-bytes", "300KB"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(try String(contentsOf: out.appendingPathComponent("sub"), encoding: .utf8) == "the user's file")
        let listed = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("sub-2/a.jpg").path), "\(listed)")
    }

    @Test("two requests at once for x.webp and x.png with thumbnails into one folder: two outputs, two thumbnails, none lost (the thumbnail takes its name first)")
    func concurrentStemAcrossTypes() throws {
        let inputs = TestEnvironment.temporaryFolder("foreign-race-in")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/webp_lossy_800x600.webp"), toPath: inputs.appendingPathComponent("x.webp").path)
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/png_rgba_transparency_320x240.png"), toPath: inputs.appendingPathComponent("x.png").path)
        for round in 0..<4 {
            let out = TestEnvironment.temporaryFolder("foreign-race-out")
            let ledger = try AccessLedger.forTests([inputs, out])
            var options = PrepareOptions(profile: .ios, outputFolder: out.path)
            options.thumbnail = true
            let preparer = Preparer(options: options)
            let reports = Mutex<[PrepareReport]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let path = inputs.appendingPathComponent(index == 0 ? "x.webp" : "x.png").path
                let report = ledger.withAccess(path, refused: { PrepareReport(input: path, error: .probe(.access($0))) }) {
                    preparer.prepare($0, ledger: ledger)
                }
                reports.withLock { $0.append(report) }
            }
            let done = reports.withLock { $0 }
            let allOK = done.allSatisfy { $0.ok }
            #expect(allOK, "round \(round): \(done.map { String(describing: $0.error) })")
            let thumbnails = done.compactMap(\.thumbnail)
            #expect(thumbnails.count == 2 && Set(thumbnails).count == 2, "round \(round): \(thumbnails)")
            let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".") }
            #expect(files.count == 4, "round \(round): \(files)")
            #expect(ledger.report.isClean)
        }
    }

    @Test("a user's manifest.jsonl or lock file in --out stops the batch untouched; a user's file that looks like a dead run's temporary is kept")
    func bookkeepingLookAlikes() throws {
        let inputs = TestEnvironment.temporaryFolder("foreign-book-in")
        try FileManager.default.copyItem(atPath: Self.photo, toPath: inputs.appendingPathComponent("photo.jpg").path)
        for name in ["manifest.jsonl", "manifest.jsonl.lock", ".attachkit-batch.lock"] {
            let out = TestEnvironment.temporaryFolder("foreign-book-out")
            try Data("the user's notes\n".utf8).write(to: out.appendingPathComponent(name))
            let result = try TestEnvironment.runAttachKit(["batch", inputs.path, "--out", out.path])
            #expect(result.status == 1, "\(name): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("is not") && result.stderr.contains(name), "\(name): \(result.stderr)")
            #expect(try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8) == "the user's notes\n", "\(name)")
        }
        // A look-alike of a killed run's temporary (a process id no process has, no host token)
        let out = TestEnvironment.temporaryFolder("foreign-book-tmp")
        let lookAlike = out.appendingPathComponent(".photo.3999999.AbCdEf.tmp")
        try Data("the user's file".utf8).write(to: lookAlike)
        let prepared = try TestEnvironment.runAttachKit(["prepare", "--out", out.path, inputs.appendingPathComponent("photo.jpg").path])
        #expect(prepared.status == 0, "\(prepared.stdout)")
        #expect(try String(contentsOf: lookAlike, encoding: .utf8) == "the user's file")
    }

    @Test("names that differ only in invisible characters (ZWNJ, ZWJ, BOM, soft hyphen) have one key, and a batch gives them distinct outputs")
    func invisibleTwins() throws {
        let names = ["a.png", "a\u{200C}.png", "a\u{200D}.png", "a\u{FEFF}.png", "a\u{00AD}.png"]
        #expect(Set(names.map(CaselessName.key)).count == 1)
        let inputs = TestEnvironment.temporaryFolder("foreign-invisible-in")
        let out = TestEnvironment.temporaryFolder("foreign-invisible-out")
        for name in names {
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/png_rgba_transparency_320x240.png"), toPath: inputs.appendingPathComponent(name).path)
        }
        let result = try TestEnvironment.runAttachKit(["batch", inputs.path, "--out", out.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix("manifest") && !$0.hasPrefix(".") }
        #expect(written.count == names.count, "\(written)")
        #expect(Set(written.map(CaselessName.key)).count == names.count, "\(written)")
    }
}
