/// Where a poster frame is cut, as arithmetic: the size the whole decoded frame is converted to
/// (square pixels, stored orientation), the quarter turn that makes it upright, and the clip's
/// rectangle in the upright converted picture.
///
/// The conversion scale is the one at which the clip comes out with its long edge at the asked
/// size (never upscaled), so the whole picture is converted larger when only part of it is kept;
/// never past the decoded frame's own pixel count or the asked long edge squared, whichever is
/// more (a hostile sample aspect ratio cannot make it huge). Without a clip it is exactly the
/// thumbnail's size.
struct PosterLayout: Sendable, Equatable {
    /// The whole frame after conversion, before it is turned.
    var width: Int
    var height: Int
    /// Clockwise display rotation applied after conversion: 0, 90, 180 or 270 (any other angle
    /// is shown unturned).
    var rotation: Int
    /// The clip in the upright converted picture, pixels; at most the asked long edge per side.
    var left: Int
    var top: Int
    var cropWidth: Int
    var cropHeight: Int

    /// The longest side a conversion may have (libswscale's practical limit), unless the asked
    /// long edge is longer.
    static let maximumSide = 16_384

    /// - Parameters:
    ///   - storedWidth, storedHeight: the decoded frame's size (at least 1 × 1).
    ///   - sampleAspect: width of one stored pixel over its height (1 = square; 0 or less = square).
    ///   - rotation: clockwise display rotation in degrees.
    ///   - clip: the region kept, in upright coordinates; `nil` = the whole picture.
    ///   - longEdge: the largest long edge wanted.
    init(storedWidth: Int, storedHeight: Int, sampleAspect: Double, rotation: Int, clip: ClippingRect?, longEdge: Int) {
        let turn = ((rotation % 360) + 360) % 360
        self.rotation = [90, 180, 270].contains(turn) ? turn : 0
        let quarter = self.rotation % 180 != 0
        let squareWidth = Double(storedWidth) * (sampleAspect > 0 ? sampleAspect : 1)
        let squareHeight = Double(storedHeight)
        let clip = clip ?? .full
        let edge = max(1, longEdge)
        let region = quarter
            ? max(clip.width * squareHeight, clip.height * squareWidth)
            : max(clip.width * squareWidth, clip.height * squareHeight)
        var scale = min(1, Double(edge) / region)
        let bound = max(Double(storedWidth) * Double(storedHeight), Double(edge) * Double(edge))
        if squareWidth * squareHeight * scale * scale > bound { scale = (bound / (squareWidth * squareHeight)).squareRoot() }
        let side = max(edge, Self.maximumSide)
        width = (squareWidth * scale).clampedInteger(in: 1...side)
        height = (squareHeight * scale).clampedInteger(in: 1...side)

        // The clip is inside the unit square (``ClippingRect``): clamping keeps at least one pixel.
        let uprightWidth = quarter ? height : width
        let uprightHeight = quarter ? width : height
        left = (clip.x * Double(uprightWidth)).clampedInteger(in: 0...uprightWidth - 1)
        top = (clip.y * Double(uprightHeight)).clampedInteger(in: 0...uprightHeight - 1)
        cropWidth = (clip.width * Double(uprightWidth)).clampedInteger(in: 1...min(edge, uprightWidth - left))
        cropHeight = (clip.height * Double(uprightHeight)).clampedInteger(in: 1...min(edge, uprightHeight - top))
    }

    /// Whether the clip keeps less than the whole upright picture.
    var crops: Bool {
        cropWidth < (rotation % 180 == 0 ? width : height) || cropHeight < (rotation % 180 == 0 ? height : width)
    }
}
