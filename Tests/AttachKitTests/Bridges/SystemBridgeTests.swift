import Foundation
import Testing
@testable import AttachKit

/// `Bridges/System`, the one place the other layers reach libc through: owned descriptors, typed
/// errno, the `*at` calls, the directory stream.
@Suite("Bridges/System: descriptors, names, errno")
struct SystemBridgeTests {
    @Test("writeAll and pwrite put every byte where asked; pread and read give them back; the size and kind are fstat's")
    func writeAndReadBack() throws {
        let folder = TestEnvironment.temporaryFolder("system-rw").path
        let path = folder + "/file.bin"
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        do {
            let fd = try FileDescriptor.open(path, [.readWrite, .create, .exclusive, .noFollow], mode: 0o600)
            try fd.writeAll(bytes)
            try fd.writeAll([1, 2, 3], toAbsoluteOffset: 10)
            try fd.sync()
            let status = try fd.status()
            #expect(status.kind == .regular && status.size == Int64(bytes.count) && status.linkCount == 1)
            #expect(status.permissions == 0o600)
            #expect(try fd.seekToEnd() == Int64(bytes.count))
            var head = [UInt8](repeating: 0, count: 16)
            #expect(try fd.read(fromAbsoluteOffset: 8, into: &head) == 16)
            #expect(Array(head[0..<5]) == [bytes[8], bytes[9], 1, 2, 3])
            try fd.truncate(to: 100)
            #expect(try fd.status().size == 100)
        }
        var expected = Array(bytes.prefix(100))
        expected.replaceSubrange(10..<13, with: [1, 2, 3])
        let reader = try FileDescriptor.open(path, .readOnly)
        #expect(reader.readAll(limit: 1 << 20) == expected)
        #expect(try FileDescriptor.open(path, .readOnly).readAll(limit: 50) == nil)
    }

    @Test("failures are the errno of the call, named: O_EXCL on an existing file, O_NOFOLLOW on a link, a missing file, RENAME_NOREPLACE")
    func typedErrors() throws {
        let folder = TestEnvironment.temporaryFolder("system-errno").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/a"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "a")
        #expect(throws: SystemError.exists) { _ = try FileDescriptor.open(folder + "/a", [.writeOnly, .create, .exclusive]) }
        #expect(throws: SystemError.tooManySymbolicLinks) { _ = try FileDescriptor.open(folder + "/link", [.readOnly, .noFollow]) }
        #expect(throws: SystemError.noEntry) { _ = try FileNames.status(folder + "/missing") }
        #expect(SystemError.noEntry.description == "No such file or directory")
        try Data("y".utf8).write(to: URL(fileURLWithPath: folder + "/b"))
        let directory = try FileDescriptor.open(folder, [.readOnly, .directory])
        #expect(throws: SystemError.exists) { try FileNames.renameWithoutReplacing("b", in: directory.rawValue, to: "a", in: directory.rawValue) }
        #expect(try String(contentsOfFile: folder + "/a", encoding: .utf8) == "x")
        #expect(FileNames.statusIfPresent("link", in: directory.rawValue, followingLinks: false)?.kind == .symbolicLink)
        #expect(FileNames.statusIfPresent("link", in: directory.rawValue)?.kind == .regular)
        #expect(try FileNames.linkTarget("link", in: directory.rawValue) == "a")
    }

    @Test("the directory stream lists every entry once, with its type; names() leaves out . and ..; a temporary folder is new and 0700")
    func directoryStream() throws {
        let folder = try FileNames.makeTemporaryFolder(prefix: TestEnvironment.temporaryFolder("system-dir").path + "/t-")
        #expect(try FileNames.status(folder).permissions == 0o700)
        try FileNames.makeFolder(folder + "/sub", mode: 0o755)
        let names = (0..<300).map { "f\($0)" }
        for name in names { try Data().write(to: URL(fileURLWithPath: folder + "/" + name)) }
        var stream = try DirectoryStream(path: folder)
        var seen: [String: FileStatus.Kind?] = [:]
        while let entry = stream.next() { seen[entry.name] = entry.kind }
        #expect(seen.count == names.count + 3)
        #expect(seen["sub"] == .directory && seen["f7"] == .regular)
        #expect(Set(DirectoryStream.names(in: folder) ?? []) == Set(names + ["sub"]))
        #expect(throws: SystemError.noEntry) { _ = try DirectoryStream(path: folder + "/missing") }
        FileSystem.removeTree(folder)
        #expect(!FileSystem.exists(folder))
    }

    @Test("the EINTR policy: a call interrupted is made again, other failures come back at once with their errno")
    func interruptPolicy() {
        var calls = 0
        let retried = SystemCall.result { () -> Int32 in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 7
        }
        #expect(retried == .success(7) && calls == 3)
        calls = 0
        let seen = SystemCall.result(retryOnInterrupt: false) { () -> Int32 in
            calls += 1
            errno = EINTR
            return -1
        }
        #expect(seen == .failure(.interrupted) && calls == 1)
        #expect(SystemCall.result { () -> Int32 in errno = ENOSPC; return -1 } == .failure(.noSpace))
    }
}
