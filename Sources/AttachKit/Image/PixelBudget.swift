/// A profile's pixel caps on one frame: long edge, width × height, and the decoded size at 4 bytes
/// per pixel. Sizes are upright (display) sizes, as the validator measures them.
struct PixelBudget: Sendable, Equatable {
    /// Longest side in pixels; `nil` = no cap.
    var maxLongEdge: Int?
    /// Width × height; `nil` = no cap.
    var maxPixels: Int64?
    /// Width × height × 4 bytes; `nil` = no cap.
    var maxDecodedBytes: Int64?

    init(maxLongEdge: Int? = nil, maxPixels: Int64? = nil, maxDecodedBytes: Int64? = nil) {
        self.maxLongEdge = maxLongEdge
        self.maxPixels = maxPixels
        self.maxDecodedBytes = maxDecodedBytes
    }

    /// The caps of `rules` (the image section of a profile).
    init(_ rules: Profile.ImageRules) {
        self.init(maxLongEdge: rules.maxLongEdge, maxPixels: rules.maxPixels, maxDecodedBytes: rules.maxDecodedBytes)
    }

    /// Whether a `width`×`height` frame is within every cap.
    func allows(width: Int, height: Int) -> Bool {
        // Saturating: the product is only compared with the caps.
        let pixels = Int64(width).saturatingMultiply(Int64(height))
        if let maxLongEdge, max(width, height) > maxLongEdge { return false }
        if let maxPixels, pixels > maxPixels { return false }
        if let maxDecodedBytes, pixels.saturatingMultiply(4) > maxDecodedBytes { return false }
        return true
    }

    /// The largest size with the aspect ratio of `width`×`height` (rounded down, at least 1×1)
    /// that is within every cap; the size itself when it already is. A box this size, given to
    /// `vips_thumbnail`, yields an image within the caps: the side that limits the shrink lands on
    /// the box exactly and the other side rounds to at most the box.
    func fit(width: Int, height: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (max(1, width), max(1, height)) }
        if allows(width: width, height: height) { return (width, height) }
        let pixels = Double(width) * Double(height)
        var scale = 1.0
        if let maxLongEdge { scale = min(scale, Double(maxLongEdge) / Double(max(width, height))) }
        if let maxPixels { scale = min(scale, (Double(maxPixels) / pixels).squareRoot()) }
        if let maxDecodedBytes { scale = min(scale, (Double(maxDecodedBytes) / 4 / pixels).squareRoot()) }
        // The scale is at most 1: clamping only keeps a NaN (a cap of 0) from trapping.
        var fitted = (width: (Double(width) * scale + 1e-9).clampedInteger(in: 1...width, rounding: .towardZero),
                      height: (Double(height) * scale + 1e-9).clampedInteger(in: 1...height, rounding: .towardZero))
        // Floating-point rounding can leave a product one row over a pixel cap: trim the longer side.
        while !allows(width: fitted.width, height: fitted.height), fitted.width > 1 || fitted.height > 1 {
            if fitted.width >= fitted.height { fitted.width = max(1, fitted.width - 1) } else { fitted.height = max(1, fitted.height - 1) }
        }
        return fitted
    }

    /// The box to hand `vips_thumbnail` (or `vips_thumbnail_image`) so a `width`×`height` picture
    /// lands on `box` exactly. libvips shrinks by the larger of width ÷ box width and height ÷ box
    /// height, and ``fit(width:height:)`` rounds both sides down: the side truncated more sets the
    /// shrink and the other lands short (5000×3333 into 2048×1365 gave 2047×1364). The side that
    /// must not bind gets one pixel more, when the caps allow the output that could then round to
    /// it; otherwise `box` as it is.
    func thumbnailBox(_ box: (width: Int, height: Int), width: Int, height: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0, box.width < width || box.height < height else { return box }
        let widthScale = Double(box.width) / Double(width), heightScale = Double(box.height) / Double(height)
        if heightScale < widthScale, allows(width: box.width, height: box.height + 1) { return (box.width, box.height + 1) }
        if widthScale < heightScale, allows(width: box.width + 1, height: box.height) { return (box.width + 1, box.height) }
        return box
    }
}
