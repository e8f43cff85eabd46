import Foundation
import Testing
@testable import AttachKit

/// A full disk and a folder that refuses writes: a clear error, no partial file, the input intact.
/// Uses a real 16 KB tmpfs and `chattr +i`, which need root (as on the CI machines); elsewhere the
/// run lists them as skipped, saying why.
@Suite("Output failures", .serialized)
struct OutputFailureTests {
    /// Whether this process may mount a tmpfs (root, and a kernel or container that allows it):
    /// tried once, on a scratch folder.
    static let canMountTmpfs: Bool = {
        guard geteuid() == 0 else { return false }
        let point = TestEnvironment.temporaryFolder("mountprobe")
        guard (try? TestEnvironment.run("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", point.path]))?.status == 0 else { return false }
        _ = try? TestEnvironment.run("umount", [point.path])
        return true
    }()

    /// Whether `chattr +i` works here (root, and a file system with the immutable flag): tried once.
    static let canMakeImmutable: Bool = {
        guard geteuid() == 0 else { return false }
        let folder = TestEnvironment.temporaryFolder("chattrprobe")
        guard (try? TestEnvironment.run("chattr", ["+i", folder.path]))?.status == 0 else { return false }
        _ = try? TestEnvironment.run("chattr", ["-i", folder.path])
        return true
    }()

    static func prepare(_ fixture: String, into folder: URL, maxBytes: Int64? = nil) throws -> (PrepareReport, [String]) {
        let input = TestEnvironment.fixture(fixture)
        let ledger = AccessLedger(scopes: [try AccessScope.folder(TestEnvironment.testMedia.path), try AccessScope.folder(folder.path)])
        let handle = try ledger.acquire(input)
        let report = Preparer(options: PrepareOptions(profile: .apple, outputFolder: folder.path, maxBytes: maxBytes)).prepare(handle, ledger: ledger)
        handle.release()
        #expect(ledger.report.isClean)
        return (report, InputWalker.filesIncludingHidden(under: folder.path))
    }

    @Test("a full disk: write-failed naming the cause, nothing left in the folder",
          .enabled(if: canMountTmpfs, "needs root and a system that lets it mount a 16 KB tmpfs"))
    func diskFull() throws {
        let mountPoint = TestEnvironment.temporaryFolder("diskfull")
        let mounted = try TestEnvironment.run("mount", ["-t", "tmpfs", "-o", "size=16k", "tmpfs", mountPoint.path])
        try #require(mounted.status == 0, "\(mounted.stderr)")
        defer { _ = try? TestEnvironment.run("umount", [mountPoint.path]) }
        let before = SHA256.hex(try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")))))
        // A 495 KB passthrough copy and a 43 KB re-encode both overflow 16 KB.
        for (fixture, budget) in [("images/jpeg_photo_1600x1200_q90.jpg", nil), ("images/webp_lossy_800x600.webp", Int64(200_000))] {
            let (report, files) = try Self.prepare(fixture, into: mountPoint, maxBytes: budget)
            let error = try #require(report.error, "\(fixture) did not fail on a full disk")
            #expect(error.code == "write-failed", "\(error)")
            #expect(error.message.contains("No space left on device"), "\(error.message)")
            #expect(files.isEmpty, "left behind: \(files)")
            #expect(report.output == nil)
        }
        let after = SHA256.hex(try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")))))
        #expect(before == after)
    }

    @Test("a folder that refuses writes: write-failed, nothing created",
          .enabled(if: canMakeImmutable, "needs root and a file system that supports chattr +i"))
    func refusedFolder() throws {
        let folder = TestEnvironment.temporaryFolder("readonly")
        let locked = try TestEnvironment.run("chattr", ["+i", folder.path])
        try #require(locked.status == 0, "\(locked.stderr)")
        defer { _ = try? TestEnvironment.run("chattr", ["-i", folder.path]) }
        let (report, files) = try Self.prepare("images/gif_static_320x240.gif", into: folder)
        let error = try #require(report.error)
        #expect(error.code == "write-failed")
        #expect(error.message.contains("Operation not permitted") || error.message.contains("Permission denied"), "\(error.message)")
        #expect(files.isEmpty)
    }

    @Test("a full disk, a quota or an I/O error while writing a clip is write-failed, as for images",
          arguments: [ENOSPC, EDQUOT, EFBIG, EIO])
    func clipWriteErrors(errno: Int32) {
        let error = ClipErrors.processing("writing the output", FFmpegError(operation: .writePacket, code: -errno))
        #expect(error.code == .writeFailed, "\(error.message)")
        let other = ClipErrors.processing("writing the output", FFmpegError(operation: .writePacket, code: -EINVAL))
        #expect(other.code == .processingFailed)
    }

    @Test("an output folder outside every scope is refused before anything is written")
    func outsideScope() throws {
        let input = TestEnvironment.fixture("images/gif_static_320x240.gif")
        let elsewhere = TestEnvironment.temporaryFolder("elsewhere")
        let ledger = AccessLedger(scopes: [try AccessScope.folder(TestEnvironment.testMedia.path)])
        let handle = try ledger.acquire(input)
        let report = Preparer(options: PrepareOptions(outputFolder: elsewhere.path)).prepare(handle, ledger: ledger)
        handle.release()
        #expect(report.error?.code == "access-denied")
        #expect(InputWalker.filesIncludingHidden(under: elsewhere.path).isEmpty)
        #expect(ledger.report.isClean)
    }
}
