import Foundation
import Testing
@testable import AttachKit

/// The pure decisions of the image pipeline: sizes within caps, frame selection, the quality
/// search and the animation levers, each against numbers worked out by hand or a synthetic model.
@Suite("Image planning: pixel caps, frames, quality search, animation levers")
struct ImagePlanningTests {
    // MARK: Pixel caps

    @Test("fit keeps the aspect ratio and lands within every cap", arguments: [
        (4032, 3024), (3024, 4032), (6720, 4480), (2048, 2048), (2049, 1), (1, 100_000), (20000, 14000),
    ])
    func fitWithinCaps(width: Int, height: Int) {
        let caps = PixelBudget(Profile.ios.image)
        let fitted = caps.fit(width: width, height: height)
        #expect(caps.allows(width: fitted.width, height: fitted.height))
        #expect(fitted.width <= width && fitted.height <= height)
        // The long edge is used (within one pixel of the cap, or of the aspect-limited size).
        let scale = min(2048 / Double(max(width, height)), 1)
        #expect(abs(Double(fitted.width) - Double(width) * scale) <= 1)
        #expect(abs(Double(fitted.height) - Double(height) * scale) <= 1)
    }

    @Test("pixel and decoded-size caps tighter than the long edge decide the size")
    func pixelCapsDecide() {
        let caps = PixelBudget(maxLongEdge: 4000, maxPixels: 1_000_000, maxDecodedBytes: 2_000_000)
        let fitted = caps.fit(width: 4000, height: 3000)
        // 2 MB decoded = 500,000 px at 4:3 → 816×612.
        #expect(fitted.width == 816 && fitted.height == 612)
        #expect(caps.allows(width: 816, height: 612) && !caps.allows(width: 817, height: 613))
        let none = PixelBudget().fit(width: 123, height: 45)
        #expect(none.width == 123 && none.height == 45)
    }

    // MARK: Frames

    @Test("frames are dropped evenly, the first kept, and the total duration is unchanged")
    func evenFrameSelection() {
        let selection = FrameSelection(total: 34, keeping: 17)
        #expect(selection.kept == Array(stride(from: 0, to: 34, by: 2)))
        let delays = (0..<34).map { 100 + $0 }
        let merged = selection.mergedDelays(delays)
        #expect(merged.count == 17)
        #expect(merged.reduce(0, +) == delays.reduce(0, +))
        #expect(merged[0] == 100 + 101)

        let uneven = FrameSelection(total: 10, keeping: 3)
        #expect(uneven.kept == [0, 3, 6])
        #expect(uneven.mergedDelays(Array(repeating: 40, count: 10)) == [120, 120, 160])
        #expect(uneven.keeps(6) && !uneven.keeps(7) && uneven.dropsFrames)
        #expect(!FrameSelection.all(5).dropsFrames)
        #expect(FrameSelection(total: 5, keeping: 99).kept == [0, 1, 2, 3, 4])
        #expect(FrameSelection(total: 5, keeping: 0).kept == [0])
    }

    @Test("a selection made among kept frames maps back to the original frames")
    func composedSelection() {
        let first = FrameSelection(total: 24, keeping: 12)
        let second = FrameSelection(total: 12, keeping: 4)
        #expect(second.composed(after: first).kept == [0, 6, 12, 18])
    }

    // MARK: Quality search

    /// A JPEG-like size curve: the slope of ln(bytes) is `slope` at quality 80 and shrinks
    /// exponentially below it (halving by about quality 45 for decay 0.02), as measured on the corpus.
    struct Curve: Sendable, CustomStringConvertible {
        let base: Double
        let slope: Double
        let decay: Double
        func bytes(_ q: Int) -> Int64 {
            Int64(base * exp(slope / decay * (exp(decay * Double(q - 80)) - 1)))
        }
        var description: String { "\(Int(base)) B at q80, slope \(slope), decay \(decay)" }
    }

    static let curves = [
        Curve(base: 406_192, slope: 0.027, decay: 0.02),   // the corpus' 2725×2225 photo at 2048 px
        Curve(base: 187_302, slope: 0.06, decay: 0.05),    // the film-grain fixture: steep at the top
        Curve(base: 50_188, slope: 0.037, decay: 0.015),   // the corpus' 6720×4480 at 2048 px
        Curve(base: 241_677, slope: 0.02, decay: 0.01),
        Curve(base: 1_000_000, slope: 0.045, decay: 0.03),
    ]

