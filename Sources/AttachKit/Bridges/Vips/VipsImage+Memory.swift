import CVips

extension VipsImage {
    /// An image over a copy of interleaved 8-bit pixels (e.g. an RGB frame from a video decoder).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/fromMemory`` when the size does not match or libvips fails.
    static func fromPixels(_ bytes: [UInt8], width: Int, height: Int, bands: Int) throws(VipsError) -> VipsImage {
        try VipsRuntime.start()
        guard width > 0, height > 0, bands > 0, bytes.count == width * height * bands else {
            throw VipsError(operation: .fromMemory, message: "\(bytes.count) bytes is not \(width)×\(height)×\(bands)")
        }
        let raw = bytes.withUnsafeBytes { buffer in
            vips_image_new_from_memory_copy(buffer.baseAddress, buffer.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        }
        guard let raw else { throw VipsError.take(operation: .fromMemory) }
        // libvips calls a memory image "multiband"; these pixels are sRGB (or grey), with alpha
        // last when there is one. Said so, savers do not guess (gifsave scrambled a 4-band
        // "multiband" animation into stripes).
        raw.pointee.Type = bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W
        return VipsImage(owning: raw)
    }

    /// Encodes the image as JPEG in memory (8-bit sRGB, greyscale or CMYK input).
    /// - Parameters:
    ///   - quality: 1...100.
    ///   - strip: drop EXIF/XMP/ICC metadata. Default `true`.
    ///   - progressive: progressive scans instead of baseline. Default `false`.
    ///   - optimizeCoding: Huffman tables computed for this picture instead of the standard ones
    ///     (a few percent smaller, the same pixels, one more pass over the coefficients). Default `true`.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/jpegsave``.
    func jpegData(quality: Int, strip: Bool = true, progressive: Bool = false, optimizeCoding: Bool = true) throws(VipsError) -> [UInt8] {
        try encode(.jpegsave) { image, buffer, length in
            ak_vips_jpegsave_buffer(image, buffer, length, Int32(min(100, max(1, quality))), strip ? 1 : 0,
                                    optimizeCoding ? 1 : 0, progressive ? 1 : 0)
        }
    }
}
