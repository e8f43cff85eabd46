import CVips

/// One libvips image with exactly one owner: the reference is dropped when the value goes away.
/// Header fields are read without decoding pixels.
struct VipsImage: ~Copyable {
    let pointer: UnsafeMutablePointer<CVips.VipsImage>

    /// Takes over the reference `pointer` carries (as returned by a libvips constructor).
    init(owning pointer: UnsafeMutablePointer<CVips.VipsImage>) {
        self.pointer = pointer
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    /// Height of one page when several are stacked (loaded with `n=-1`).
    var pageHeight: Int { Int(vips_image_get_page_height(pointer)) }

    /// Bits per band: 8 for `uchar`, 16 for `ushort`, 32 for `float`/`int`...
    var bitsPerSample: Int {
        switch vips_image_get_format(pointer) {
        case VIPS_FORMAT_UCHAR, VIPS_FORMAT_CHAR: return 8
        case VIPS_FORMAT_USHORT, VIPS_FORMAT_SHORT: return 16
        case VIPS_FORMAT_UINT, VIPS_FORMAT_INT, VIPS_FORMAT_FLOAT: return 32
        default: return 64
        }
    }

    /// libvips' name for the colour interpretation (`srgb`, `cmyk`, `b-w`, `rgb16`, `grey16`...).
    var interpretation: String {
        let value = vips_image_get_interpretation(pointer)
        guard let nick = vips_enum_nick(vips_interpretation_get_type(), Int32(value.rawValue)) else { return "unknown" }
        return String(cString: nick)
    }

    func has(_ field: String) -> Bool { vips_image_get_typeof(pointer, field) != 0 }

    func int(_ field: String) -> Int? {
        guard has(field) else { return nil }
        var value: Int32 = 0
        guard vips_image_get_int(pointer, field, &value) == 0 else { vips_error_clear(); return nil }
        return Int(value)
    }

    func string(_ field: String) -> String? {
        guard has(field) else { return nil }
        var value: UnsafePointer<CChar>?
        guard vips_image_get_string(pointer, field, &value) == 0, let value else { vips_error_clear(); return nil }
        return String(cString: value)
    }

    func intArray(_ field: String) -> [Int]? {
        guard has(field) else { return nil }
        var values: UnsafeMutablePointer<Int32>?
        var count: Int32 = 0
        guard vips_image_get_array_int(pointer, field, &values, &count) == 0, let values else { vips_error_clear(); return nil }
        return (0..<Int(count)).map { Int(values[$0]) }
    }

    /// Pulls every pixel through the decoder in constant memory (an average), which is how a full
    /// decode check is done.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/decode`` when the decoder fails.
    func decodeAll() throws(VipsError) {
        var average = 0.0
        guard ak_vips_avg(pointer, &average) == 0 else { throw VipsError.take(operation: .decode) }
    }
}
