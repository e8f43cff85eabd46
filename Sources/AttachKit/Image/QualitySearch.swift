/// Finds the highest encoder quality whose output fits a byte budget, in few encodes.
///
/// Encoded size grows roughly exponentially with quality, a little faster at the top (libjpeg on
/// the corpus photos: ln(bytes) rises 1.5–2.5 % a step around quality 55, 2.5–4 % around 75), so
/// the search models ln(bytes) as a parabola in quality: the first guess is the ceiling (most
/// images fit there and need one encode); the second extrapolates from that size with a prior
/// slope and curvature; later ones run the parabola through the measured sizes (the prior
/// curvature with two, the measured one with three or more), always strictly inside the bracket of
/// qualities known to fit and known not to (regula falsi on the model). It aims at the geometric
/// middle of the landing window [``windowShare`` × budget, budget] and stops as soon as a size
/// lands in it, when the bracket has closed (two neighbouring qualities, one over and one under),
/// or when the ceiling fits.
///
/// When the model puts even the floor clearly over budget (``floorMargin``), it says so without
/// encoding the floor, with the predicted size, so the caller shrinks the picture at once.
///
/// imgproxy and thumbor instead multiply the quality by 0.75 per step and return the last try even
/// when it is still over; this never proposes a quality whose size is known to be over budget.
struct QualitySearch: Sendable {
    /// What to do next.
    enum Step: Sendable, Equatable {
        /// Encode at this quality and ``record(quality:bytes:)`` the size.
        case encode(Int)
        /// This quality (already encoded) is the answer.
        case done(Int)
        /// Even the floor quality is over budget: measured (`predicted` is `nil`), or predicted from
        /// the sizes so far with a margin, so the floor need not be encoded to know.
        case belowFloor(predicted: Double?)
    }

    /// Lowest quality allowed (the caller shrinks the image rather than go lower).
    let floor: Int
    /// Highest quality used even when the budget allows more.
    let ceiling: Int
    /// Bytes the output may take.
    let budget: Int64
    /// d ln(bytes) / d quality assumed at quality ``referenceQuality`` before two sizes are known
    /// (elsewhere it follows the prior curvature).
    let priorSlope: Double
    /// ½ d² ln(bytes) / d quality² assumed until three sizes are known.
    let priorCurvature: Double
    /// Qualities that differ by less than this encode alike (libheif maps quality to x265's CRF in
    /// steps of 2): only multiples of it (from the floor) are tried.
    let step: Int
    /// First quality to try. Default the ceiling.
    let firstGuess: Int
    /// Encodes allowed before settling for the best fitting quality found. Default 8.
    let maxAttempts: Int

    /// Share of the budget above which a fitting size is good enough.
    static let windowShare = 0.90
    /// How far over budget the floor's predicted size must be to skip encoding it: with two sizes
    /// measured, and with one size and the priors (less sure).
    static let floorMargin = (measured: 1.05, prior: 1.15)
    /// The quality the prior slope is given at.
    static let referenceQuality = 80.0

    /// Quality → bytes of every encode so far.
    private(set) var sizes: [Int: Int64] = [:]

    /// - Parameters:
    ///   - priorSlope: at quality 80; default 0.03 (libjpeg on the corpus photos: 0.024–0.037).
    ///   - priorCurvature: default 0.0003 (libjpeg: the slope grows by about 0.006 every 10 steps).
    init(floor: Int, ceiling: Int, budget: Int64, priorSlope: Double = 0.03, priorCurvature: Double = 0.0003,
         step: Int = 1, firstGuess: Int? = nil, maxAttempts: Int = 8) {
        self.floor = min(floor, ceiling)
        self.ceiling = ceiling
        self.budget = budget
        self.priorSlope = priorSlope
        self.priorCurvature = priorCurvature
        self.step = max(1, step)
        self.maxAttempts = maxAttempts
        let guess = min(ceiling, max(self.floor, firstGuess ?? ceiling))
        self.firstGuess = guess
    }

    /// The smallest size that counts as landing in the window.
    var windowLow: Int64 { (Double(budget) * Self.windowShare).clampedInteger(in: Int64.min...Int64.max, rounding: .up) }

    /// The size aimed at: the geometric middle of the window.
    var target: Double { Double(budget) * Self.windowShare.squareRoot() }

    mutating func record(quality: Int, bytes: Int64) {
        sizes[quality] = bytes
    }

