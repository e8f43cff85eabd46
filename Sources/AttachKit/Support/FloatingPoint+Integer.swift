/// The only ways AttachKit turns a floating-point value into an integer.
///
/// `Int(x)`, `Int64(x)` and `Int32(x)` trap (SIGILL: the process dies) when `x` is NaN, infinite
/// or outside the integer's range, and floating values here come from files (a degenerate display
/// matrix gives a NaN angle, a timestamp of 2⁶² ticks gives 10¹⁸ seconds) and from options
/// (`1e-12` seconds makes a bitrate of 10¹⁹). Every conversion goes through one of these two:
///
/// - ``checkedInteger(rounding:)`` when a value that does not fit is an error the caller reports;
/// - ``clampedInteger(in:rounding:)`` when saturating is the right answer (a bitrate, a pixel
///   size or a sample position derived from values already checked), each call site saying why.
extension BinaryFloatingPoint {
    /// The value rounded by `rule` as an `I`; `nil` when it is NaN, infinite or outside `I`'s range.
    /// Default rule: to the nearest, halves away from zero (`rounded()`).
    package func checkedInteger<I: FixedWidthInteger>(rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero,
                                              as type: I.Type = Int.self) -> I? {
        I(exactly: rounded(rule))
    }

    /// The value rounded by `rule` and clamped into `range`; NaN gives `range.lowerBound`.
    /// Default rule: to the nearest, halves away from zero (`rounded()`).
    package func clampedInteger<I: FixedWidthInteger>(in range: ClosedRange<I>,
                                              rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> I {
        if isNaN { return range.lowerBound }
        let value = rounded(rule)
        // Comparing in floating point: `Self(I.max)` rounds up to the next power of two, so a value
        // strictly below it converts exactly.
        if value <= Self(range.lowerBound) { return range.lowerBound }
        if value >= Self(range.upperBound) { return range.upperBound }
        return I(value)
    }
}

extension FixedWidthInteger {
    /// `self × other`, or `max`/`min` when the product overflows: for sizes multiplied from header
    /// values (width × height × frames) whose only use is a comparison against a cap.
    package func saturatingMultiply(_ other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }

    /// `self + other`, or `max`/`min` when the sum overflows.
    package func saturatingAdd(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
