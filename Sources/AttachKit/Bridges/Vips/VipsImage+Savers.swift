import CVips

/// Encoders into memory besides JPEG (``jpegData(quality:strip:progressive:)``): PNG, GIF, HEIC.
/// Encoding pulls every pixel, so on a lazily loaded image a decode error can surface here too.
extension VipsImage {
    /// How a PNG is written.
    enum PNGMode: Sendable, Equatable {
        /// Every pixel kept exactly (8 bits per band).
        case truecolour
        /// Quantised to a palette of at most `colours` (2...256) entries with libimagequant,
        /// Floyd–Steinberg dithered by `dither` (0...1).
        case palette(colours: Int, dither: Double)
    }

    /// Encodes the image as PNG in memory.
    /// - Parameters:
    ///   - mode: truecolour or palette. Default truecolour.
    ///   - strip: drop EXIF/XMP/ICC metadata. Default `true`.
    ///   - compression: zlib level 0...9. Default 6.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/pngsave``.
    func pngData(_ mode: PNGMode = .truecolour, strip: Bool = true, compression: Int = 6) throws(VipsError) -> [UInt8] {
        try encode(.pngsave) { image, buffer, length in
            switch mode {
            case .truecolour:
                return ak_vips_pngsave_buffer(image, buffer, length, Int32(compression), strip ? 1 : 0, 0, 100, 8, 0, 7)
            case .palette(let colours, let dither):
                return ak_vips_pngsave_buffer(image, buffer, length, Int32(compression), strip ? 1 : 0, 1, 100,
                                              Int32(Self.bitDepth(forColours: colours)), dither, 7)
            }
        }
    }

    /// Encodes the image as GIF in memory: an animation when the image stacks frames (its
    /// `page-height`, `delay` and `loop` fields say how), else a still.
    /// - Parameters:
    ///   - colours: palette size per frame, 2...256 (rounded up to a power of two). Default 256.
    ///   - dither: Floyd–Steinberg dithering 0...1. Default 1.
    ///   - effort: libimagequant effort 1...10. Default 7 (libvips' default).
    ///   - strip: drop metadata. Default `true`.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/gifsave``.
    func gifData(colours: Int = 256, dither: Double = 1, effort: Int = 7, strip: Bool = true) throws(VipsError) -> [UInt8] {
        try encode(.gifsave) { image, buffer, length in
            ak_vips_gifsave_buffer(image, buffer, length, Int32(Self.bitDepth(forColours: colours)), dither,
                                   Int32(min(10, max(1, effort))), strip ? 1 : 0, 0)
        }
    }

    /// Encodes the image as an HEIC still (HEVC through libheif) in memory.
    /// - Parameters:
    ///   - quality: libheif's quality 1...100 (x265 CRF ≈ (100 − quality) / 2).
    ///   - bitDepth: bits per sample, 8, 10 or 12. Default 8 (what every iOS device decodes in
    ///     hardware; sources are made 8-bit before encoding anyway).
    ///   - effort: encoder CPU effort 0...9. Default 4 (libvips' default).
    ///   - strip: drop metadata. Default `true`.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/heifsave``.
    func heicData(quality: Int, bitDepth: Int = 8, effort: Int = 4, strip: Bool = true) throws(VipsError) -> [UInt8] {
        VipsModules.load()
        return try encode(.heifsave) { image, buffer, length in
            ak_vips_heifsave_buffer(image, buffer, length, Int32(min(100, max(1, quality))), Int32(bitDepth),
                                    Int32(VIPS_FOREIGN_HEIF_COMPRESSION_HEVC.rawValue), Int32(effort), strip ? 1 : 0)
        }
    }

    /// Decodes an encoded image held in `bytes` and keeps its pixels in memory (so the result does
    /// not depend on `bytes` living on). Warnings are errors.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/loadBuffer`` or ``VipsOperation/decode``.
    static func decoding(_ bytes: [UInt8]) throws(VipsError) -> VipsImage {
        try VipsRuntime.start()
        return try VipsModules.retryingWithModules { () throws(VipsError) in
            var failed = VipsOperation.loadBuffer
            let raw: UnsafeMutablePointer<CVips.VipsImage>? = bytes.withUnsafeBytes { buffer in
                guard let lazy = ak_vips_open_buffer(buffer.baseAddress, buffer.count, Int32(VIPS_ACCESS_RANDOM.rawValue),
                                                     Int32(VIPS_FAIL_ON_WARNING.rawValue)) else { return nil }
                defer { g_object_unref(UnsafeMutableRawPointer(lazy)) }
                failed = .decode
                return vips_image_copy_memory(lazy)
            }
            guard let raw else { throw VipsError.take(operation: failed) }
            return VipsImage(owning: raw)
        }
    }

    /// Bits per palette index for `colours` entries (1...8).
    static func bitDepth(forColours colours: Int) -> Int {
        var depth = 1
        while (1 << depth) < colours && depth < 8 { depth += 1 }
        return depth
    }

    /// Runs a `*save_buffer` call and copies the bytes out, freeing libvips' buffer on every path.
    func encode(_ operation: VipsOperation,
                        _ call: (UnsafeMutablePointer<CVips.VipsImage>, UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                                 UnsafeMutablePointer<Int>) -> Int32) throws(VipsError) -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = call(pointer, &buffer, &length)
        defer { if let buffer { g_free(buffer) } }
        guard status == 0, let buffer else { throw VipsError.take(operation: operation) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
