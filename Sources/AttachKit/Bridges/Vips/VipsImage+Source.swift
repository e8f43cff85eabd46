import CVips

extension VipsImage {
    /// Opens the file at `path` as a byte source (its name is never parsed for `[options]`) and
    /// reads the header; pixels are decoded on demand, top to bottom when `sequential`.
    /// - Parameters:
    ///   - loaderOptions: passed to the loader, e.g. `"n=-1"` (every frame of an animation, stacked,
    ///     with `page-height`, `delay` and `loop` fields). Default none.
    ///   - sequential: top-to-bottom access (constant memory, one pass). Default `true`.
    ///   - failOnWarnings: decoder warnings (truncated or damaged data) are errors. Default `true`.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/load``.
    static func load(path: String, loaderOptions: String = "", sequential: Bool = true,
                     failOnWarnings: Bool = true) throws(VipsError) -> VipsImage {
        try VipsRuntime.start()
        return try VipsModules.retryingWithModules { () throws(VipsError) in
            VipsError.clearBuffer()
            guard let source = vips_source_new_from_file(path) else { throw VipsError.take(operation: .load) }
            defer { g_object_unref(UnsafeMutableRawPointer(source)) }
            let access = sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM
            let failOn = failOnWarnings ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE
            guard let raw = ak_vips_open_source(source, loaderOptions, Int32(access.rawValue), Int32(failOn.rawValue)) else {
                throw VipsError.take(operation: .load)
            }
            return VipsImage(owning: raw)
        }
    }
}
