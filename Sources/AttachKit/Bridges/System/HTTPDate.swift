#if canImport(Glibc)
import Glibc
#endif

/// HTTP dates (RFC 9110 §5.6.7): written as IMF-fixdate (`Tue, 01 Dec 2026 21:52:43 GMT`), read
/// in the three forms a recipient must accept — IMF-fixdate, RFC 850 (`Tuesday, 01-Dec-26
/// 21:52:43 GMT`) and asctime (`Tue Dec  1 21:52:43 2026`) — strictly otherwise: anything else is
/// no date (`nil`), never passed on or compared.
package enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate of `seconds` since the epoch.
    package static func format(_ seconds: time_t) -> String {
        var parts = tm()
        var copy = seconds
        gmtime_r(&copy, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Seconds since the epoch of an HTTP date in any of its three forms; `nil` for anything else.
    package static func parse(_ text: String) -> time_t? {
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
        if words.count == 6, words[0].hasSuffix(","), days.contains(String(words[0].dropLast())), words[5] == "GMT",
           words[1].count == 2, words[3].count == 4 {
            return make(day: words[1], month: words[2], year: words[3], time: words[4])
        }
        // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT" (a two-digit year is taken as 19xx or 20xx, the nearest to now)
        if words.count == 4, words[0].hasSuffix(","), longDays.contains(String(words[0].dropLast())), words[3] == "GMT" {
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0].count == 2, parts[2].count == 2, let short = Int(parts[2]) else { return nil }
            var now = tm()
            var clock = time(nil)
            gmtime_r(&clock, &now)
            var year = 2000 + short
            if year > Int(now.tm_year) + 1900 + 50 { year -= 100 }
            return make(day: parts[0], month: parts[1], year: String(year), time: words[2])
        }
        // asctime: "Sun Nov  6 08:49:37 1994" (a one-digit day after two spaces)
        let packed = text.split(separator: " ").map(String.init)
        if packed.count == 5, days.contains(packed[0]), text.count == 24, packed[4].count == 4 {
            return make(day: packed[2], month: packed[1], year: packed[4], time: packed[3])
        }
        return nil
    }

    private static func make(day: String, month: String, year: String, time clock: String) -> time_t? {
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false)
        func number(_ text: some StringProtocol, digits: ClosedRange<Int>) -> Int32? {
            guard digits.contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int32(text)
        }
        guard fields.count == 3, let monthIndex = months.firstIndex(of: month), let dayNumber = number(day, digits: 1...2),
              let yearNumber = number(year, digits: 4...4), let hour = number(fields[0], digits: 2...2),
              let minute = number(fields[1], digits: 2...2), let second = number(fields[2], digits: 2...2),
              (1...31).contains(dayNumber), hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = yearNumber - 1900
        parts.tm_mon = Int32(monthIndex)
        parts.tm_mday = dayNumber
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = timegm(&parts)
        // timegm normalizes 31 Feb into March: such a date is no date.
        guard parts.tm_mday == dayNumber, parts.tm_mon == Int32(monthIndex) else { return nil }
        return seconds
    }
}
