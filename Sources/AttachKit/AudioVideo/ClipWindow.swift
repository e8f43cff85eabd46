/// The span of the input a clip keeps, in seconds from the start of the input's timeline (the
/// earliest first timestamp of the streams used, so `0` is where playback begins).
struct ClipWindow: Sendable, Equatable {
    /// Where the clip is asked to start.
    var start: Double
    /// The most it may last (the duration budget); `nil` = to the end of the input. The input's end
    /// may come first. A fast trim that snaps back to a keyframe keeps this much from the keyframe,
    /// so as much as possible of what follows `start` is kept.
    var duration: Double?

    /// The whole input.
    static let whole = ClipWindow(start: 0, duration: nil)

    /// This window, or, when it takes the whole input, one that still ends at `maxDuration`: an
    /// encode never writes more than the budget, whatever the input declares (a chained Ogg whose
    /// header gives its first stream's 20 s of 40). `nil` leaves it as it is.
    func capped(at maxDuration: Double?) -> ClipWindow {
        guard duration == nil, let maxDuration else { return self }
        return ClipWindow(start: start, duration: Self.wholeMilliseconds(maxDuration))
    }

    /// `seconds` rounded down to a whole millisecond (within a nanosecond, so 0.29 stays 0.29):
    /// an MP4's movie header and edit lists count milliseconds and the muxer rounds a duration up
    /// to the next one, so a clip cut to a budget that is not whole milliseconds came out declaring
    /// up to 1 ms more than it (0.11999 s of sound declared 0.12 s).
    static func wholeMilliseconds(_ seconds: Double) -> Double {
        ((seconds * 1000) + 1e-6).rounded(.down) / 1000
    }

    /// Whether the window cuts anything (a whole input is remuxed or transcoded, never trimmed).
    var cuts: Bool { start > 0 || duration != nil }

    /// Seconds the clip will last from `start` for an input of `total` seconds (`nil` when both
    /// are unknown).
    func span(total: Double?) -> Double? {
        let remaining = total.map { max(0, $0 - start) }
        switch (duration, remaining) {
        case let (d?, r?): return min(d, r)
        case let (d?, nil): return d
        case let (nil, r?): return r
        case (nil, nil): return nil
        }
    }

    /// The window for `total` seconds of input, asked to start at `start` and last at most
    /// `maxDuration` (the profile's or the options').
    ///
    /// Nothing is cut when the input already fits: a start of 0 and a total within `maxDuration`
    /// plus the validator's slack (``DurationRule/slack``).
    /// - Throws: ``PrepareError/cannotFit(reason:)`` when the input lasts 0 s, `start` is negative or not before the end,
    ///   or `maxDuration` is under ``OptionLimits/maxDuration``'s minimum (0.1 s: too short to
    ///   keep a frame; the front ends refuse such a budget before this point).
    static func make(start: Double, maxDuration: Double?, total: Double?) throws(PrepareError) -> ClipWindow {
        guard start.isFinite, start >= 0 else { throw .cannotFit(reason: "a start at \(start) s is not a time in the clip") }
        if let total, total <= 0 {
            throw .cannotFit(reason: "the input lasts 0 s (its timing gives its media no duration): there is nothing to play")
        }
        if let total, start >= total {
            throw .cannotFit(reason: "the start at \(ClipText.seconds(start)) is at or after the end of the \(ClipText.seconds(total)) input")
        }
        guard let maxDuration else { return ClipWindow(start: start, duration: nil) }
        let shortest = OptionLimits.maxDuration.range.lowerBound
        guard maxDuration >= shortest else {
            throw .cannotFit(reason: "a duration budget of \(maxDuration) s is under the \(shortest) s a clip needs to keep anything")
        }
        if start == 0, let total, total <= maxDuration + DurationRule.slack { return .whole }
        return ClipWindow(start: start, duration: wholeMilliseconds(maxDuration))
    }
}

/// Number formatting for notes and messages.
enum ClipText {
    /// `12.3 s`
    static func seconds(_ value: Double) -> String { "\(rounded(value, 3)) s" }
    /// `1.25 Mb/s`, `96 kb/s`
    static func bitRate(_ value: Int) -> String {
        value >= 1_000_000 ? "\(rounded(Double(value) / 1e6, 2)) Mb/s" : "\((Double(value) / 1000).clampedInteger(in: Int.min...Int.max)) kb/s"
    }
    static func rounded(_ value: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }
}
