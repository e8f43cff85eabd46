import Foundation
import Testing
@testable import AttachKit

/// What `acquire` opens: exactly one regular file (or, for writes, one folder) beneath a scope's
/// root, held by descriptor.
@Suite("Containment: what a handle may hold")
struct AccessContainmentTests {
    let root: URL
    let outside: URL

    init() throws {
        let base = TestEnvironment.temporaryFolder("containment")
        root = try base.appendingPathComponent("root", isDirectory: true).creatingFolder()
        outside = try base.appendingPathComponent("outside", isDirectory: true).creatingFolder()
        try Data("inside".utf8).write(to: root.appendingPathComponent("a.jpg"))
        try Data("outside".utf8).write(to: outside.appendingPathComponent("secret.jpg"))
    }

    @Test("a read handle reads the file it checked, even after the name is swapped for a link outside")
    func handleKeepsTheCheckedFile() throws {
        // Given
        let ledger = try AccessLedger.forTests([root])
        let name = root.appendingPathComponent("a.jpg").path
        let handle = try ledger.acquire(name)

        // When: the name now leads outside
        try FileManager.default.removeItem(atPath: name)
        try FileManager.default.createSymbolicLink(atPath: name, withDestinationPath: outside.appendingPathComponent("secret.jpg").path)

        // Then
        #expect(try Data(contentsOf: URL(fileURLWithPath: handle.path)) == Data("inside".utf8))
        #expect(handle.resolvedPath.hasSuffix("/root/a.jpg"))
        handle.release()
        #expect(ledger.report.isClean)
    }

    @Test("links escaping the root, `..` escapes and absolute links out are refused; a link that stays inside is followed")
    func escapes() throws {
        let ledger = try AccessLedger.forTests([root])
        let secret = outside.appendingPathComponent("secret.jpg").path
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("out.jpg").path, withDestinationPath: secret)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("up").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("in.jpg").path, withDestinationPath: "a.jpg")
        for path in [root.path + "/out.jpg", root.path + "/../outside/secret.jpg", root.path + "/up/outside/secret.jpg"] {
            #expect(throws: AccessError.self, "\(path)") { _ = try ledger.acquire(path) }
        }
        // Writing names a folder and a name in it: the folder must not escape (a link as the
        // name itself is replaced, never followed; see outputNameIsNeverFollowed).
        for path in [root.path + "/../outside/new.jpg", root.path + "/up/outside/new.jpg"] {
            #expect(throws: AccessError.self, "\(path)") { _ = try ledger.acquire(path, mode: .write) }
        }
        let handle = try ledger.acquire(root.path + "/in.jpg")
        #expect(handle.resolvedPath.hasSuffix("/root/a.jpg"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: handle.path)) == Data("inside".utf8))
        handle.release()
        #expect(ledger.report.isClean)
    }

    @Test("a folder, a FIFO and a device are refused as unreadable, a FIFO without blocking")
    func notRegularFiles() throws {
        let ledger = try AccessLedger.forTests([root])
        let fifo = root.appendingPathComponent("pipe.jpg").path
        #expect(mkfifo(fifo, 0o644) == 0)
        try FileManager.default.createDirectory(atPath: root.path + "/folder.jpg", withIntermediateDirectories: false)
        for (path, kind) in [(fifo, "a FIFO"), (root.path + "/folder.jpg", "a folder")] {
            do {
                _ = try ledger.acquire(path)
                Issue.record("\(path) was granted")
            } catch {
                #expect(error.code == "unreadable")
                #expect(error.description.contains(kind), "\(error)")
            }
        }
        let devices = AccessLedger(scopes: [try AccessScope.folder("/dev")])
        #expect(throws: AccessError.unusable(path: "/dev/null", reason: "a character device, not a regular file")) {
            _ = try devices.acquire("/dev/null")
        }
        #expect(ledger.report.acquired == 0 && devices.report.acquired == 0)
    }

    @Test("a file scope grants that file only while it is the same file")
    func fileScopeIdentity() throws {
        let file = root.appendingPathComponent("a.jpg").path
        let ledger = AccessLedger(scopes: [try AccessScope.file(file)])
        try ledger.acquire(file).release()
        // Replaced by another file under the same name: not what was granted. (The other file
        // exists before the swap: a file created after the granted one is deleted may reuse its
        // inode number, but then it holds only what the writer could have written into the
        // granted file itself.)
        let other = root.appendingPathComponent("other.jpg").path
        try Data("other".utf8).write(to: URL(fileURLWithPath: other))
        #expect(rename(other, file) == 0)
        #expect(throws: AccessError.changed(path: file)) { _ = try ledger.acquire(file) }
        #expect(ledger.report.isClean)
    }

    @Test("openat2 and the O_NOFOLLOW walk both refuse links, `..` and absolute paths, and open what is beneath")
    func beneath() throws {
        let scope = try AccessScope.folder(root.path)
        try FileManager.default.createDirectory(atPath: root.path + "/sub", withIntermediateDirectories: false)
        try Data("deep".utf8).write(to: root.appendingPathComponent("sub/b.jpg"))
        try FileManager.default.createSymbolicLink(atPath: root.path + "/link", withDestinationPath: "sub")
        try FileManager.default.createSymbolicLink(atPath: root.path + "/sub/c.jpg", withDestinationPath: "b.jpg")
        let opens: [(String, (String) -> Result<Int32, SystemError>)] = [
            ("openat2", { Descriptors.open(beneath: scope.anchor.descriptor, $0, flags: .readOnly) }),
            ("walk", { Descriptors.walk(beneath: scope.anchor.descriptor, $0, flags: .readOnly) }),
        ]
        for (label, open) in opens {
            for (path, expected) in [("link/b.jpg", ELOOP), ("sub/c.jpg", ELOOP), ("../outside/secret.jpg", EXDEV),
                                     ("sub/../../outside/secret.jpg", EXDEV), (outside.path + "/secret.jpg", EXDEV),
                                     ("a.jpg/x", ENOTDIR), ("nope.jpg", ENOENT)] {
                guard case .failure(let error) = open(path) else {
                    Issue.record("\(label) opened \(path)")
                    continue
                }
                #expect(error.code == expected, "\(label) \(path): \(error)")
            }
            for path in ["sub/b.jpg", "./sub//b.jpg", "a.jpg"] {
                guard case .success(let descriptor) = open(path) else {
                    Issue.record("\(label) could not open \(path)")
                    continue
                }
                #expect(Descriptors.irregularKind(of: descriptor) == nil)
                close(descriptor)
            }
        }
    }

    @Test("an output named like an existing link neither follows nor replaces it: the rename is refused as taken, the link and its target kept")
    func outputNameIsNeverFollowed() throws {
        // Given: out/a.jpg is a link to a file outside the scopes
        let out = try root.appendingPathComponent("out", isDirectory: true).creatingFolder()
        let secret = outside.appendingPathComponent("secret.jpg").path
        try FileManager.default.createSymbolicLink(atPath: out.path + "/a.jpg", withDestinationPath: secret)
        let ledger = try AccessLedger.forTests([root])

        // When
        let output = try AtomicOutput(folder: out.path, stem: "a", ledger: ledger)
        try output.write(Array("new".utf8))
        var refusal: OutputError?
        do throws(OutputError) { _ = try output.commit(named: "a.jpg") } catch { refusal = error }

        // Then
        #expect(refusal == .taken(path: PathResolver.realPath(out.path)! + "/a.jpg"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: secret)) == Data("outside".utf8))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out.path + "/a.jpg") == secret)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["a.jpg"])
        #expect(ledger.report.isClean)
    }
}
