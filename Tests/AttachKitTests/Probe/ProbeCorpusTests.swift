import Foundation
import Testing
@testable import AttachKit

/// Probe answers against the shared real-world corpus, whose manifest was measured with
/// ffprobe 5.1 and vipsheader 8.14.
@Suite("Probe on the shared corpus")
struct ProbeCorpusTests {
    static let rows = CorpusRow.all()

    @Test("the corpus manifest lists files (otherwise the corpus tests below run on nothing)", .needsCorpus)
    func corpusListed() {
        #expect(!Self.rows.isEmpty)
    }

    @Test("every valid row: kind, container, codec, size, frames and duration agree", .needsCorpus, arguments: rows.filter(\.isValid))
    func validRowAgrees(row: CorpusRow) throws {
        let info = try Through.probe(row.path, scope: TestEnvironment.corpus!)
        ProbeExpectations.check(info, against: row)
        #expect(info.bytes == (try FileManager.default.attributesOfItem(atPath: row.path)[.size] as? Int64))
    }

    @Test("every malformed row is either refused with a stable code or probed without crashing", .needsCorpus,
          arguments: rows.filter { !$0.isValid })
    func malformedRowNeverCrashes(row: CorpusRow) throws {
        do {
            let info = try Through.probe(row.path, scope: TestEnvironment.corpus!)
            #expect(info.bytes >= 0)
        } catch let error as ProbeError {
            #expect(["empty", "unrecognized-type", "corrupt"].contains(error.code), "\(row.file): \(error)")
            #expect(!error.message.isEmpty)
        }
    }
}
