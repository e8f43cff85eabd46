import Foundation
import Testing
@testable import AttachKit

@Suite("Acquire → work → release in one call")
struct AccessWithAccessTests {
    struct Stop: Error, Equatable {}

    @Test("the handle is released after a return, after a throw, and never acquired when refused")
    func releasesOnEveryPath() throws {
        // Given a ledger over a folder holding one file
        let root = TestEnvironment.temporaryFolder("with-access")
        let file = root.appendingPathComponent("a.jpg")
        try Data([0xFF, 0xD8, 0xFF]).write(to: file)
        let ledger = try AccessLedger.forTests([root])

        // When the work returns, Then it saw the file and the handle is released
        let seen = ledger.withAccess(file.path, refused: { _ in "" }) { $0.resolvedPath }
        #expect(seen == PathResolver.realPath(file.path))
        #expect(ledger.report.isClean && ledger.report.acquired == 1)

        // When the work throws, Then the error comes through and the handle is released
        #expect(throws: Stop()) {
            try ledger.withAccess(file.path, refused: { _ in 0 }) { _ throws(Stop) -> Int in throw Stop() }
        }
        #expect(ledger.report.isClean && ledger.report.acquired == 2)

        // When access is refused, Then the work never runs and nothing is acquired
        let refused = ledger.withAccess("/etc/hostname", refused: { $0.code }) { _ -> ErrorCode in
            Issue.record("the work ran outside the scope")
            return .corrupt
        }
        #expect(refused == .accessDenied)
        #expect(ledger.report.isClean && ledger.report.acquired == 2)
    }
}
