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
}
