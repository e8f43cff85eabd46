import CVips
#if canImport(Glibc)
import Glibc
#endif

/// libvips started once per process: operation cache off (AttachKit never reuses results, and
/// benchmarks must be honest), untrusted loaders blocked (ImageMagick, PDF, SVG, FITS... are not
/// attachment formats and carry the most CVEs), optional modules loaded on first need
/// (``VipsModules``), and a thread count the caller can set.
enum VipsRuntime {
    private static let started: Result<Void, VipsError> = {
        if VipsModules.startingWithout({ vips_init("attachkit") }) != 0 {
            return .failure(VipsError.take(operation: .start))
        }
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_block_untrusted_set(1)
        vips_leak_set(0)
        // libvips and its loaders warn through GLib straight to stderr; AttachKit reports problems
        // itself (and fails on warnings where it matters), so those lines are dropped unless
        // ATTACHKIT_VIPS_LOG is set.
        if getenv("ATTACHKIT_VIPS_LOG") == nil {
            let levels = GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_MESSAGE.rawValue
                | G_LOG_LEVEL_INFO.rawValue | G_LOG_LEVEL_DEBUG.rawValue)
            for domain in ["VIPS", "GLib-GObject", "GLib"] {
                g_log_set_handler(domain, levels, { _, _, _, _ in }, nil)
            }
        }
        return .success(())
    }()

    /// Starts libvips if needed.
    /// - Throws: ``VipsError`` when libvips cannot start (missing modules, version mismatch).
    static func start() throws(VipsError) {
        try started.get()
    }

    /// Threads each libvips pipeline may use (libvips' default is the core count). Batch runs and
    /// services set cores ÷ jobs so parallel jobs do not oversubscribe the machine. The setting is
    /// global to the process: the last batch or service created in a process decides it.
    static func setThreads(_ count: Int) {
        try? start()
        vips_concurrency_set(Int32(max(1, count)))
    }
}
