import Foundation
import Testing
@testable import AttachKit

/// Transcodes are byte-identical from run to run (``X264CPU``): x264's AVX-512 code read memory it
/// never wrote, so the same clip came out differently depending on what the process had done
/// before. (On a CPU without AVX-512 the old code passed these too.)
@Suite("Identical runs give identical bytes", .serialized)
struct BatchDeterminismTests {
    static let clip = "video/webm_vp9_profile2_pq_320x180_1s.webm"

    @Test("a transcode does not depend on what the heap held: prepare under different MALLOC_PERTURB_ gives the same bytes")
    func heapIndependent() throws {
        let folder = TestEnvironment.temporaryFolder("determinism-heap")
        var hashes = Set<String>()
        for perturb in ["0", "1", "85", "170"] {
            let out = folder.appendingPathComponent("out\(perturb)")
            let environment = ProcessInfo.processInfo.environment.merging(["MALLOC_PERTURB_": perturb]) { $1 }
            let result = try TestEnvironment.run(TestEnvironment.attachkit, ["prepare", "--json", "--out", out.path, TestEnvironment.fixture(Self.clip)],
                                                 environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            let report = try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(report["action"]?.stringValue == "transcoded")
            hashes.insert(SHA256.hex(try Data(contentsOf: URL(fileURLWithPath: try #require(report["output"]?.stringValue)))))
        }
        #expect(hashes.count == 1, "\(hashes.count) different outputs")
    }

    @Test("two batches of the same clips at the same --jobs write byte-identical files")
    func batchesIdentical() throws {
        let root = TestEnvironment.temporaryFolder("determinism-batch")
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        for file in ["video/mp4_h264_2560x1440_1s.mp4", Self.clip, "video/mp4_h264_high444_160x90.mp4", "video/webm_vp9_opus_320x240_2s.webm"] {
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture(file), toPath: input.appendingPathComponent(PathResolver.fileName(file)).path)
        }
        var runs: [[String: String]] = []
        for run in 0..<2 {
            let out = root.appendingPathComponent("out\(run)")
            let result = try TestEnvironment.runAttachKit(["batch", input.path, "--out", out.path, "--jobs", "2"])
            #expect(result.status == 0, "\(result.stderr)")
            var hashes: [String: String] = [:]
            for file in InputWalker.files(under: out.path) where !file.hasPrefix("manifest") {
                hashes[file] = SHA256.hex(try Data(contentsOf: out.appendingPathComponent(file)))
            }
            runs.append(hashes)
        }
        #expect(runs[0].count == 4 && runs[0] == runs[1], "\(runs)")
    }
}
