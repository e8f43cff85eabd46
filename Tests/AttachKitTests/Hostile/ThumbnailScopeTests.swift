import Foundation
import Testing
@testable import AttachKit

/// Where `thumbnail` may write: a folder outside the allowed roots is access-denied (not "is a
/// folder", which would tell a client what exists outside them); a folder is never written as a
/// file; the name must say JPEG, since iOS reads the type from it. Nothing is written when refused.
@Suite("Thumbnail output paths: outside the roots, a folder, a name that is not .jpg")
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

    @Test("thumbnail --out DIR/ is refused as a folder, not written as a file named after the folder")
    func folderAsOutput() throws {
        let folder = TestEnvironment.temporaryFolder("thumb-folder")
        let run = try TestEnvironment.run(TestEnvironment.attachkit,
                                          ["thumbnail", TestEnvironment.fixture("images/gif_static_320x240.gif"), "--out", folder.path + "/"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("is a folder") || run.stderr.contains("is a folder"), "\(run.stdout) \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("a thumbnail named .png is refused as unsupported, naming .jpg (iOS reads the type from the name); nothing is written")
    func nameNotJPEG() throws {
        let folder = TestEnvironment.temporaryFolder("thumb-png")
        let run = try TestEnvironment.runAttachKit(["thumbnail", "--json", TestEnvironment.fixture("images/gif_static_320x240.gif"),
                                                    "--out", folder.appendingPathComponent("x.png").path])
        #expect(run.status != 0)
        let refusal = try JSONValue.parse(run.stdout)["error"]
        #expect(refusal?["code"]?.stringValue == "unsupported", "\(run.stdout)")
        #expect(refusal?["message"]?.stringValue?.contains(".jpg") == true, "\(run.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
