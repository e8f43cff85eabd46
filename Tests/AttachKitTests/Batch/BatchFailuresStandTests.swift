import Foundation
import Testing
@testable import AttachKit

/// A rerun does not hide what failed: inputs an earlier run recorded as failed are counted, and
/// the run exits 1 while they stand (a Kubernetes Job restarted on failure must not turn green);
/// `--retry-failed` prepares them again. The summary says "grew by" when outputs are larger.
@Suite("Batch: failures stand across reruns")
struct BatchFailuresStandTests {
    @Test("a rerun over a folder with a broken input exits 1 and says it failed before; --retry-failed prepares it again")
    func failuresStand() throws {
        let inputs = TestEnvironment.temporaryFolder("failures-in")
        let out = TestEnvironment.temporaryFolder("failures-out")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_static_320x240.gif"), toPath: inputs.appendingPathComponent("good.gif").path)
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("malformed/jpeg_truncated_half.jpg"), toPath: inputs.appendingPathComponent("broken.jpg").path)
        let first = try TestEnvironment.runAttachKit(["batch", inputs.path, "--out", out.path])
        #expect(first.status == 1, "\(first.stdout)")
        let rerun = try TestEnvironment.runAttachKit(["batch", inputs.path, "--out", out.path])
        #expect(rerun.status == 1, "a rerun while the failure stands exits 1: \(rerun.stdout)")
        #expect(rerun.stdout.contains("2 already done (1 of them failed in an earlier run"), "\(rerun.stdout)")
        #expect(rerun.stdout.contains("broken.jpg") && rerun.stdout.contains("(an earlier run)"), "\(rerun.stdout)")
        let retried = try TestEnvironment.runAttachKit(["batch", inputs.path, "--out", out.path, "--retry-failed", "--json"])
        #expect(retried.status == 1)
        let reports = retried.stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
        #expect(reports.count == 1 && reports.first?["input"]?.stringValue?.hasSuffix("broken.jpg") == true, "\(retried.stdout)")
    }

    @Test("outputs larger than their inputs: the summary says grew by, never a negative saving")
    func grewBy() {
        var summary = BatchSummary()
        summary.inputBytes = 1_000
        summary.outputBytes = 1_348_185
        let text = summary.bytesLine
        #expect(text.contains("grew by") && !text.contains("-"), "\(text)")
    }
}
