/// One row of the transcoding budget table (`attachkit budget`, the benchmark harness): how long
/// an operation took (or, from the calibration alone, is estimated to take) on an input, per unit
/// of input, and the longest input that fits a deadline.
public struct BudgetRow: Sendable {
    /// What was done: `"vp9 → H.264 (ios)"`, `"image reencoded (ios)"`...
    public var operation: String
    /// The input: a file name, or `"1080p synthetic"`.
    public var input: String
    /// The x264 preset of a transcode row.
    public var preset: EncoderSpeed?
    /// The input's size in ``unit``: seconds of media (`"s"`), megapixels (`"MP"`).
    public var amount: Double
    public var unit: String
    /// Wall-clock seconds measured; `nil` for a row from the calibration alone.
    public var seconds: Double?
    /// The speed model's estimate for a transcode row.
    public var estimated: Double?
    /// Why the operation failed (`code: message`), `nil` when it ran.
    public var error: String?

    public init(operation: String, input: String, preset: EncoderSpeed? = nil, amount: Double, unit: String,
                seconds: Double? = nil, estimated: Double? = nil, error: String? = nil) {
        self.operation = operation
        self.input = input
        self.preset = preset
        self.amount = amount
        self.unit = unit
        self.seconds = seconds
        self.estimated = estimated
        self.error = error
    }

    /// Seconds per unit: measured when there is a measurement, else estimated.
    public var perUnit: Double? {
        guard amount > 0, let time = seconds ?? estimated else { return nil }
        return time / amount
    }

    /// The longest input (in ``unit``) whose time, proportional to its size, fits `deadline`.
    public func longest(within deadline: Double) -> Double? {
        guard let perUnit, perUnit > 0 else { return nil }
        return deadline / perUnit
    }

    /// Estimated ÷ real seconds (1 = exact; below 1 the model was optimistic).
    public var estimateRatio: Double? {
        guard let seconds, seconds > 0, let estimated else { return nil }
        return estimated / seconds
    }

    /// `{"operation", "input", "preset"?, "amount", "unit", "seconds"?, "estimated"?, "perUnit"?,
    /// "longest"?, "estimateRatio"?, "error"?}`, `longest` for `deadline`.
    public func json(deadline: Double) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("operation", operation)
        o.set("input", input)
        o.set("preset", preset?.rawValue)
        o.set("amount", amount)
        o.set("unit", unit)
        // A failed operation has no timing worth reading: the error says what happened.
        if error == nil {
            o.set("seconds", seconds)
            o.set("estimated", estimated)
            o.set("perUnit", perUnit)
            o.set("longest", longest(within: deadline))
            o.set("estimateRatio", estimateRatio)
        }
        o.set("error", error)
        return o.value
    }

    /// The longest input (in the rows' unit) that finishes within `deadline` seconds, from a
    /// straight line through the first and last measured rows (fixed cost + cost per unit);
    /// `.infinity` when the time does not grow with the input (a keyframe trim reads the index
    /// only); `nil` with fewer than two measured sizes.
    public static func longestWithin(_ deadline: Double, rows all: [BudgetRow]) -> Double? {
        let rows = all.filter { $0.error == nil && $0.seconds != nil }
        guard rows.count >= 2, let first = rows.first, let last = rows.last, last.amount > first.amount,
              let firstTime = first.seconds, let lastTime = last.seconds else { return nil }
        let slope = (lastTime - firstTime) / (last.amount - first.amount)
        let fixed = firstTime - slope * first.amount
        guard slope > 0.001 else { return fixed < deadline ? .infinity : 0 }
        return max(0, (deadline - fixed) / slope)
    }
}
