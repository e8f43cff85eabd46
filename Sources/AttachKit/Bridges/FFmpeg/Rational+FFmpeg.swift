import CFFmpeg

/// The one place ``Rational`` and FFmpeg's `AVRational` meet.
extension Rational {
    init(_ value: AVRational) {
        self.init(Int(value.num), Int(value.den))
    }

    /// As FFmpeg stores it (each term clamped to 32 bits).
    var av: AVRational { AVRational(num: Int32(clamping: numerator), den: Int32(clamping: denominator)) }
}
