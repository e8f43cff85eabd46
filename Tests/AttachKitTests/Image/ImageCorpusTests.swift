import Foundation
import Testing
@testable import AttachKit

/// `prepare` under `apple` and `ios` on every valid image of TestMedia and of the shared corpus:
/// each output is checked for its real properties (``ImageChecks/verify``), not for an exit code.
@Suite("Image preparation on TestMedia and the corpus")
struct ImageCorpusTests {
    static let fixtures = CorpusRow.fixtures().filter { $0.kind == "image" && $0.isValid }
    /// Valid images of the corpus (the two decompression bombs are valid files, refused by size:
    /// see ``ImageRefusalTests``).
    static let corpus = CorpusRow.all().filter { $0.kind == "image" && $0.isValid && !$0.note.hasPrefix("adversarial") }

    @Test("every image fixture prepares under apple and ios", arguments: fixtures, ["apple", "ios"])
    func fixture(row: CorpusRow, profile: String) throws {
        let profile = try #require(Profile.builtIn[profile])
        let outcome = try ImagePrepare.run(row.path, scope: TestEnvironment.testMedia, profile: profile)
        try ImageChecks.verify(outcome, input: row.path, scope: TestEnvironment.testMedia, profile: profile)
    }

    @Test("every valid corpus image prepares under apple and ios", .needsCorpus, arguments: corpus, ["apple", "ios"])
    func corpusImage(row: CorpusRow, profile: String) throws {
        let profile = try #require(Profile.builtIn[profile])
        let outcome = try ImagePrepare.run(row.path, scope: TestEnvironment.corpus!, profile: profile)
        try ImageChecks.verify(outcome, input: row.path, scope: TestEnvironment.corpus!, profile: profile)
    }
}
