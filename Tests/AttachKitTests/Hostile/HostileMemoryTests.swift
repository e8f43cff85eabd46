import Foundation
import Testing
@testable import AttachKit

/// The memory bound the README states for hostile input, measured on the `attachkit` process
/// itself (`ATTACHKIT_PEAK_RSS=1`, its own `VmHWM`): `probe`, `prepare` and `thumbnail` of every
/// file of the hostile corpus peak under ``HostileBounds/peakMB`` (a probe of sample tables
/// declaring 89 M samples took 2.1 GB), and what is over a safety cap (the
/// decode-memory bombs included: a HEIF grid reusing one tile 100 times, an interlaced PNG, a
/// progressive JPEG) is refused as `over-cap` by `prepare`, `thumbnail` and `validate --deep` alike.
@Suite("Hostile inputs: peak memory of the command line")
struct HostileMemoryTests {
    @Test("probe, prepare and thumbnail of each hostile input: peak RSS under the bound, over-cap refused before decoding",
          .timeLimit(.minutes(5)), arguments: HostileCorpusTests.corpus.cases)
    func peakMemory(item: HostileCorpusTests.Case) throws {
        // Given a hostile input
        let input = HostileCorpusTests.corpus.folder.appendingPathComponent(item.file).path
        let out = TestEnvironment.temporaryFolder("hostile-memory")
        // When the CLI probes it, prepares it and renders its thumbnail
        let probe = try ProcessUsage.run(TestEnvironment.attachkit, ["probe", "--json", input])
        let prepare = try ProcessUsage.run(TestEnvironment.attachkit, ["prepare", "--json", "--out", out.path, input])
        let thumbnail = try ProcessUsage.run(TestEnvironment.attachkit,
                                             ["thumbnail", "--json", input, "--out", out.appendingPathComponent("thumbnail.jpg").path])
        // Then each process ends normally, under the bound
        for (verb, usage) in [("probe", probe), ("prepare", prepare), ("thumbnail", thumbnail)] {
            #expect([0, 1].contains(usage.status), "\(verb) \(item.file): exit \(usage.status)")
            #expect(usage.peakMB > 5 && usage.peakMB < HostileBounds.peakMB, "\(verb) \(item.file): peak RSS \(Int(usage.peakMB)) MB")
        }
        guard item.expectation == "refused:over-cap" else { return }
        // ...and what is over a cap is refused as over-cap by each verb
        #expect(TestEnvironment.errorCode(prepare.stdout) == "over-cap", "prepare: \(prepare.stdout.prefix(300))")
        #expect(TestEnvironment.errorCode(thumbnail.stdout) == "over-cap", "thumbnail: \(thumbnail.stdout.prefix(300))")
        let validate = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", "--profile", "apple", input])
        let codes = (try? JSONValue.parse(validate.stdout))?["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(validate.status == 1 && codes.contains("over-cap"), "validate --deep: \(validate.stdout.prefix(300))")
    }

    @Test("batch refuses the decode-memory bombs as over-cap, each with its cap named")
    func batch() throws {
        // Given a folder of the decode-memory bombs
        let input = TestEnvironment.temporaryFolder("hostile-memory-batch-in")
        let bombs = ["heif_grid_bomb_16380x16380.heic", "heif_grid_distinct_12000x12000.heic", "heif_grid_ispe_lies_1638x1638.heic",
                     "png_interlaced_16000x16000.png", "jpeg_progressive_16000x16000.jpg"]
        for name in bombs {
            try FileManager.default.copyItem(at: HostileCorpusTests.corpus.folder.appendingPathComponent(name),
                                             to: input.appendingPathComponent(name))
        }
        let out = TestEnvironment.temporaryFolder("hostile-memory-batch-out")
        // When a batch prepares them
        let usage = try ProcessUsage.run(TestEnvironment.attachkit, ["batch", input.path, "--out", out.path, "--jobs", "2"])
        // Then every one is refused as over-cap on maxDecodeBytes, and nothing is written
        #expect(usage.status == 1)
        let manifest = try String(contentsOf: out.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        let lines = manifest.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
        #expect(lines.count == bombs.count)
        for line in lines {
            #expect(line["error"]?["code"]?.stringValue == "over-cap", "\(line.serialized.prefix(300))")
            #expect(line["error"]?["message"]?.stringValue?.contains("maxDecodeBytes") == true)
        }
        #expect(usage.peakMB < HostileBounds.peakMB, "batch peak RSS \(Int(usage.peakMB)) MB")
    }
}
