/// Which frames of an animation are kept when some must go: spread evenly over the whole
/// animation (first frame always kept), each kept frame shown for its own time plus that of the
/// dropped frames after it, so the animation lasts exactly as long as before.
struct FrameSelection: Sendable, Equatable {
    /// Frames in the animation.
    let total: Int
    /// Indices of the kept frames, ascending; the first is 0.
    let kept: [Int]

    /// Keeps `count` of `total` frames (clamped to 1...total): frame ⌊j × total / count⌋ for j in 0..<count.
    init(total: Int, keeping count: Int) {
        let total = max(1, total)
        let count = min(total, max(1, count))
        self.total = total
        self.kept = (0..<count).map { $0 * total / count }
    }

    /// Keeps every frame.
    static func all(_ total: Int) -> FrameSelection { FrameSelection(total: total, keeping: total) }

    /// Whether any frame is dropped.
    var dropsFrames: Bool { kept.count < total }

    /// Whether frame `index` is kept.
    func keeps(_ index: Int) -> Bool {
        var low = 0, high = kept.count
        while low < high {
            let mid = (low + high) / 2
            if kept[mid] < index { low = mid + 1 } else { high = mid }
        }
        return low < kept.count && kept[low] == index
    }

    /// The delays of the kept frames given every frame's delay (`delays.count` should be
    /// ``total``; missing delays count as the last known one, else 100 ms): each kept frame's own
    /// delay plus those of the frames dropped before the next kept one. The sum is unchanged.
    func mergedDelays(_ delays: [Int]) -> [Int] {
        let fallback = delays.last ?? 100
        let all = (0..<total).map { $0 < delays.count ? delays[$0] : fallback }
        return kept.enumerated().map { position, start in
            let end = position + 1 < kept.count ? kept[position + 1] : total
            return all[start..<end].reduce(0, +)
        }
    }

    /// This selection applied after `earlier` (both over the frames of their own input): the kept
    /// frames of the original animation.
    func composed(after earlier: FrameSelection) -> FrameSelection {
        FrameSelection(total: earlier.total, kept: kept.map { earlier.kept[$0] })
    }

    private init(total: Int, kept: [Int]) {
        self.total = total
        self.kept = kept
    }
}
