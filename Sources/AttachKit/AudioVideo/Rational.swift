/// A ratio of two integers: a time base (seconds per timestamp tick, e.g. 1/90000), a frame rate
/// (frames per second, e.g. 30000/1001) or a sample aspect ratio (e.g. 4/3). What planning and
/// timing speak; the FFmpeg bridge converts to and from `AVRational` at the boundary.
struct Rational: Sendable, Equatable, CustomStringConvertible {
    var numerator: Int
    var denominator: Int

    init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Whether both terms are positive (a usable rate, time base or aspect ratio).
    var isPositive: Bool { numerator > 0 && denominator > 0 }

    /// The ratio as a number (NaN or ±∞ for a zero denominator).
    var value: Double { Double(numerator) / Double(denominator) }

    /// The reciprocal as a number: seconds per frame for a frame rate.
    var inverse: Double { Double(denominator) / Double(numerator) }

    /// A timestamp counted in this time base, as seconds (0 for a time base without a denominator).
    func seconds(_ timestamp: Int64) -> Double {
        guard denominator > 0 else { return 0 }
        return Double(timestamp) * Double(numerator) / Double(denominator)
    }

    /// `seconds` as a timestamp in this time base (rounded to the nearest tick), saturating at half
    /// the range of `Int64` (room for the offsets added to it) so an absurd time from a file or a
    /// caller cannot trap; NaN or a time base without ticks gives 0.
    func timestamp(_ seconds: Double) -> Int64 {
        guard numerator > 0, !seconds.isNaN else { return 0 }
        return (seconds * Double(denominator) / Double(numerator)).clampedInteger(in: Int64.min / 2...Int64.max / 2)
    }

    var description: String { "\(numerator)/\(denominator)" }
}
