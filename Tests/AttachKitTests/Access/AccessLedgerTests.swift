import Foundation
import Testing
@testable import AttachKit

@Suite("Access handles and the ledger")
struct AccessLedgerTests {
    let root: URL
    let inside: URL

    init() throws {
        root = TestEnvironment.temporaryFolder("ledger")
        inside = root.appendingPathComponent("a.jpg")
        try Data([0xFF, 0xD8, 0xFF]).write(to: inside)
    }

    @Test("a released handle leaves the ledger clean")
    func releaseIsClean() throws {
        let ledger = try AccessLedger.forTests([root])
        let handle = try ledger.acquire(inside.path)
        #expect(handle.resolvedPath == PathResolver.realPath(inside.path))
        #expect(handle.path.hasPrefix("/proc/self/fd/"))
        #expect(ledger.report.outstanding.count == 1)
        handle.release()
        #expect(ledger.report.isClean)
        #expect(ledger.report.acquired == 1)
    }

    @Test("a handle dropped without release is recorded as a leak, with where it was acquired")
    func catchesLeak() throws {
        let ledger = try AccessLedger.forTests([root])
        do {
            _ = try ledger.acquire(inside.path)
        }
        let report = ledger.report
        #expect(report.leaked.count == 1)
        #expect(report.leaked.first?.acquiredAt.contains("AccessLedgerTests.swift") == true)
        #expect(!report.isClean)
        #expect(report.problems.first?.contains("never released") == true)
    }

    @Test("a second release of the same acquisition is recorded as a double release")
    func catchesDoubleRelease() throws {
        // The noncopyable handle makes a second release a compile error; the ledger still checks
        // the token path underneath.
        let ledger = try AccessLedger.forTests([root])
        let handle = try ledger.acquire(inside.path)
        let token = handle.token
        handle.release()
        ledger.end(token)
        #expect(ledger.report.doubleReleases.count == 1)
        #expect(ledger.report.doubleReleases.first?.path == PathResolver.realPath(inside.path))
    }

    @Test("`..` that climbs out of the scope is refused")
    func refusesDotDotEscape() throws {
        let ledger = try AccessLedger.forTests([root.appendingPathComponent("sub", isDirectory: true).creatingFolder()])
        #expect(throws: AccessError.self) {
            _ = try ledger.acquire(root.path + "/sub/../a.jpg")
        }
        #expect(ledger.report.acquired == 0)
    }

    @Test("a symbolic link pointing out of the scope is refused")
    func refusesSymlinkEscape() throws {
        let scope = try root.appendingPathComponent("scope", isDirectory: true).creatingFolder()
        let link = scope.appendingPathComponent("escape.jpg")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: inside)
        let ledger = try AccessLedger.forTests([scope])
        do {
            _ = try ledger.acquire(link.path)
            Issue.record("expected access-denied")
        } catch {
            #expect(error.code == "access-denied")
            #expect(error.description.contains("escapes"))
        }
    }

    @Test("a missing file is not-found, a file scope grants only that file")
    func missingAndFileScope() throws {
        let ledger = AccessLedger(scopes: [try AccessScope.file(inside.path)])
        #expect(throws: AccessError.notFound(path: root.path + "/nope.jpg")) { _ = try ledger.acquire(root.path + "/nope.jpg") }
        let other = root.appendingPathComponent("b.jpg")
        try Data([1]).write(to: other)
        #expect(throws: AccessError.self) { _ = try ledger.acquire(other.path) }
        try ledger.acquire(inside.path).release()
        #expect(ledger.report.isClean)
    }

    @Test("write access needs an existing folder inside a folder scope")
    func writeAccess() throws {
        let ledger = try AccessLedger.forTests([root])
        let handle = try ledger.acquire(root.path + "/new/../out.jpg", mode: .write)
        #expect(handle.resolvedPath == PathResolver.realPath(root.path)! + "/out.jpg")
        handle.release()
        #expect(throws: AccessError.self) { _ = try ledger.acquire(root.path + "/missing/out.jpg", mode: .write) }
        #expect(throws: AccessError.self) { _ = try ledger.acquire("/tmp/../etc/out.jpg", mode: .write) }
        #expect(ledger.report.isClean)
    }

    @Test("many threads acquiring and releasing keep exact counts")
    func concurrentUse() async throws {
        let ledger = try AccessLedger.forTests([root])
        let path = inside.path
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { try? ledger.acquire(path).release() }
            }
        }
        #expect(ledger.report.acquired == 200)
        #expect(ledger.report.isClean)
    }
}

extension URL {
    func creatingFolder() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