    @Test("the search lands in [0.90, 1.0] of the budget in few encodes, never over, never repeating", arguments: curves)
    func searchConverges(curve: Curve) {
        var attempts: [Int] = []
        for share in [0.95, 0.8, 0.65, 0.55] {
            let budget = Int64(Double(curve.bytes(80)) * share)
            var search = QualitySearch(floor: 20, ceiling: 80, budget: budget)
            var tried: Set<Int> = []
            var answer: Int?
            for _ in 0..<12 where answer == nil {
                switch search.next() {
                case .encode(let q):
                    #expect(!tried.contains(q), "q\(q) tried twice")
                    #expect(search.sizes.filter { $0.value > budget }.keys.allSatisfy { $0 > q }, "q\(q) is above a quality known to be over")
                    tried.insert(q)
                    search.record(quality: q, bytes: curve.bytes(q))
                case .done(let q):
                    answer = q
                case .belowFloor:
                    Issue.record("floor 20 fits \(share) of the q80 size on \(curve)")
                    answer = -1
                }
            }
            guard let q = answer, q > 0 else { continue }
            #expect(curve.bytes(q) <= budget)
            // In the window, or the next quality up is over budget (the window fell between steps).
            #expect(Double(curve.bytes(q)) >= 0.9 * Double(budget) || curve.bytes(q + 1) > budget || q == 80)
            attempts.append(tried.count)
        }
        let average = Double(attempts.reduce(0, +)) / Double(max(1, attempts.count))
        #expect(average <= 4, "attempts \(attempts)")
    }

    @Test("a floor that cannot fit is reported, measured or predicted, never encoded below")
    func floorCannotFit() {
        let curve = Curve(base: 400_000, slope: 0.03, decay: 0.02)
        var search = QualitySearch(floor: 50, ceiling: 80, budget: 50_000)
        guard case .encode(let first) = search.next() else { Issue.record("expected an encode"); return }
        #expect(first == 80)
        search.record(quality: 80, bytes: curve.bytes(80))
        // 400 KB at q80 with the prior slope puts q50 near 200 KB, far over 50 KB: no need to encode it.
        guard case .belowFloor(let predicted) = search.next(), let predicted else {
            Issue.record("expected a predicted floor")
            return
        }
        #expect(predicted > 50_000 * 1.15)

        var measured = QualitySearch(floor: 50, ceiling: 80, budget: 180_000)
        measured.record(quality: 80, bytes: 200_000)
        measured.record(quality: 50, bytes: 190_000)
        #expect(measured.next() == .belowFloor(predicted: nil))
    }

    @Test("the ceiling is the answer when it fits, and HEIC qualities move in steps of 2")
    func ceilingAndSteps() {
        var search = QualitySearch(floor: 50, ceiling: 80, budget: 1_000_000)
        search.record(quality: 80, bytes: 300_000)
        #expect(search.next() == .done(80))

        var heic = QualitySearch(floor: 50, ceiling: 60, budget: 40_000, priorSlope: 0.06, priorCurvature: 0, step: 2)
        heic.record(quality: 60, bytes: 43_000)
        guard case .encode(let q) = heic.next() else { Issue.record("expected an encode"); return }
        #expect(q % 2 == 0 && q < 60)
        heic.record(quality: 52, bytes: 34_000)
        heic.record(quality: 54, bytes: 41_000)
        // 52 fits, 54 does not: nothing between them on the grid.
        #expect(heic.next() == .done(52))
    }

    // MARK: Animation levers

    @Test("animation levers move in order of preference: size, then frames, then colours")
    func leverOrder() throws {
        let planner = AnimationBudgetPlanner(frames: 24, longEdge: 320)
        #expect(planner.levers(forShare: 1.2) == planner.full)
        let mild = planner.levers(forShare: 0.7)
        #expect(mild.scale < 1 && mild.frames == 24 && mild.colours == 256)
        let medium = planner.levers(forShare: 0.3)
        #expect(medium.scale == 0.5 && medium.frames < 24 && medium.frames >= 12 && medium.colours == 256)
        let strong = planner.levers(forShare: 0.2)
        #expect(strong.scale == 0.5 && strong.frames == 12 && strong.colours < 256)
        let extreme = planner.levers(forShare: 0.05)
        #expect(extreme.scale < 0.5 && extreme.frames == 12 && extreme.colours == 32)
        // Past the smallest picture, frames go (down to one), then nothing more: the floor.
        let fewer = planner.levers(forShare: 0.01)
        #expect(fewer.scale == planner.minimumScale && fewer.frames < 12 && fewer.frames > 1)
        #expect(planner.levers(forShare: 0.0001) == planner.floor)
        // Each lever's prediction matches the share asked for, within rounding of frames.
        for share in [0.7, 0.3, 0.05, 0.01] {
            let levers = planner.levers(forShare: share)
            #expect(planner.predictedShare(levers) <= share * 1.05)
        }
    }

    @Test("a smaller share never gets larger levers, down to the floor", arguments: [(24, 320), (34, 1917), (1, 600), (200, 48)])
    func leversMonotonic(frames: Int, longEdge: Int) {
        let planner = AnimationBudgetPlanner(frames: frames, longEdge: longEdge)
        var previous = planner.predictedShare(planner.full)
        var share = 1.0
        while share > 1e-7 {
            let levers = planner.levers(forShare: share)
            let predicted = planner.predictedShare(levers)
            #expect(predicted <= previous + 1e-12, "share \(share): \(levers)")
            #expect(levers.scale >= planner.minimumScale && levers.frames >= 1 && levers.frames <= frames)
            previous = predicted
            share *= 0.8
        }
        #expect(planner.levers(forShare: 1e-7) == planner.floor)
    }
}
