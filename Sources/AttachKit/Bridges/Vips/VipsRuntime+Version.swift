import CVips

extension VipsRuntime {
    /// The version of the libvips this process runs against, as the library reports it
    /// (`vips_version_string()`, e.g. `8.14.1`); needs no `vips_init`.
    static var version: String { String(cString: vips_version_string()) }
}
