import Testing
@testable import AttachKit

/// The two float-to-integer conversions every call site uses: no value traps.
@Suite("Checked conversions")
struct CheckedConversionTests {
    static let hostile: [Double] = [.nan, -.nan, .infinity, -.infinity, 1e308, -1e308, 1e19, -1e19,
                                    9.223372036854775807e18, -9.223372036854775808e18, 1e-300, -0.0, .leastNonzeroMagnitude]

    @Test("checkedInteger: nil for NaN, infinities and values out of range; rounds by the rule given")
    func checked() {
        // Given / When / Then
        #expect(Double.nan.checkedInteger() as Int? == nil)
        #expect(Double.infinity.checkedInteger() as Int? == nil)
        #expect((-Double.infinity).checkedInteger() as Int? == nil)
        #expect(1e19.checkedInteger() as Int? == nil)
        #expect(9.223372036854775807e18.checkedInteger() as Int? == nil)
        #expect((-9.223372036854775808e18).checkedInteger() == Int.min)
        #expect(3e9.checkedInteger(as: Int32.self) == nil)
        #expect((-0.0).checkedInteger() == 0)
        #expect(2.5.checkedInteger() == 3)
        #expect((-2.5).checkedInteger() == -3)
        #expect(2.9.checkedInteger(rounding: .towardZero) == 2)
        #expect((-90.0000001).checkedInteger() == -90)
    }

    @Test("clampedInteger: saturates at the range, NaN gives the lower bound", arguments: hostile)
    func clamped(value: Double) {
        // Given / When
        let wide = value.clampedInteger(in: Int.min...Int.max)
        let narrow = value.clampedInteger(in: 1...480)
        let int64 = value.clampedInteger(in: Int64.min / 2...Int64.max / 2)
        // Then
        #expect((1...480).contains(narrow))
        #expect((Int64.min / 2...Int64.max / 2).contains(int64))
        if value.isNaN { #expect(wide == Int.min && narrow == 1) }
        if value == .infinity || value >= 9.2e18 { #expect(wide == Int.max && narrow == 480) }
        if value == -.infinity || value <= -9.2e18 { #expect(wide == Int.min && narrow == 1) }
    }

    @Test("clampedInteger keeps values inside the range exactly, by the rounding rule")
    func clampedInside() {
        #expect(12.5.clampedInteger(in: 0...100) == 13)
        #expect(12.5.clampedInteger(in: 0...100, rounding: .down) == 12)
        #expect(12.1.clampedInteger(in: 0...100, rounding: .up) == 13)
        #expect(150.0.clampedInteger(in: 0...100) == 100)
        #expect((-3.0).clampedInteger(in: 0...100) == 0)
    }

    @Test("saturating products and sums stop at the ends instead of trapping")
    func saturating() {
        #expect(Int64(4_000_000_000).saturatingMultiply(4_000_000_000) == .max)
        #expect(Int64(-4_000_000_000).saturatingMultiply(4_000_000_000) == .min)
        #expect(Int64(65_535).saturatingMultiply(65_535) == 4_294_836_225)
        #expect(Int.max.saturatingAdd(1) == .max)
        #expect(Int.min.saturatingAdd(-1) == .min)
        #expect(40.saturatingAdd(2) == 42)
    }
}
