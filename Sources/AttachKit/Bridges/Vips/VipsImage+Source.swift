import CVips

/// Where libvips reads an encoded picture from.
enum EncodedPicture: Sendable {
    /// A file, opened as a byte source (its name is never parsed for `[options]`).
    case file(String)
    /// Bytes in memory (a camera raw's embedded JPEG preview), copied into a libvips blob that
    /// the source, and so every image read from it, holds until it goes away.
    case bytes([UInt8])

    /// A new source on the picture (the caller releases it); `nil` when it cannot be made.
    func makeSource() -> UnsafeMutablePointer<VipsSource>? {
        switch self {
        case .file(let path):
            return vips_source_new_from_file(path)
        case .bytes(let bytes):
            guard !bytes.isEmpty, let blob = bytes.withUnsafeBytes({ vips_blob_copy($0.baseAddress, $0.count) }) else { return nil }
            // The source takes its own reference.
            defer { vips_area_unref(UnsafeMutableRawPointer(blob).assumingMemoryBound(to: VipsArea.self)) }
            return vips_source_new_from_blob(blob)
        }
    }
}

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
        try load(.file(path), loaderOptions: loaderOptions, sequential: sequential, failOnWarnings: failOnWarnings)
    }

    /// ``load(path:loaderOptions:sequential:failOnWarnings:)`` from a file or from bytes in memory.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/load``.
    static func load(_ picture: EncodedPicture, loaderOptions: String = "", sequential: Bool = true,
                     failOnWarnings: Bool = true) throws(VipsError) -> VipsImage {
        try VipsRuntime.start()
        return try VipsModules.retryingWithModules { () throws(VipsError) in
            VipsError.clearBuffer()
            guard let source = picture.makeSource() else { throw VipsError.take(operation: .load) }
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
