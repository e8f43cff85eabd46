import Foundation
import Testing
@testable import AttachKit

/// The hostile corpus (`TestMedia/hostile/generate.sh`): every input gets its expected outcome,
/// with no crash, no hang, no partial output, and the input left unchanged.
@Suite("Hostile inputs", .serialized)
struct HostileCorpusTests {
    struct Case: Sendable, CustomStringConvertible {
        let file: String
        let expectation: String
        let note: String
        var description: String { file }
    }

    /// The corpus, generated once per test run into a temporary folder.
    static let corpus: (folder: URL, cases: [Case]) = {
        let folder = TestEnvironment.temporaryFolder("hostile")
        let script = TestEnvironment.testMedia.appendingPathComponent("hostile/generate.sh").path
        let result = try? TestEnvironment.run("bash", [script, folder.path])
        precondition(result?.status == 0, "generate.sh failed: \(result?.stderr ?? "")")
        let table = (try? String(contentsOf: folder.appendingPathComponent("expectations.tsv"), encoding: .utf8)) ?? ""
        let cases = table.split(separator: "\n").map { line -> Case in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Case(file: f[0], expectation: f[1], note: f.count > 2 ? f[2] : "")
        }
        return (folder, cases)
    }()

    @Test("the generator produces every case it lists")
    func generated() {
        #expect(Self.corpus.cases.count >= 120)
        for item in Self.corpus.cases {
            #expect(FileManager.default.fileExists(atPath: Self.corpus.folder.appendingPathComponent(item.file).path))
        }
    }

    @Test("each hostile input: the expected outcome, nothing partial, the input unchanged",
          .timeLimit(.minutes(5)), arguments: corpus.cases)
    func outcome(item: Case) throws {
        let input = Self.corpus.folder.appendingPathComponent(item.file)
        let out = TestEnvironment.temporaryFolder("hostile-out")
        let before = SHA256.hex(try [UInt8](Data(contentsOf: input)))
        let ledger = AccessLedger(scopes: [try AccessScope.folder(Self.corpus.folder.path), try AccessScope.folder(out.path)])
        let handle = try ledger.acquire(input.path)
        let report = Preparer(options: PrepareOptions(profile: .ios, outputFolder: out.path)).prepare(handle, ledger: ledger)
        handle.release()
        #expect(ledger.report.isClean)
        #expect(SHA256.hex(try [UInt8](Data(contentsOf: input))) == before, "the input changed")
        let written = InputWalker.filesIncludingHidden(under: out.path)
        #expect(!written.contains { $0.hasSuffix(".tmp") }, "temporary left: \(written)")

        if item.expectation.hasPrefix("refused") {
            let error = try #require(report.error, "\(item.note): expected a refusal, got \(report.action?.rawValue ?? "?")")
            if item.expectation.hasPrefix("refused:") {
                #expect(error.code.rawValue == String(item.expectation.dropFirst("refused:".count)), "\(error)")
            }
            #expect(written.isEmpty, "a refused input wrote \(written)")
        } else if let error = report.error {
            #expect(!error.message.isEmpty)
            #expect(written.isEmpty, "a failed input wrote \(written)")
        } else {
            let output = try #require(report.output)
            let check = try Through.validate(output, scope: out, profile: .ios)
            #expect(check.ok, "\(item.file) → \(output): \(check.errors.map(\.message))")
        }
        // Probing and validating the same bytes never crash either.
        _ = try? Through.probe(input.path, scope: Self.corpus.folder)
        _ = try Through.validate(input.path, scope: Self.corpus.folder, profile: .apple, deep: true)
    }

    @Test("a 256 Mpx PNG under the safety cap prepares with bounded memory (whole process)")
    func boundedMemory() throws {
        let input = Self.corpus.folder.appendingPathComponent("png_bomb_16000x16000.png").path
        let out = TestEnvironment.temporaryFolder("hostile-rss")
        let usage = try ProcessUsage.run(TestEnvironment.attachkit, ["prepare", "--json", "--out", out.path, input])
        #expect(usage.status == 0)
        #expect(usage.peakMB > 10 && usage.peakMB < HostileBounds.peakMB, "peak RSS \(usage.peakMB) MB")
        print("hostile: png_bomb_16000x16000 prepare peak RSS \(Int(usage.peakMB)) MB, \(usage.wall) s")
    }
}

/// The memory bound stated in the README for preparing any hostile input.
enum HostileBounds {
    static let peakMB = 512.0
}

/// Wall time and peak RSS of an `attachkit` run, as the process itself reports it
/// (`ATTACHKIT_PEAK_RSS=1`: its own `VmHWM`; `wait4` from this large test process would report
/// the test's size, inherited at fork).
struct ProcessUsage {
    let status: Int32
    let wall: Double
    let peakMB: Double
    let stdout: String

    static func run(_ executable: String, _ arguments: [String]) throws -> ProcessUsage {
        let start = Date()
        let result = try TestEnvironment.run("env", ["ATTACHKIT_PEAK_RSS=1", executable] + arguments)
        let line = result.stderr.split(separator: "\n").first { $0.contains("peak RSS") } ?? ""
        let kilobytes = Double(line.split(separator: " ").compactMap { Int($0) }.first ?? 0)
        return ProcessUsage(status: result.status, wall: Date().timeIntervalSince(start), peakMB: kilobytes / 1024, stdout: result.stdout)
    }
}
