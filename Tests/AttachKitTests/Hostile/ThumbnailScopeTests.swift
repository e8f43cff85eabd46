import Foundation
import Testing
@testable import AttachKit

/// An outside tester's finding: `thumbnail` with `out` a folder outside the allowed roots answered
/// "is a folder" (telling a client what exists outside them) instead of access-denied.
@Suite("Hostile: thumbnail output paths outside the roots")
struct ThumbnailScopeTests {
    @Test("out=/etc is access-denied; the allowed folder itself is the clear 'is a folder' refusal")
    func outsideRoots() throws {
        let folder = TestEnvironment.temporaryFolder("thumb-scope")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("a.jpg").path
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"), toPath: input)
        let lines = ["/etc", "/etc/", folder.path].enumerated().map { index, out in
            #"{"id":\#(index),"op":"thumbnail","path":"\#(input)","options":{"out":"\#(out)"}}"#
        }
        let run = try TestEnvironment.runAttachKit(["serve", "--in-process", "--allow", folder.path], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        let answers = run.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
        func code(_ id: Int) -> String? { answers.first { $0["id"]?.intValue == id }?["result"]?["error"]?["code"]?.stringValue }
        #expect(code(0) == "access-denied" && code(1) == "access-denied", "\(run.stdout)")
        #expect(code(2) == "write-failed", "\(run.stdout)")
    }
}
