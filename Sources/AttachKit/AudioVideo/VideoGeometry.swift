/// The picture size a transcode writes.
///
/// Rotation is honoured by keeping the input's display matrix on the output stream (no pixel is
/// rotated, so a quarter turn costs nothing): the stored size below is the unrotated one and the
/// player turns it upright exactly as it did the input. The long-edge cap does not care about a
/// quarter turn, so it is applied to the stored size, which gives the same result as applying it to
/// the displayed one.
///
/// Non-square pixels (a sample aspect ratio other than 1:1) are resampled to square ones, so the
/// output shows the same shape with SAR 1:1 whatever the player does with the tag.
struct VideoGeometry: Sendable, Equatable {
    /// Stored (coded) size of the input.
    var width: Int
    var height: Int
    /// Sample aspect ratio of the input (1 = square pixels).
    var sampleAspect: Double
    /// Clockwise display rotation (0, 90, 180, 270).
    var rotation: Int

    /// The input's shape in square pixels, before rotation.
    var squareWidth: Double { Double(width) * (sampleAspect > 0 ? sampleAspect : 1) }

    /// The long edge in square pixels.
    var longEdge: Double { max(squareWidth, Double(height)) }

    /// The size that shows the input's picture with square pixels and a long edge of at most
    /// `maxLongEdge` (never upscaled), both sides even (4:2:0 chroma) and at least 2.
    func output(maxLongEdge: Int?) -> (width: Int, height: Int) {
        let cap = Double(maxLongEdge ?? Int.max)
        let scale = min(1, cap / longEdge)
        return (Self.even(squareWidth * scale), Self.even(Double(height) * scale))
    }

    /// Whether the picture can be copied as it is: its stored long edge within `maxLongEdge` (the
    /// cap is on what is decoded, as for a file passed through). Non-square pixels are copied with
    /// their aspect (a copy carries the sample aspect into the output's `pasp`, as AVFoundation
    /// shows it); only a transcode resamples them.
    func fits(maxLongEdge: Int?) -> Bool {
        max(width, height) <= (maxLongEdge ?? Int.max)
    }

    /// The nearest even number, at least 2 (never rounds up past `value` by more than one), at
    /// most 65,534: no codec AttachKit writes stores a larger side, and a sample aspect ratio from
    /// the file (up to 2³¹:1) may make `value` anything.
    static func even(_ value: Double) -> Int {
        let pairs = (value / 2).clampedInteger(in: 0...32_767, rounding: .down)
        let roundsUp = pairs < 32_767 && value.truncatingRemainder(dividingBy: 2) >= 1.5
        return max(2, pairs * 2 + (roundsUp ? 2 : 0))
    }
}
