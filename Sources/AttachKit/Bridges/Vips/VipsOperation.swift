/// The libvips call that failed: how failures are classified (libvips' error buffer is one global
/// string shared by all threads, so its text is only a hint). The raw value is the name messages show.
enum VipsOperation: String, Sendable, Equatable, CaseIterable {
    /// `vips_init`: libvips cannot start (missing modules, version mismatch).
    case start = "vips_init"
    /// Opening a file and reading its header (`vips_source_new_from_file`, a loader, or
    /// `vips_thumbnail_source`): not readable, not an image, a damaged header.
    case load
    /// `vips_image_new_from_buffer`: an encoded image in memory that no loader takes.
    case loadBuffer = "load buffer"
    /// Pulling pixels through the decoder (`vips_image_copy_memory`, `vips_avg`): the data is damaged.
    case decode
    /// `vips_image_new_from_memory_copy`: pixels that do not match the size given.
    case fromMemory = "from memory"
    /// `vips_jpegsave_buffer`.
    case jpegsave
    /// `vips_pngsave_buffer`.
    case pngsave
    /// `vips_gifsave_buffer`.
    case gifsave
    /// `vips_heifsave_buffer`.
    case heifsave
    /// `vips_copy` (before a metadata edit).
    case copy
    /// `vips_colourspace`.
    case colourspace
    /// `vips_cast`.
    case cast
    /// `vips_extract_band`.
    case extractBand = "extract band"
    /// `vips_extract_area`.
    case crop
    /// `vips_rot`.
    case rotate
    /// `vips_flatten`.
    case flatten
    /// `vips_extract_area` + `vips_arrayjoin` of animation frames.
    case joinFrames = "join frames"
    /// `vips_thumbnail_image`, or a resize whose result does not split into its frames.
    case resize
    /// `vips_min`.
    case min
    /// `vips_max`.
    case max
    /// `vips_avg`.
    case avg
    /// `vips_subtract` / `vips_multiply` of two images being compared.
    case compare
}
