/// The values AttachKit accepts for each preparation and thumbnail option, in one place.
///
/// Every front end checks against these same ranges before any work starts: the command line
/// (`--max-duration`), `serve`'s request `options` (`maxDuration`) and a JSON policy's caps
/// (`video.maxDuration`). So an option means the same everywhere, and no value an outsider types
/// can reach the pipelines' arithmetic (bitrates from durations, sample positions from times)
/// out of range. Keys are the library's names (``PrepareOptions`` and ``ThumbnailRequest``
/// fields, `serve`'s option keys); each front end renders them its own way. ``OptionTable``
/// declares each option with its range from here.
public enum OptionLimits {
    /// `maxBytes` (and a policy's `maxBytes`, `recommendedBytes`): 1,000 bytes ... 2 TB. Under
    /// 1,000 bytes nothing worth a notification fits (an MP4's own boxes take about 4 KB, a
    /// 48-pixel JPEG more than that), so such a budget is taken for a slip (bytes typed for
    /// kilobytes) rather than spent on encodes that cannot succeed; 2 TB is far past the 2 GB
    /// input cap, and keeps bits-per-second arithmetic far from overflowing.
    public static let maxBytes = OptionRange<Int64>(key: "maxBytes", 1_000...2_000_000_000_000, noun: "a byte count")

    /// `maxEdge` (and a policy's `maxLongEdge`): 16 ... 65,535 pixels. 16 is the smallest
    /// thumbnail worth showing; 65,535 is the largest side JPEG and GIF can store (16-bit fields).
    public static let maxEdge = OptionRange<Int>(key: "maxEdge", 16...65_535, noun: "a number of pixels")

    /// `maxFrames` (and a policy's `image.maxFrames`): 1 ... 100,000 frames, ten times the
    /// 10,000-frame safety cap (``SafetyLimits/maxFrames``), which is what really stops a file.
    public static let maxFrames = OptionRange<Int>(key: "maxFrames", 1...100_000, noun: "a number of frames")

    /// `maxDuration` (and a policy's `audio.maxDuration`, `video.maxDuration`): 0.1 s ... 4 h.
    /// Below a tenth of a second a clip keeps no frame worth sending (and the bitrate a budget
    /// gives it has no meaning); 4 h is the safety cap on any input (``SafetyLimits/maxDuration``).
    public static let maxDuration = OptionRange<Double>(key: "maxDuration", 0.1...SafetyLimits.longestInput, noun: "a number of seconds")

    /// `start`: 0 ... 4 h. Where a trimmed clip starts; past the longest input AttachKit accepts
    /// (``SafetyLimits/maxDuration``) it can only be after the end.
    public static let start = OptionRange<Double>(key: "start", 0...SafetyLimits.longestInput, noun: "a number of seconds")

    /// `deadline`: 0.01 s ... 24 h per file. Under 10 ms nothing can even be probed; a day is
    /// longer than any preparation of a 4-hour input takes.
    public static let deadline = OptionRange<Double>(key: "deadline", 0.01...86_400, noun: "a number of seconds")

    /// `qualityFloor`: JPEG/HEIC quality 1 ... 100, the encoders' own scale.
    public static let qualityFloor = OptionRange<Int>(key: "qualityFloor", 1...100, noun: "a JPEG quality")

    /// `verifySeconds`: 1 s ... 4 h of video decoded to verify a copied output. Under a second a
    /// check decodes hardly one GOP; 4 h is the safety cap on any input (``SafetyLimits/maxDuration``),
    /// so the top of the range means "decode all of it".
    public static let verifySeconds = OptionRange<Double>(key: "verifySeconds", 1...SafetyLimits.longestInput, noun: "a number of seconds")

    /// `size` of a thumbnail: 16 ... 4,096 pixels on the long edge. iOS shows thumbnails at a few
    /// hundred points; 4,096 is already a full-screen picture on any device.
    public static let thumbnailSize = OptionRange<Int>(key: "size", 16...4_096, noun: "a number of pixels")

    /// `thumbnailQuality`: the thumbnail's JPEG quality, 1 ... 100 (default 80).
    public static let thumbnailQuality = OptionRange<Int>(key: "thumbnailQuality", 1...100, noun: "a JPEG quality")

    /// `frame` of an animation to show: 0 ... 1,000,000 (`ThumbnailTimeKey` for animated images);
    /// a frame past the end of the animation shows its last.
    public static let frame = OptionRange<Int>(key: "frame", 0...1_000_000, noun: "a frame number")

    /// `at`, the time of a movie's poster frame: 0 ... 4 h (``SafetyLimits/maxDuration``), seconds
    /// (`ThumbnailTimeKey` for movies); a time past the end shows the last frame.
    public static let at = OptionRange<Double>(key: "at", 0...SafetyLimits.longestInput, noun: "a number of seconds")
}

