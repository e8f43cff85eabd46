import Foundation
import Testing
@testable import AttachKit

/// Cases an outside tester found against the CLI (the split lock and worker recycling have tests
/// of their own): each now gets a clear refusal.
@Suite("outsider findings")
struct OutsiderFindingsTests {
    @Test("thumbnail --out DIR/ is refused as a folder, not written as a file named after the folder")
    func thumbnailIntoFolder() throws {
        let folder = TestEnvironment.temporaryFolder("thumb-folder")
        let run = try TestEnvironment.run(TestEnvironment.attachkit,
                                          ["thumbnail", TestEnvironment.fixture("images/gif_static_320x240.gif"), "--out", folder.path + "/"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("is a folder") || run.stderr.contains("is a folder"), "\(run.stdout) \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("numbers are read in decimal only: 0x10, nan and inf are refused; byte counts take TB",
          arguments: [("--max-duration", "0x10", false), ("--max-duration", "nan", false), ("--max-duration", "inf", false),
                      ("--max-bytes", "0x10", false), ("--max-bytes", "1TB", true), ("--max-duration", "1.5e1", true)])
    func decimalOnly(option: String, value: String, accepted: Bool) throws {
        let out = TestEnvironment.temporaryFolder("decimal")
        let run = try TestEnvironment.run(TestEnvironment.attachkit,
                                          ["prepare", option, value, "--out", out.path, TestEnvironment.fixture("audio/mp3_stereo_44k_5s.mp3")])
        #expect(accepted ? run.status == 0 : run.status == 64, "\(option) \(value): exit \(run.status) \(run.stderr.prefix(200))")
    }

    @Test("batch records a file whose name is not UTF-8 as a failure instead of dropping it")
    func nonUTF8Name() throws {
        let root = TestEnvironment.temporaryFolder("utf8")
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_static_320x240.gif"),
                                         toPath: input.appendingPathComponent("ok.gif").path)
        var name = Array((input.path + "/bad").utf8) + [0xFF, 0xFE] + Array(".gif".utf8) + [0]
        let fd = name.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_WRONLY | O_CREAT, 0o644) }
        }
        #expect(fd >= 0)
        close(fd)
        let out = root.appendingPathComponent("out").path
        let run = try TestEnvironment.run(TestEnvironment.attachkit, ["batch", input.path, "--out", out])
        #expect(run.status == 1)
        let lines = try String(contentsOfFile: out + "/manifest.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2, "both files recorded: \(lines)")
        #expect(lines.contains { $0.contains("not valid UTF-8") })
    }
}
