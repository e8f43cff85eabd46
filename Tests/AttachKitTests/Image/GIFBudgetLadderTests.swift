import Foundation
import Testing
@testable import AttachKit

/// GIF byte fitting is monotonic in the budget: a GIF that fits budget B fits every budget above
/// B. The corpus' 1917×1533 GIF fitted 1 KB and 30 KB but not 12 or 20 KB ("111×89 is the
/// smallest size allowed"): the search gave up when the model's next levers fell under the
/// smallest picture, without ever trying the floor (48 px, one frame, 32 colours) that 1 KB got.
@Suite("GIF fitting: what fits a budget fits every larger one")
struct GIFBudgetLadderTests {
    /// Prepares `path` at each budget of `ladder`, smallest first, and checks each output.
    static func climb(_ path: String, scope: URL, ladder: [Int64], sourceLocation: SourceLocation = #_sourceLocation) throws {
        var firstFit: Int64?
        for budget in ladder {
            let outcome = try ImagePrepare.run(path, scope: scope, profile: .ios, maxBytes: budget, sourceLocation: sourceLocation)
            if let error = outcome.report.error {
                // Once a budget fits, no larger one may fail.
                #expect(firstFit == nil, "fits \(firstFit ?? 0) bytes but not \(budget): \(error.message)", sourceLocation: sourceLocation)
                continue
            }
            firstFit = firstFit ?? budget
            let output = try #require(outcome.report.output, sourceLocation: sourceLocation)
            let bytes = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int64 ?? .max
            #expect(bytes <= budget, "\(budget): \(bytes) bytes", sourceLocation: sourceLocation)
            #expect(try VipsHeader.of(output).loader == "gifload", sourceLocation: sourceLocation)
        }
        // The smallest budget of the ladder already fits: the floor is always tried.
        #expect(firstFit == ladder.first, sourceLocation: sourceLocation)
    }

    @Test("the corpus' 1917×1533 34-frame GIF fits every budget from 1 KB to 60 KB (12 and 20 KB were refused)", .needsCorpus, .timeLimit(.minutes(3)))
    func corpusGIF() throws {
        let corpus = TestEnvironment.corpus!
        try Self.climb(corpus.appendingPathComponent("images/gif_animated_1917x1533_34f.gif").path, scope: corpus,
                       ladder: [1_000, 5_000, 12_000, 20_000, 30_000, 60_000])
    }

    @Test("the 24-frame 320×240 fixture fits every budget from 1 KB to 60 KB")
    func fixtureGIF() throws {
        try Self.climb(TestEnvironment.fixture("images/gif_animated_320x240_24f.gif"), scope: TestEnvironment.testMedia,
                       ladder: [1_000, 1_500, 2_000, 3_000, 5_000, 8_000, 12_000, 20_000, 35_000, 60_000])
    }
}
