import CVips

/// Shrink-on-load: the way every picture AttachKit prepares is first read.
extension VipsImage {
    /// Opens the file at `path` and resizes it to fit inside `width`×`height` while loading
    /// (`vips_thumbnail_source`): JPEG decodes at 1/2, 1/4 or 1/8 scale in the DCT, WebP decodes
    /// scaled, HEIF uses its embedded thumbnail when that is big enough; other formats stream through
    /// a resize. Never upsizes. Pixels are produced on demand, top to bottom (sequential access).
    ///
    /// The path is opened as a byte source, so its name is never parsed for `[options]`.
    /// - Parameters:
    ///   - loaderOptions: passed to the loader, e.g. `"n=-1"` (every frame of an animation, stacked
    ///     with a `page-height`) or `"page=3"` (one frame). Default none.
    ///   - exportProfile: ICC profile to convert into (`"srgb"`), using the embedded profile (or
    ///     libvips' CMYK fallback) as the source; `nil` = no ICC transform, only the interpretation is
    ///     made sRGB or B_W. Output is 8 bits per band either way.
    ///   - failOnWarnings: the loader fails on warnings (truncated or damaged data) instead of
    ///     filling in grey. Default `true`.
    ///   - autorotate: apply EXIF orientation and drop the tag. Default `true`.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/load`` when the file cannot be opened or its header read.
    ///   Decode errors surface later, when pixels are pulled (see ``copyToMemory()``).
    static func thumbnail(path: String, width: Int, height: Int, loaderOptions: String = "",
                          exportProfile: String? = nil, failOnWarnings: Bool = true,
                          autorotate: Bool = true) throws(VipsError) -> VipsImage {
        try thumbnail(.file(path), width: width, height: height, loaderOptions: loaderOptions, exportProfile: exportProfile,
                      failOnWarnings: failOnWarnings, autorotate: autorotate)
    }

    /// ``thumbnail(path:width:height:loaderOptions:exportProfile:failOnWarnings:autorotate:)``
    /// from a file or from bytes in memory (a camera raw's embedded JPEG preview).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/load``.
    static func thumbnail(_ picture: EncodedPicture, width: Int, height: Int, loaderOptions: String = "",
                          exportProfile: String? = nil, failOnWarnings: Bool = true,
                          autorotate: Bool = true) throws(VipsError) -> VipsImage {
        try VipsRuntime.start()
        let failOn = failOnWarnings ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE
        // libvips 8.14's thumbnail_source does not hand its own fail_on to the loader (only the
        // file variant does): the loader gets it through the option string as well.
        let options = ([loaderOptions] + (failOnWarnings ? ["fail_on=warning"] : [])).filter { !$0.isEmpty }.joined(separator: ",")
        return try VipsModules.retryingWithModules { () throws(VipsError) in
            VipsError.clearBuffer()
            guard let source = picture.makeSource() else { throw VipsError.take(operation: .load) }
            defer { g_object_unref(UnsafeMutableRawPointer(source)) }
            var out: UnsafeMutablePointer<CVips.VipsImage>?
            let status: Int32
            if let exportProfile {
                status = ak_vips_thumbnail_source(source, &out, Int32(max(1, width)), Int32(max(1, height)), Self.downOnly, options,
                                                  exportProfile, Int32(failOn.rawValue), autorotate ? 0 : 1)
            } else {
                status = ak_vips_thumbnail_source(source, &out, Int32(max(1, width)), Int32(max(1, height)), Self.downOnly, options,
                                                  nil, Int32(failOn.rawValue), autorotate ? 0 : 1)
            }
            guard status == 0, let out else { throw VipsError.take(operation: .load) }
            return VipsImage(owning: out)
        }
    }

    /// Resizes this image to fit inside `width`×`height` (`vips_thumbnail_image`: alpha is
    /// premultiplied while resampling, so transparent edges do not darken). Never upsizes, never
    /// rotates. An image stacking frames (`page-height`) has each frame fitted.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/resize``.
    func fitted(width: Int, height: Int) throws(VipsError) -> VipsImage {
        try apply(.resize) { ak_vips_thumbnail_image($0, $1, Int32(max(1, width)), Int32(max(1, height)), Self.downOnly, nil, 1) }
    }

    /// What ``thumbnail(path:width:height:loaderOptions:exportProfile:failOnWarnings:autorotate:)``
    /// does after loading, for an image already opened (no shrink-on-load): fit inside
    /// `width`×`height`, upright by its orientation when `autorotate`, colours into `exportProfile`.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/resize``.
    func thumbnail(width: Int, height: Int, exportProfile: String?, autorotate: Bool = true) throws(VipsError) -> VipsImage {
        let noRotate: Int32 = autorotate ? 0 : 1
        if let exportProfile {
            return try apply(.resize) { ak_vips_thumbnail_image($0, $1, Int32(max(1, width)), Int32(max(1, height)), Self.downOnly, exportProfile, noRotate) }
        }
        return try apply(.resize) { ak_vips_thumbnail_image($0, $1, Int32(max(1, width)), Int32(max(1, height)), Self.downOnly, nil, noRotate) }
    }

    /// Every resize here only ever shrinks (`VIPS_SIZE_DOWN`): a picture smaller than the box keeps
    /// its size (enlarging adds bytes, never detail).
    private static let downOnly = Int32(VIPS_SIZE_DOWN.rawValue)

    /// Runs one libvips operation that writes a new image into its second argument.
    /// - Throws: ``VipsError`` tagged `operation` when the call fails.
    func apply(_ operation: VipsOperation,
               _ call: (UnsafeMutablePointer<CVips.VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>) -> Int32)
        throws(VipsError) -> VipsImage {
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        guard call(pointer, &out) == 0, let out else { throw VipsError.take(operation: operation) }
        return VipsImage(owning: out)
    }
}
