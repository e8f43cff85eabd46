import CVips

/// Pixel operations image preparation needs. Each returns a new image (lazy: pixels are computed
/// when something pulls them) and leaves this one untouched.
extension VipsImage {
    /// libvips' colour spaces AttachKit converts between.
    enum ColourSpace: Sendable {
        /// 8-bit sRGB (3 bands, plus alpha).
        case sRGB
        /// 8-bit greyscale (1 band, plus alpha).
        case greyscale

        var interpretation: VipsInterpretation {
            switch self {
            case .sRGB: return VIPS_INTERPRETATION_sRGB
            case .greyscale: return VIPS_INTERPRETATION_B_W
            }
        }
    }

    /// Whether the pixels are 8-bit unsigned (`uchar`).
    var isEightBit: Bool { vips_image_get_format(pointer) == VIPS_FORMAT_UCHAR }

    /// Whether the pixels are 8-bit sRGB or B_W (the spaces attachments are written in).
    var isDisplayReady: Bool {
        let space = vips_image_get_interpretation(pointer)
        return isEightBit && (space == VIPS_INTERPRETATION_sRGB || space == VIPS_INTERPRETATION_B_W)
    }

    /// Whether the picture is greyscale (one colour band, with or without alpha).
    var isGreyscale: Bool { bands - (hasAlpha ? 1 : 0) == 1 }

    /// Converts to `space` (`vips_colourspace`), which also takes 16-bit data down to 8 bits.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/colourspace``.
    func converted(to space: ColourSpace) throws(VipsError) -> VipsImage {
        try apply(.colourspace) { ak_vips_colourspace($0, $1, Int32(space.interpretation.rawValue)) }
    }

    /// Casts every band to 8-bit unsigned (values are clipped, not rescaled).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/cast``.
    func castToEightBit() throws(VipsError) -> VipsImage {
        try apply(.cast) { ak_vips_cast($0, $1, Int32(VIPS_FORMAT_UCHAR.rawValue)) }
    }

    /// `count` bands starting at `band` (`vips_extract_band`).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/extractBand``.
    func bands(from band: Int, count: Int = 1) throws(VipsError) -> VipsImage {
        try apply(.extractBand) { ak_vips_extract_band($0, $1, Int32(band), Int32(count)) }
    }

    /// The colour bands without the alpha band (a copy of the bands when there is none).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/extractBand``.
    func withoutAlpha() throws(VipsError) -> VipsImage {
        try bands(from: 0, count: hasAlpha ? bands - 1 : bands)
    }

    /// A rectangle of the image (`vips_extract_area`); the rectangle must lie inside the image.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/crop``.
    func cropped(left: Int, top: Int, width: Int, height: Int) throws(VipsError) -> VipsImage {
        try apply(.crop) { ak_vips_extract_area($0, $1, Int32(left), Int32(top), Int32(width), Int32(height)) }
    }

    /// The image turned clockwise by `degrees`: 90, 180 or 270 (`vips_rot`, exact: pixels are
    /// moved, not resampled).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/rotate``, also for any other angle.
    func rotated(clockwise degrees: Int) throws(VipsError) -> VipsImage {
        let angle: VipsAngle
        switch degrees {
        case 90: angle = VIPS_ANGLE_D90
        case 180: angle = VIPS_ANGLE_D180
        case 270: angle = VIPS_ANGLE_D270
        default: throw VipsError(operation: .rotate, message: "\(degrees)° is not a quarter turn")
        }
        return try apply(.rotate) { ak_vips_rot($0, $1, Int32(angle.rawValue)) }
    }

    /// Composites the alpha band over a solid background (`vips_flatten`). Default white.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/flatten``.
    func flattened(red: Double = 255, green: Double = 255, blue: Double = 255) throws(VipsError) -> VipsImage {
        try apply(.flatten) { ak_vips_flatten($0, $1, red, green, blue) }
    }

    /// Computes every pixel now and keeps them in memory (`vips_image_copy_memory`), so later
    /// operations (several encode attempts) read memory instead of decoding the file again. This
    /// is where decoding happens for a lazily loaded image, so decode errors surface here.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/decode``.
    func copyToMemory() throws(VipsError) -> VipsImage {
        guard let out = vips_image_copy_memory(pointer) else { throw VipsError.take(operation: .decode) }
        return VipsImage(owning: out)
    }

    /// Stacks horizontal bands of this image on top of each other: for each `(top, height)` in
    /// `strips`, that band of rows, in order (`vips_extract_area` then `vips_arrayjoin`). Used to
    /// keep some frames of an animation stored as one tall image.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/joinFrames``.
    func stacking(strips: [(top: Int, height: Int)]) throws(VipsError) -> VipsImage {
        guard !strips.isEmpty else { throw VipsError(operation: .joinFrames, message: "no frames to keep") }
        var parts: [UnsafeMutablePointer<CVips.VipsImage>?] = []
        defer { for part in parts { if let part { g_object_unref(UnsafeMutableRawPointer(part)) } } }
        for strip in strips {
            var part: UnsafeMutablePointer<CVips.VipsImage>?
            guard ak_vips_extract_area(pointer, &part, 0, Int32(strip.top), Int32(width), Int32(strip.height)) == 0, part != nil else {
                throw VipsError.take(operation: .joinFrames)
            }
            parts.append(part)
        }
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        let status = parts.withUnsafeMutableBufferPointer { buffer in
            ak_vips_arrayjoin(buffer.baseAddress, &out, Int32(buffer.count), 1)
        }
        guard status == 0, let out else { throw VipsError.take(operation: .joinFrames) }
        return VipsImage(owning: out)
    }
}