/// The values one option accepts, and the check that refuses the others with an ``OptionError``
/// naming the option and the range.
public struct OptionRange<Value: Comparable & Sendable>: Sendable {
    /// The option's key as the library and `serve` name it (`maxDuration`).
    public let key: String
    public let range: ClosedRange<Value>
    /// What a value is (`a number of seconds`), for messages.
    let noun: String

    init(key: String, _ range: ClosedRange<Value>, noun: String) {
        self.key = key
        self.range = range
        self.noun = noun
    }

    /// What a value must be: `a number of seconds in 0.1...14400`.
    public var expected: String {
        "\(noun) in \(Self.text(range.lowerBound))...\(Self.text(range.upperBound))"
    }

    /// The error for a value `given` (as text) outside the range, optionally under another key
    /// (a policy names its key path: `video.maxDuration`).
    public func error(given: String, key: String? = nil) -> OptionError {
        OptionError(key: key ?? self.key, expected: expected, given: given)
    }

    private static func text(_ value: Value) -> String {
        if let number = value as? Double, let whole = number.checkedInteger(as: Int64.self), Double(whole) == number {
            return String(whole)
        }
        return "\(value)"
    }
}

extension OptionRange where Value: FixedWidthInteger {
    /// `value` when it lies in the range.
    /// - Throws: ``OptionError`` naming the key (or `key`) and the range.
    public func check(_ value: Value, key: String? = nil) throws(OptionError) -> Value {
        guard range.contains(value) else { throw error(given: String(value), key: key) }
        return value
    }

    /// A JSON number (or any floating value) that is a whole number in the range.
    /// - Throws: ``OptionError`` for a fraction, NaN, an infinity or a value out of range.
    public func check(number: Double, key: String? = nil) throws(OptionError) -> Value {
        guard let value = Value(exactly: number), range.contains(value) else {
            throw error(given: "\(number)", key: key)
        }
        return value
    }

    /// Decimal text that is a whole number in the range, however it is spelled (`"200"`, `"200.0"`,
    /// `"2e2"`: the same number a JSON request may send).
    /// - Throws: ``OptionError`` for anything else (`"200.5"`, `"nan"`, `"0x10"`, 30 digits).
    public func check(text: String, key: String? = nil) throws(OptionError) -> Value {
        if let value = Value(text), range.contains(value) { return value }
        guard let whole = OptionRange.wholeNumber(text: text, scale: 1), let value = Value(exactly: whole), range.contains(value) else {
            throw error(given: text.debugDescription, key: key)
        }
        return value
    }
}

extension OptionRange where Value == Int64 {
    /// A byte count written as text, the one grammar every front end reads (the command line's
    /// `--max-bytes`, `--max-body`, `--worker-memory`; `serve`'s and a batch worker's `maxBytes`
    /// string; the HTTP query's `maxBytes=`): a decimal number (`5000000`, `1.5`, `1e3`), then
    /// optionally a unit, with nothing between. Units are decimal, as Apple states its limits:
    /// `B` (bytes), `K`/`KB` (1,000), `M`/`MB` (10⁶), `G`/`GB` (10⁹), `T`/`TB` (10¹²). The
    /// prefix may be lowercase (`k`, `kB`, `5m`). A lowercase `b` is bytes only when the whole
    /// unit is lowercase (`500b`, `5kb`, `5mb`, as Elasticsearch and many configuration files
    /// write them); after an uppercase prefix it is the symbol for bits (`5Mb` is 5 megabits,
    /// 625,000 bytes), which no budget means, so `Kb`, `Mb`, `Gb`, `Tb` are refused, saying what to
    /// write. Binary units (`KiB`, `MiB`, `GiB`) are not accepted either: they are refused with
    /// the decimal unit or byte count to write instead. The count must come out whole (`999.5`
    /// and `0.9999KB` are refused, as the JSON number `999.5` is) and in the range.
    /// - Throws: ``OptionError`` for anything else (a fraction of a byte, NaN, infinities, a
    ///   negative or out-of-range count, an unknown unit, spaces), never converted; its
    ///   ``OptionError/hint`` says what is wrong with the unit when that is the problem.
    public func check(bytes text: String, key: String? = nil) throws(OptionError) -> Int64 {
        let refuse = { (hint: String?) -> OptionError in
            OptionError(key: key ?? self.key, expected: expected + " " + ByteSize.forms, given: text.debugDescription, hint: hint)
        }
        let parsed: (number: String, scale: Double)
        switch ByteSize.split(text) {
        case .success(let split): parsed = split
        case .failure(let problem): throw refuse(problem.hint)
        }
        guard let whole = OptionRange.wholeNumber(text: parsed.number, scale: parsed.scale), let bytes = Int64(exactly: whole),
              range.contains(bytes) else {
            throw refuse(nil)
        }
        return bytes
    }
}

/// The units of a byte count written as text (``OptionRange/check(bytes:key:)``).
enum ByteSize {
    /// The accepted forms, for messages.
    static let forms = "(a number of bytes, or a number and a unit B, KB, MB, GB or TB: powers of 1000, such as 5000000, 500KB, 1.5MB)"

    /// What is wrong with a unit.
    struct Problem: Error {
        let hint: String
    }

