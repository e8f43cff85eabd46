import Foundation
import Testing
@testable import AttachKit

/// A re-encode aims under the profile's recommended size (`ios`: 5 MB of video) when the cap
/// size at its ladder minimum fits in it (issue 13 item 6); otherwise comfort or the budget sets
/// the bitrates and a note says why the output is over the recommendation.
@Suite("Video under the recommended size")
struct RecommendedSizeTests {
    static func fitter(duration: Double, recommended: Int64?) throws -> BudgetFitter {
        let job = try AudioVideoFitTests.job(maxBytes: 50_000_000, duration: duration)
        let source = AudioVideoFitTests.source(width: 3840, height: 2160, duration: duration)
        let template = EncodeTemplate(container: .mp4, video: source.video, audio: source.audio, window: .whole, maxLongEdge: 1920,
                                      budget: 50_000_000, recommended: recommended)
        return BudgetFitter(job: job, source: source, template: template)
    }

    @Test("4K at 30 fps cut to 1080p: 8 s at comfortable rates (~4.5 MB) is under 5 MB; 30 s aims under 5 MB at the cap size")
    func aimsWhenReachable() throws {
        let short = try #require(try Self.fitter(duration: 8, recommended: 5_000_000).sizing(duration: 8))
        #expect(!short.aimed && !short.binding)
        let long = try #require(try Self.fitter(duration: 30, recommended: 5_000_000).sizing(duration: 30))
        #expect(long.aimed && !long.binding)
        #expect(long.width == 1920 && long.height == 1080)
        let bytes = Double(long.videoBitRate + long.audioBitRate) * 30 / 8
        #expect(bytes < 5_000_000, "\(bytes)")
        #expect(long.videoBitRate >= BitrateBudget.minimumVideoBitRate(longEdge: 1920, frameRate: 30))
    }

    @Test("unreachable at the 1080p minimum (120 s in 5 MB): the budget sets the bitrates, the picture keeps its size")
    func unreachableKeepsComfort() throws {
        let fitter = try Self.fitter(duration: 120, recommended: 5_000_000)
        let sized = try #require(fitter.sizing(duration: 120))
        #expect(!sized.aimed)
        #expect(sized.width == 1920)
        #expect(fitter.recommendedTotal(duration: 120, total: Int.max) == nil)
        let without = try #require(try Self.fitter(duration: 120, recommended: nil).sizing(duration: 120))
        #expect(without == sized)
    }
}