    /// The next step given the sizes recorded so far.
    func next() -> Step {
        guard !sizes.isEmpty else { return .encode(firstGuess) }
        let fitting = sizes.filter { $0.value <= budget }
        let over = sizes.filter { $0.value > budget }
        let low = fitting.keys.max()
        let high = over.keys.min()
        if let low {
            if low >= ceiling || sizes[low]! >= windowLow { return .done(low) }
            if let high, high - low <= step { return .done(low) }
        } else if over[floor] != nil {
            return .belowFloor(predicted: nil)
        }
        if sizes.count >= maxAttempts {
            if let low { return .done(low) }
            return over[floor] == nil ? .encode(floor) : .belowFloor(predicted: nil)
        }
        // Qualities still worth trying: strictly inside the bracket, on the step grid.
        let candidates = stride(from: floor, through: ceiling, by: step).filter {
            $0 > (low ?? Int.min) && $0 < (high ?? Int.max) && sizes[$0] == nil
        }
        guard !candidates.isEmpty else { return low.map { .done($0) } ?? .belowFloor(predicted: nil) }
        if low == nil, sizes[floor] == nil, let atFloor = floorEstimate() {
            let margin = sizes.count >= 2 ? Self.floorMargin.measured : Self.floorMargin.prior
            if atFloor > margin * Double(budget) { return .belowFloor(predicted: atFloor) }
        }
        let model = self.model(low: low, high: high)
        let wanted = model.quality(for: log(target))
        let guess = candidates.min { abs(Double($0) - wanted) < abs(Double($1) - wanted) }!
        return .encode(guess)
    }

    /// A low estimate of the floor's size: the line through the two lowest qualities tried (or the
    /// lowest and the prior slope), extended down to the floor. ln(bytes) is convex in quality, so
    /// the extended chord runs below it: a floor this estimate puts over budget is over budget.
    func floorEstimate() -> Double? {
        let ordered = sizes.sorted { $0.key < $1.key }
        guard let lowest = ordered.first, lowest.key > floor else { return nil }
        var slope = priorSlope(at: Double(lowest.key))
        if ordered.count >= 2 {
            let next = ordered[1]
            let chord = (log(Double(next.value)) - log(Double(lowest.value))) / Double(next.key - lowest.key)
            if chord > 0 { slope = chord }
        }
        return exp(log(Double(lowest.value)) + slope * Double(floor - lowest.key))
    }

    /// ln(bytes) = ln(b₀) + slope·(q − q₀) + curvature·(q − q₀)² around a measured size.
    struct Model: Sendable {
        let quality: Double
        let logSize: Double
        let slope: Double
        let curvature: Double
        /// Whether slope and curvature come from measured sizes (else from the priors).
        let measured: Bool

        /// The quality whose modelled ln(bytes) is `goal` (on the rising side of the parabola; its
        /// lowest point when the goal is below it).
        func quality(for goal: Double) -> Double {
            let rise = goal - logSize
            guard curvature > 1e-9 else { return quality + rise / max(slope, 1e-6) }
            let discriminant = slope * slope + 4 * curvature * rise
            guard discriminant >= 0 else { return quality - slope / (2 * curvature) }
            return quality + (-slope + discriminant.squareRoot()) / (2 * curvature)
        }
    }

    /// The model through the sizes nearest the answer: the bracketing pair (with a third size
    /// when one is known, for the curvature), else the two sizes nearest the target, else the one
    /// size and the priors.
    func model(low: Int?, high: Int?) -> Model {
        let goal = log(target)
        let ranked = sizes.sorted { abs(log(Double($0.value)) - goal) < abs(log(Double($1.value)) - goal) }
        var chosen: [(q: Double, l: Double)] = []
        if let low, let high { chosen = [(Double(low), log(Double(sizes[low]!))), (Double(high), log(Double(sizes[high]!)))] }
        for (q, b) in ranked where chosen.count < 3 && !chosen.contains(where: { $0.q == Double(q) }) {
            chosen.append((Double(q), log(Double(max(1, b)))))
        }
        let anchor = chosen[0]
        let prior = Model(quality: anchor.q, logSize: anchor.l, slope: priorSlope(at: anchor.q), curvature: priorCurvature, measured: false)
        guard chosen.count >= 2 else { return prior }
        var curvature = priorCurvature
        if chosen.count >= 3 {
            let sorted = chosen.sorted { $0.q < $1.q }
            let (a, b, c) = (sorted[0], sorted[1], sorted[2])
            let fitted = ((c.l - b.l) / (c.q - b.q) - (b.l - a.l) / (b.q - a.q)) / (c.q - a.q)
            if fitted.isFinite, (0...0.004).contains(fitted) { curvature = fitted }
        }
        let other = chosen[1]
        // The slope at the anchor that puts the parabola through the other size too.
        let slope = (other.l - anchor.l) / (other.q - anchor.q) - curvature * (other.q - anchor.q)
        guard slope > 0.002 else { return prior }
        return Model(quality: anchor.q, logSize: anchor.l, slope: slope, curvature: curvature, measured: true)
    }

    /// The prior slope at quality `q`: ``priorSlope`` at ``referenceQuality``, changing with the
    /// prior curvature (never below 0.005).
    func priorSlope(at q: Double) -> Double {
        max(0.005, priorSlope + 2 * priorCurvature * (q - Self.referenceQuality))
    }
}