    /// `text` split into its number and the unit's factor.
    static func split(_ text: String) -> Result<(number: String, scale: Double), Problem> {
        let unit = String(text.reversed().prefix { $0.isASCII && $0.isLetter }.reversed())
        let number = String(text.dropLast(unit.count))
        let decimal: [Character: Double] = ["K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12]
        let names: [Character: String] = ["K": "kilo", "M": "mega", "G": "giga", "T": "tera"]
        let powers10: [Character: String] = ["K": "10³", "M": "10⁶", "G": "10⁹", "T": "10¹²"]
        if unit.isEmpty || unit == "B" || unit == "b" { return .success((number, 1)) }
        // No number before the letters: nothing to say about a unit.
        guard OptionRange<Int64>.isDecimal(number) else { return .success((number, 1)) }
        let chars = Array(unit)
        let prefix = Character(chars[0].uppercased())
        guard let scale = decimal[prefix] else {
            return .failure(Problem(hint: "\(unit.debugDescription) is not a unit of bytes"))
        }
        let rest = String(chars.dropFirst())
        switch rest {
        case "", "B":
            return .success((number, scale))
        case "b" where chars[0].isLowercase:
            // All lowercase (`5kb`, `5mb`): bytes, as configuration files write them.
            return .success((number, scale))
        case "b":
            return .failure(Problem(hint: "\(unit) means \(names[prefix]!)bits; write \(number)\(prefix)B for \(names[prefix]!)bytes"))
        case "iB", "ib", "IB", "i", "I":
            // The bytes the binary unit meant, when the number is plain enough to say.
            let powers: [Character: Int] = ["K": 10, "M": 20, "G": 30, "T": 40]
            var meant: String?
            if let value = Double(number) {
                let bytes: Double = value * Double(sign: .plus, exponent: powers[prefix]!, significand: 1)
                if bytes.isFinite, bytes >= 0, bytes < 9e18, bytes == bytes.rounded() { meant = String(Int64(bytes)) }
            }
            return .failure(Problem(hint: "binary units (KiB, MiB, GiB) are not accepted: write "
                                    + (meant.map { "\($0) (\(number) \(prefix)iB in bytes) or " } ?? "")
                                    + "\(number)\(prefix)B (\(number) × \(powers10[prefix]!) bytes)"))
        default:
            return .failure(Problem(hint: "\(unit.debugDescription) is not a unit of bytes"))
        }
    }
}

extension OptionRange where Value == Double {
    /// A finite number in the range (negative zero is zero).
    /// - Throws: ``OptionError`` for NaN, an infinity or a value out of range.
    public func check(_ value: Double, key: String? = nil) throws(OptionError) -> Double {
        guard value.isFinite, range.contains(value) else { throw error(given: "\(value)", key: key) }
        return value == 0 ? 0 : value
    }

    /// Text Swift reads as a number (`"2.5"`, `"1e-3"`) that is finite and in the range.
    /// - Throws: ``OptionError`` for anything else, including `"nan"` and `"inf"`.
    public func check(text: String, key: String? = nil) throws(OptionError) -> Double {
        guard OptionRange.isDecimal(text), let value = Double(text), value.isFinite, range.contains(value) else {
            throw error(given: text.debugDescription, key: key)
        }
        return value == 0 ? 0 : value
    }
}

extension OptionRange {
    /// The whole number decimal `text` × `scale` is, `nil` when it is not one (a fraction, NaN, an
    /// infinity, not decimal). Products a binary fraction misses by rounding (`1.1` × 10⁶ is
    /// 1,100,000.0000000002) count as whole: the error allowed is a billionth of the value.
    static func wholeNumber(text: String, scale: Double) -> Double? {
        guard isDecimal(text), let value = Double(text), value.isFinite else { return nil }
        let product = value * scale, whole = product.rounded()
        guard product.isFinite, abs(product - whole) <= 1e-9 * max(1, abs(product)) else { return nil }
        return whole == 0 ? 0 : whole
    }

    /// Whether `text` is written in decimal (`12`, `-0.5`, `1e-3`): Swift's `Double(_:)` also reads
    /// hexadecimal (`0x10`), `nan` and `inf`, which no option means.
    public static func isDecimal(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }
    }
}

/// An option or policy value outside what ``OptionLimits`` accepts.
public struct OptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The option's key (`maxDuration`), or a policy's key path (`video.maxDuration`).
    public let key: String
    /// What the value must be: `a number of seconds in 0.1...14400`.
    public let expected: String
    /// The value given, as text.
    public let given: String
    /// What is wrong with it, when more can be said than the range (`Mb means megabits; write
    /// 5MB`); `nil` otherwise.
    public var hint: String? = nil

    /// `given` and ``hint``, as a message ends: `"5Mb" (Mb means megabits; write 5MB for megabytes)`.
    public var givenAndHint: String { given + (hint.map { " (\($0))" } ?? "") }

    public var description: String { "\(key) must be \(expected), not \(givenAndHint)" }
}
