/// Byte counts written for people, in decimal units as the profiles count them (1 KB = 1,000
/// bytes, 10 MB = 10,000,000): the unit that keeps the number between 1 and 999, with three
/// significant digits and no trailing zeros (`812 B`, `50 KB`, `17.8 KB`, `1.05 MB`, `5 MB`).
/// Every size AttachKit writes in a message, a fix or a table goes through here. (Memory is
/// counted in binary units apart: ``DecodeMemory``'s MiB.)
public enum ByteCount {
    /// A size, rounded to the nearest (`1,049,500` → `1.05 MB`).
    public static func text(_ bytes: Int64) -> String {
        text(bytes, rounding: .toNearestOrAwayFromZero)
    }

    /// A limit, rounded toward zero, so "≤ X" never allows more than the limit does
    /// (`1,049,999` → `1.04 MB`; `50,000` → `50 KB`).
    public static func limit(_ bytes: Int64) -> String {
        text(bytes, rounding: .towardZero)
    }

    private static let units: [(name: String, size: Double)] = [("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12)]

    private static func text(_ bytes: Int64, rounding: FloatingPointRoundingRule) -> String {
        let magnitude = bytes.magnitude
        let sign = bytes < 0 ? "-" : ""
        guard magnitude >= 1000 else { return "\(bytes) B" }
        var unit = units.lastIndex { Double(magnitude) >= $0.size } ?? 0
        var digits = significant(Double(magnitude) / units[unit].size, rounding: rounding)
        // 999,999 bytes round to 1000 KB: said as 1 MB.
        if digits.value >= 1000, unit + 1 < units.count {
            unit += 1
            digits = significant(digits.value / 1000, rounding: rounding)
        }
        return sign + digits.text + " " + units[unit].name
    }

    /// `value` (1 ≤ value < 1000 before rounding) to three significant digits, and its text with
    /// the trailing zeros of the fraction dropped.
    private static func significant(_ value: Double, rounding: FloatingPointRoundingRule) -> (value: Double, text: String) {
        let decimals = value < 10 ? 2 : (value < 100 ? 1 : 0)
        let scale = [1, 10, 100][decimals]
        let scaled = (value * Double(scale)).rounded(rounding).clampedInteger(in: 0...Int.max, rounding: .towardZero)
        var text = String(scaled / scale)
        var fraction = String(scaled % scale)
        if decimals > 0 {
            fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            if !fraction.isEmpty { text += "." + fraction }
        }
        return (Double(scaled) / Double(scale), text)
    }
}
