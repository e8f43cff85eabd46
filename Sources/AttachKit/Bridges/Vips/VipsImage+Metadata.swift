import CVips

/// Metadata edits. libvips images may be shared by the operations built on them, so fields are
/// only ever changed on a fresh copy (`vips_copy`, which shares the pixels).
extension VipsImage {
    /// A change to one metadata field.
    enum MetadataEdit: Sendable {
        /// Sets an integer field (`"page-height"`, `"loop"`, `"orientation"`).
        case int(String, Int)
        /// Sets an integer-array field (`"delay"`, in milliseconds per frame).
        case ints(String, [Int])
        /// Removes a field (`"orientation"`, `"exif-data"`...); nothing happens when it is absent.
        case remove(String)
    }

    /// A copy of the image (same pixels) with `edits` applied in order.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/copy``.
    func editingMetadata(_ edits: [MetadataEdit]) throws(VipsError) -> VipsImage {
        let copy = try apply(.copy) { ak_vips_copy($0, $1) }
        for edit in edits {
            switch edit {
            case .int(let name, let value):
                vips_image_set_int(copy.pointer, name, Int32(clamping: value))
            case .ints(let name, let values):
                var raw = values.map { Int32(clamping: $0) }
                raw.withUnsafeMutableBufferPointer { buffer in
                    vips_image_set_array_int(copy.pointer, name, buffer.baseAddress, Int32(buffer.count))
                }
            case .remove(let name):
                _ = vips_image_remove(copy.pointer, name)
            }
        }
        return copy
    }

    /// Metadata blocks that describe the picture beyond its pixels (EXIF, XMP, IPTC, ICC), present in
    /// this image.
    var metadataBlocks: [String] {
        ["exif-data", "xmp-data", "iptc-data", "icc-profile-data"].filter { has($0) }
    }
}
