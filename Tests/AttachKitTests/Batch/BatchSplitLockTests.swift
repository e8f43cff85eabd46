import Foundation
import Testing
@testable import AttachKit

/// Runs of one output folder must agree on the split (found by an outside test: an unsharded
/// batch and shards of another batch on one folder each recorded the other's outputs as theirs).
@Suite("batch split lock")
struct BatchSplitLockTests {
    @Test("shards of one count share a folder; an unsharded run, or another count, is refused while they hold it")
    func sameSplitOnly() throws {
        let folder = TestEnvironment.temporaryFolder("split").path
        do {
            let first = try BatchSplitLock(outputRoot: folder, shards: 2)
            let second = try BatchSplitLock(outputRoot: folder, shards: 2)
            #expect(throws: BatchError.self) { _ = try BatchSplitLock(outputRoot: folder, shards: 1) }
            #expect(throws: BatchError.self) { _ = try BatchSplitLock(outputRoot: folder, shards: 3) }
            withExtendedLifetime(first) {}
            withExtendedLifetime(second) {}
        }
        do {
            let unsharded = try BatchSplitLock(outputRoot: folder, shards: 1)
            #expect(throws: BatchError.self) { _ = try BatchSplitLock(outputRoot: folder, shards: 2) }
            #expect(throws: BatchError.self) { _ = try BatchSplitLock(outputRoot: folder, shards: 1) }
            withExtendedLifetime(unsharded) {}
        }
        // Once every holder is gone, any split may start.
        let later = try BatchSplitLock(outputRoot: folder, shards: 3)
        withExtendedLifetime(later) {}
    }

    @Test("attachkit batch: a sharded run on a folder an unsharded run is writing exits 75 and names the conflict")
    func processesRefuse() throws {
        let root = TestEnvironment.temporaryFolder("split-process")
        let input = try root.appendingPathComponent("in", isDirectory: true).creatingFolder()
        for index in 0..<3 {
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/png_rgb_opaque_400x300.png"),
                                             toPath: input.appendingPathComponent("p\(index).png").path)
        }
        let out = root.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let held = try BatchSplitLock(outputRoot: out, shards: 1)
        let refused = try TestEnvironment.run(TestEnvironment.attachkit, ["batch", input.path, "--out", out, "--shard", "0/2"])
        withExtendedLifetime(held) {}
        #expect(refused.status == 75, "\(refused.stderr)")
        #expect(refused.stderr.contains("unsharded batch"))
        #expect(!FileManager.default.fileExists(atPath: out + "/manifest-shard-0-of-2.jsonl"))
    }
}
