/// The three ways an animated GIF is made smaller, in the order they are preferred: a smaller
/// picture, fewer frames (dropped evenly, total duration kept), fewer palette colours.
struct AnimationLevers: Sendable, Equatable {
    /// Linear scale of each frame, relative to the animation within the pixel caps (≤ 1).
    var scale: Double
    /// Frames kept, out of ``AnimationBudgetPlanner/frames``.
    var frames: Int
    /// Palette entries per frame (a power of two, 32...256).
    var colours: Int

    /// The frame size at ``scale`` of `box` (truncated, at least 1×1; the scale is at most 1).
    func box(inside box: (width: Int, height: Int)) -> (width: Int, height: Int) {
        ((Double(box.width) * scale).clampedInteger(in: 1...max(1, box.width), rounding: .towardZero),
         (Double(box.height) * scale).clampedInteger(in: 1...max(1, box.height), rounding: .towardZero))
    }
}

/// Chooses levers for a wanted size reduction, from a simple model of GIF size: bytes scale with
/// pixels^0.7 (resampling adds colours and edges LZW codes poorly; a flat synthetic GIF may not
/// shrink at all), with kept frames^0.85 (fewer frames differ more from each other, so each costs
/// more), and by a factor per palette size. Each lever is used down to its preferred limit before
/// the next is touched (scale to ½, frames to ½, colours to 32); past all three the picture shrinks
/// further, down to ``minimumLongEdge``, then frames go, down to one: ``floor``, the smallest GIF
/// the levers make, which byte fitting always tries before it says a budget cannot be met (so a
/// GIF that fits a budget fits every larger one). Measured sizes correct the model: see
/// ``AnimationBudgetPlanner/reference(measured:with:)``.
struct AnimationBudgetPlanner: Sendable {
    /// Frames of the animation before any lever (after the frame cap).
    let frames: Int
    /// Long edge of a frame before any lever (within the pixel caps).
    let longEdge: Int

    /// Exponent of bytes over pixel count (0.69 measured on the corpus' 1917×1533 photo GIF at ¼ area).
    static let pixelExponent = 0.7
    /// Exponent of bytes over kept frames.
    static let frameExponent = 0.85
    /// Scale the picture may be reduced to before frames are dropped.
    static let preferredMinimumScale = 0.5
    /// Share of frames that may be dropped before colours are reduced.
    static let preferredMinimumFrameShare = 0.5
    /// Palette sizes tried, largest first, and the share of bytes each keeps (LZW codes shrink by
    /// about a bit per halving, minus what dithering noise costs).
    static let palettes: [(colours: Int, factor: Double)] = [(256, 1), (128, 0.86), (64, 0.74), (32, 0.63)]
    /// No frame is made smaller than this on its long edge (or than the frame itself, if smaller).
    static let minimumLongEdge = 48

    /// Every lever at rest.
    var full: AnimationLevers { AnimationLevers(scale: 1, frames: frames, colours: 256) }

    /// Every lever at its limit: the smallest picture allowed, one frame, 32 colours.
    var floor: AnimationLevers { AnimationLevers(scale: minimumScale, frames: 1, colours: Self.palettes.last!.colours) }

    /// The share of the unreduced size the model predicts for `levers`.
    func predictedShare(_ levers: AnimationLevers) -> Double {
        let pixels = pow(levers.scale * levers.scale, Self.pixelExponent)
        let kept = pow(Double(levers.frames) / Double(max(1, frames)), Self.frameExponent)
        let palette = Self.palettes.first { $0.colours <= levers.colours }?.factor ?? Self.palettes.last!.factor
        return pixels * kept * palette
    }

    /// Levers predicted to bring the size down to `share` of the unreduced size; ``floor`` when
    /// even it is predicted to stay above.
    func levers(forShare share: Double) -> AnimationLevers {
        guard share < 1 else { return full }
        let scaleExponent = 2 * Self.pixelExponent
        // 1. Scale alone.
        let scale = pow(share, 1 / scaleExponent)
        let preferredScale = max(Self.preferredMinimumScale, minimumScale)
        if scale >= preferredScale { return AnimationLevers(scale: scale, frames: frames, colours: 256) }
        var left = share / pow(preferredScale, scaleExponent)
        // 2. Frames, keeping at least half (and at least one).
        let minimumFrames = (Double(frames) * Self.preferredMinimumFrameShare).clampedInteger(in: 1...max(1, frames), rounding: .up)
        // Clamped: `left` is under 1 for any share under 1, but a NaN share (a zero-byte
        // measurement) must not trap; it keeps no frame and falls through to the next lever.
        let wantedFrames = (Double(frames) * pow(left, 1 / Self.frameExponent)).clampedInteger(in: 0...max(0, frames), rounding: .down)
        if wantedFrames >= minimumFrames {
            return AnimationLevers(scale: preferredScale, frames: wantedFrames, colours: 256)
        }
        left /= pow(Double(minimumFrames) / Double(max(1, frames)), Self.frameExponent)
        // 3. Colours.
        if let palette = Self.palettes.first(where: { $0.factor <= left }) {
            return AnimationLevers(scale: preferredScale, frames: minimumFrames, colours: palette.colours)
        }
        return pastPreferences(left / Self.palettes.last!.factor, scale: preferredScale, frames: minimumFrames)
    }

    /// Past every preference, `left` of the size still to go from `scale`, `frames` and 32
    /// colours: 4. a smaller picture, down to ``minimumScale``; 5. fewer frames, down to one.
    private func pastPreferences(_ left: Double, scale: Double, frames kept: Int) -> AnimationLevers {
        let scaleExponent = 2 * Self.pixelExponent
        let colours = Self.palettes.last!.colours
        let smaller = scale * pow(left, 1 / scaleExponent)
        if smaller >= minimumScale { return AnimationLevers(scale: smaller, frames: kept, colours: colours) }
        let rest = left / pow(minimumScale / scale, scaleExponent)
        // Clamped: a NaN share keeps no frame, then one.
        let fewer = (Double(kept) * pow(rest, 1 / Self.frameExponent)).clampedInteger(in: 0...max(1, kept), rounding: .down)
        return AnimationLevers(scale: minimumScale, frames: max(1, fewer), colours: colours)
    }

    /// The smallest scale allowed: ``minimumLongEdge`` pixels on the long edge (1 for smaller frames).
    var minimumScale: Double { min(1, Double(Self.minimumLongEdge) / Double(max(1, longEdge))) }

    /// The unreduced size implied by a measured encode: `measured` bytes came from `levers`.
    func reference(measured: Int64, with levers: AnimationLevers) -> Double {
        Double(measured) / max(1e-9, predictedShare(levers))
    }
}
