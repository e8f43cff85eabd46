import Foundation
import Testing
@testable import AttachKit

@Suite("Atomic outputs: temporary names, stale temporaries, descriptors")
struct AtomicOutputTests {
    let folder: URL
    let ledger: AccessLedger

    init() throws {
        folder = TestEnvironment.temporaryFolder("atomic")
        ledger = try AccessLedger.forTests([folder])
    }

    @Test("the temporary name carries the creating process id and is recognised exactly")
    func temporaryNames() throws {
        // Given
        let output = try AtomicOutput(folder: folder.path, stem: "a.b", ledger: ledger)

        // Then
        let name = output.temporaryName
        #expect(name.hasPrefix(".a.b.\(getpid())."))
        #expect(name.hasSuffix(".tmp"))
        #expect(AtomicOutput.owner(ofTemporary: name, stem: "a.b") == getpid())
        #expect(!AtomicOutput.isTemporary(name, stem: "a"))
        #expect(output.temporaryPath.hasPrefix("/proc/self/fd/"))
        #expect(FileManager.default.fileExists(atPath: folder.path + "/" + name))
        let token = AtomicOutput.hostToken
        for other in [".a.123.\(token)abcdef.tmp", ".a.123.\(token)abcdef.retry.tmp"] { #expect(AtomicOutput.owner(ofTemporary: other, stem: "a") == 123) }
        // Another host's or container's (another token), a user's look-alike, malformed names: not ours
        let otherToken = token == "0000" ? "1111" : "0000"
        for other in [".a.abcdef.tmp", ".a.12x.\(token)abcdef.tmp", ".a.123.\(token)abcde.tmp", ".a..\(token)abcdef.tmp", ".a.123.\(token)abcdef.tmp.x",
                      ".a.0.\(token)abcdef.tmp", ".a.123.\(otherToken)abcdef.tmp", ".a.3999999.AbCdEf.tmp"] {
            #expect(!AtomicOutput.isTemporary(other, stem: "a"), "\(other)")
        }
    }

    @Test("an output replaces only a file its guard lists: anything else at the name (a file, a FIFO) stays and the rename says taken")
    func replacesOnlyWhatItsGuardLists() throws {
        // Given a file somebody else put at x.jpg, a FIFO at f.jpg, and an earlier output at z.jpg that the guard lists
        try Data("theirs".utf8).write(to: folder.appendingPathComponent("x.jpg"))
        #expect(mkfifo(folder.appendingPathComponent("f.jpg").path, 0o644) == 0)
        try Data("old output".utf8).write(to: folder.appendingPathComponent("z.jpg"))
        let earlier = try #require(FileVersion(path: folder.appendingPathComponent("z.jpg").path))
        let rule = OutputGuard(replaceable: [earlier])
        // When outputs commit at each name
        func commit(_ name: String) throws -> OutputError? {
            let output = try AtomicOutput(folder: folder.path, stem: String(name.prefix(1)), ledger: ledger, guarding: rule)
            try output.write(Array("mine".utf8))
            let temporary = output.temporaryName
            defer { #expect(!FileManager.default.fileExists(atPath: folder.path + "/" + temporary)) }
            do throws(OutputError) {
                _ = try output.commit(named: name)
                return nil
            } catch {
                return error
            }
        }
        // Then the file and the FIFO are left as they were, and the rename said "taken"
        #expect(try commit("x.jpg") == .taken(path: folder.path + "/x.jpg"))
        #expect(try String(contentsOf: folder.appendingPathComponent("x.jpg"), encoding: .utf8) == "theirs")
        #expect(try commit("f.jpg") == .taken(path: folder.path + "/f.jpg"))
        var status = stat()
        #expect(lstat(folder.path + "/f.jpg", &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        // And the listed earlier output is replaced, and a free name commits as usual
        #expect(try commit("z.jpg") == nil)
        #expect(try String(contentsOf: folder.appendingPathComponent("z.jpg"), encoding: .utf8) == "mine")
        #expect(try commit("y.jpg") == nil)
    }

    @Test("past a file-size limit (ulimit -f) prepare says write-failed and leaves nothing partial, not killed by SIGXFSZ")
    func fileSizeLimit() throws {
        let out = TestEnvironment.temporaryFolder("fsize-out")
        let photo = TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")
        let run = try TestEnvironment.run("bash", ["-c", "ulimit -f 16; exec \"$0\" prepare --json --out \"$1\" \"$2\"",
                                                   TestEnvironment.attachkit, out.path, photo])
        #expect(run.status == 1, "status \(run.status): \(run.stdout)\(run.stderr)")
        #expect(TestEnvironment.errorCode(run.stdout) == "write-failed", "\(run.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    @Test("a stale temporary is removed only once its process is gone")
    func staleOnlyWhenTheProcessIsGone() throws {
        // Given: a temporary of a live process (a `sleep`), and ours
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["20"]
        try sleeper.run()
        let theirs = ".a.\(sleeper.processIdentifier).\(AtomicOutput.hostToken)Abc123.tmp"
        try Data([1]).write(to: folder.appendingPathComponent(theirs))
        let mine = try AtomicOutput(folder: folder.path, stem: "a", ledger: ledger)

        // When the process lives, nothing goes; once it is killed, its file goes and ours stays
        #expect(AtomicOutput.removeStaleTemporaries(in: folder.path, stems: ["a"]) == 0)
        kill(sleeper.processIdentifier, SIGKILL) // SIGTERM may be blocked in the test runner's children
        sleeper.waitUntilExit()
        #expect(AtomicOutput.removeStaleTemporaries(in: folder.path, stems: ["a"]) == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [mine.temporaryName])
    }

    @Test("prepare removes the temporaries a killed run left for its files, and no one else's")
    func killedRunLeftovers() throws {
        // A process that has exited: its id names no live process.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let token = AtomicOutput.hostToken
        let stale = folder.appendingPathComponent(".gif_static_320x240.\(gone.processIdentifier).\(token)abcdef.tmp").path
        let live = folder.appendingPathComponent(".gif_static_320x240.\(getpid()).\(token)ghijkl.tmp").path
        let other = folder.appendingPathComponent(".unrelated.\(gone.processIdentifier).\(token)abcdef.tmp").path
        for path in [stale, live, other] { #expect(FileManager.default.createFile(atPath: path, contents: Data([1]))) }

        let run = try TestEnvironment.runAttachKit(["prepare", "--out", folder.path, TestEnvironment.fixture("images/gif_static_320x240.gif")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live), "a live process's temporary is never touched")
        #expect(FileManager.default.fileExists(atPath: other), "only this run's names are swept")
    }

    @Test("a scratch file lives beside the output, replaces its content on move and is deleted after")
    func scratch() throws {
        // Given
        let output = try AtomicOutput(folder: folder.path, stem: "clip", ledger: ledger)
        try output.write(Array("first".utf8))
        do {
            let scratch = try ScratchFile(beside: output)
            #expect(FileManager.default.fileExists(atPath: folder.path + "/" + output.temporaryName.dropLast(4) + ".retry.tmp"))
            try Data("second, longer".utf8).write(to: URL(fileURLWithPath: scratch.path))

            // When
            try scratch.move(over: output)
        }

        // Then: one file, the output's, with the scratch content
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [output.temporaryName])
        #expect(try Data(contentsOf: URL(fileURLWithPath: output.temporaryPath)) == Data("second, longer".utf8))
        #expect(try output.commit(named: "clip.mp4").hasSuffix("/clip.mp4"))
        #expect(try Data(contentsOf: folder.appendingPathComponent("clip.mp4")) == Data("second, longer".utf8))
        #expect(ledger.report.isClean)
    }

    @Test("a temporary name replaced behind the output's back is not renamed into place")
    func replacedTemporary() throws {
        let output = try AtomicOutput(folder: folder.path, stem: "a", ledger: ledger)
        try output.write(Array("mine".utf8))
        let name = folder.path + "/" + output.temporaryName
        try FileManager.default.removeItem(atPath: name)
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: name))
        do {
            _ = try output.commit(named: "a.jpg")
            Issue.record("committed a file it did not write")
        } catch {
            #expect(error.description.contains("was replaced"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/a.jpg"))
    }

    @Test("dropping an uncommitted output deletes its temporary file")
    func dropDeletes() throws {
        do {
            let output = try AtomicOutput(folder: folder.path, stem: "a", ledger: ledger)
            try output.write([1, 2, 3])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
    }
}
