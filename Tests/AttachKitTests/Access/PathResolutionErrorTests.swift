import Foundation
import Testing
@testable import AttachKit
#if canImport(Glibc)
import Glibc
#endif

/// A path that cannot be resolved is reported for what it is: only a path with nothing there is
/// `not-found`; a symbolic link loop, a name too long, a folder that cannot be searched and a
/// name that is not UTF-8 are `unreadable`, each saying why.
@Suite("Path resolution errors: the right code and message")
struct PathResolutionErrorTests {
    /// The `probe --json` error of `path`.
    static func probeError(_ path: String) throws -> (code: String?, message: String) {
        let result = try TestEnvironment.runAttachKit(["probe", "--json", path])
        let line = try JSONValue.parse(try #require(result.stdout.split(separator: "\n").first.map(String.init)))
        return (line["error"]?["code"]?.stringValue, line["error"]?["message"]?.stringValue ?? "")
    }

    /// Creates a file in `folder` whose name is the bytes `name` (UTF-8 or not), holding `contents`.
    static func createFile(in folder: URL, name: [UInt8], contents: Data = Data()) {
        let path: [UInt8] = Array((folder.path + "/").utf8) + name + [0]
        let fd = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) } }
        #expect(fd >= 0)
        _ = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    @Test("a symbolic link loop is unreadable (ELOOP), not not-found, in the ledger and at the CLI")
    func loop() throws {
        let folder = TestEnvironment.temporaryFolder("resolve-loop")
        let a = folder.appendingPathComponent("a.jpg").path, b = folder.appendingPathComponent("b.jpg").path
        #expect(symlink(b, a) == 0 && symlink(a, b) == 0)
        let ledger = try AccessLedger.forTests([folder])
        #expect(throws: AccessError.unusable(path: a, reason: "a symbolic link loop (\(String(cString: strerror(ELOOP)))): the path never reaches a file")) {
            try ledger.acquire(a).release()
        }
        let (code, message) = try Self.probeError(a)
        #expect(code == "unreadable" && message.contains("symbolic link loop"), "\(message)")
        #expect(try Self.probeError(folder.appendingPathComponent("missing.jpg").path).code == "not-found")
    }

    @Test("a name longer than NAME_MAX is unreadable, saying the path is too long")
    func tooLong() throws {
        let folder = TestEnvironment.temporaryFolder("resolve-long")
        let (code, message) = try Self.probeError(folder.appendingPathComponent(String(repeating: "x", count: 300) + ".jpg").path)
        #expect(code == "unreadable" && message.contains("too long"), "\(message)")
    }

    @Test("a file whose name is not UTF-8 is unreadable, saying so, from probe's walk and from batch")
    func notUTF8() throws {
        // Given a folder holding a GIF whose name has the byte 0xFF
        let folder = TestEnvironment.temporaryFolder("resolve-utf8")
        let input = try folder.appendingPathComponent("in", isDirectory: true).creatingFolder()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("images/gif_static_320x240.gif")))
        Self.createFile(in: input, name: Array("a".utf8) + [0xFF] + Array(".gif".utf8), contents: bytes)

        // When probe walks the folder, Then the file is a failure that names the cause
        let probed = try TestEnvironment.runAttachKit(["probe", "--json", input.path])
        let line = try JSONValue.parse(probed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(line["error"]?["code"]?.stringValue == "unreadable", "\(probed.stdout)")
        #expect(line["error"]?["message"]?.stringValue?.contains("not valid UTF-8") == true)

        // And batch records it the same way
        let out = folder.appendingPathComponent("out")
        _ = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--in-process"])
        let lines = try BatchProcessTests.manifestLines(out)
        #expect(lines.count == 1 && lines[0]["error"]?["code"]?.stringValue == "unreadable", "\(lines.map(\.serialized))")
        #expect(lines[0]["error"]?["message"]?.stringValue?.contains("not valid UTF-8") == true)
    }

    @Test("batch with workers records a file whose name is not UTF-8 as a failure beside the files it prepared, instead of dropping it")
    func notUTF8BesideOthers() throws {
        let root = TestEnvironment.temporaryFolder("utf8")
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_static_320x240.gif"),
                                         toPath: input.appendingPathComponent("ok.gif").path)
        Self.createFile(in: input, name: Array("bad".utf8) + [0xFF, 0xFE] + Array(".gif".utf8))
        let out = root.appendingPathComponent("out")
        let run = try TestEnvironment.run(TestEnvironment.attachkit, ["batch", input.path, "--out", out.path])
        #expect(run.status == 1)
        let lines = try BatchProcessTests.manifestLines(out)
        #expect(lines.count == 2, "both files recorded: \(lines.map(\.serialized))")
        #expect(lines.contains { $0["error"]?["message"]?.stringValue?.contains("not valid UTF-8") == true }, "\(lines.map(\.serialized))")
    }

    @Test("a folder on the way that cannot be searched is unreadable, not not-found",
          .enabled(if: getuid() != 0, "root searches every folder, so EACCES cannot be made here"))
    func cannotSearch() throws {
        let folder = TestEnvironment.temporaryFolder("resolve-eacces")
        let closed = try folder.appendingPathComponent("closed", isDirectory: true).creatingFolder()
        try Data([1]).write(to: closed.appendingPathComponent("a.jpg"))
        #expect(chmod(closed.path, 0o000) == 0)
        defer { chmod(closed.path, 0o755) }
        let (code, message) = try Self.probeError(closed.appendingPathComponent("a.jpg").path)
        #expect(code == "unreadable" && message.contains("cannot be searched"), "\(message)")
    }
}
