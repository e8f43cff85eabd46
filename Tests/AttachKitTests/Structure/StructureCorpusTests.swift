import Foundation
import Testing
@testable import AttachKit

/// The structural and deep checks against the shared real-world corpus (skipped when it is absent)
/// and the generated fixtures in `TestMedia/` (skipped until they exist).
@Suite("Structure: corpus")
struct StructureCorpusTests {
    static let validRows = CorpusRow.all().filter(\.isValid)
    static let malformedRows = CorpusRow.all().filter { !$0.isValid }

    /// Decompression bombs: never decoded, whatever the test.
    static func isBomb(_ row: CorpusRow) -> Bool { row.note.hasPrefix("adversarial") }

    static func sniff(_ path: String) throws -> FormatSniffer.Result {
        let reader = try FileReader(path: path)
        return FormatSniffer.sniff(reader)
    }

    @Test("valid corpus files are never corrupt, structurally or decoded", .needsCorpus,
          arguments: validRows)
    func validFile(_ row: CorpusRow) throws {
        // Given a well-formed file
        let sniff = try Self.sniff(row.path)

        // When it is checked, Then nothing is reported broken
        let structure = StructureChecker.check(path: row.path, sniff: sniff)
        #expect(structure.isIntactOrUnchecked, "\(row.file): \(structure)")

        guard !Self.isBomb(row), let probed = try? Prober().probeWithSniff(path: row.path, displayPath: row.file) else { return }
        let deep = DeepCheck.check(path: row.path, info: probed.info)
        #expect(deep.isIntactOrUnchecked, "\(row.file): \(deep)")
    }

    @Test("malformed corpus files the probe accepts are found corrupt", .needsCorpus,
          arguments: malformedRows)
    func malformedFile(_ row: CorpusRow) throws {
        // Given a broken file that the probe does not already reject
        guard let probed = try? Prober().probeWithSniff(path: row.path, displayPath: row.file) else { return }

        // When the structure is checked (and, if that finds nothing, the file is decoded)
        var verdict = StructureChecker.check(path: row.path, sniff: probed.sniff)
        if verdict.isIntactOrUnchecked {
            verdict = DeepCheck.check(path: row.path, info: probed.info)
        }

        // Then it is corrupt
        #expect(!verdict.isIntactOrUnchecked, "\(row.file) passed: \(verdict)")
    }

    /// Rows of `TestMedia/fixtures.tsv` (same columns as the corpus manifest), `[]` until generated.
    static let fixtureRows: [CorpusRow] = {
        let manifest = TestEnvironment.testMedia.appendingPathComponent("fixtures.tsv")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 10, !f[0].hasPrefix("#") else { return nil }
            return CorpusRow(file: f[0], kind: f[1], container: f[2], codec: f[3], width: Int(f[4]), height: Int(f[5]),
                             duration: Double(f[6]), frames: Int(f[7]), expected: f[8], note: f[9])
        }
    }()

    static func fixturePath(_ row: CorpusRow) -> String {
        TestEnvironment.testMedia.appendingPathComponent(row.file).path
    }

    @Test("valid generated fixtures are intact or not checked, structurally and decoded",
          .enabled(if: !fixtureRows.isEmpty, "needs TestMedia/fixtures.tsv (TestMedia/generate.sh writes it)"),
          arguments: fixtureRows.filter(\.isValid))
    func validFixture(_ row: CorpusRow) throws {
        let path = Self.fixturePath(row)
        try #require(FileManager.default.fileExists(atPath: path), "\(row.file) is listed but missing")
        let structure = StructureChecker.check(path: path, sniff: try Self.sniff(path))
        #expect(structure.isIntactOrUnchecked, "\(row.file): \(structure)")

        guard !Self.isBomb(row), let probed = try? Prober().probeWithSniff(path: path, displayPath: row.file) else { return }
        let deep = DeepCheck.check(path: path, info: probed.info)
        #expect(deep.isIntactOrUnchecked, "\(row.file): \(deep)")
    }

    @Test("malformed generated fixtures the probe accepts are found corrupt",
          .enabled(if: !fixtureRows.isEmpty, "needs TestMedia/fixtures.tsv (TestMedia/generate.sh writes it)"),
          arguments: fixtureRows.filter { $0.expected == "malformed" })
    func malformedFixture(_ row: CorpusRow) throws {
        let path = Self.fixturePath(row)
        guard let probed = try? Prober().probeWithSniff(path: path, displayPath: row.file) else { return }
        var verdict = StructureChecker.check(path: path, sniff: probed.sniff)
        if verdict.isIntactOrUnchecked {
            verdict = DeepCheck.check(path: path, info: probed.info)
        }
        #expect(!verdict.isIntactOrUnchecked, "\(row.file) passed: \(verdict)")
    }
}
