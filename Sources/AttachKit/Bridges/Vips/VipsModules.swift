import CVips
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// libvips' optional loaders live in modules (Debian: `vips-modules-8.14/` beside `libvips.so`:
/// heif, jxl, magick, openslide, poppler) that `vips_init` loads all at once, with every library
/// they pull in: ~30 ms of CPU and ~8 MB of RSS at start-up (`vipsheader` on an 8×8 JPEG: 79 ms
/// CPU with the five, 64 ms with heif and jxl only, 49 ms with none). AttachKit never runs the
/// magick, openslide and poppler loaders (``VipsRuntime`` blocks them as untrusted), and needs
/// heif (HEIC, HEIF, AVIF) and jxl (JPEG XL) only for those formats.
///
/// So `vips_init` runs with `VIPSHOME` pointing at ``noModules`` (a folder that does not exist:
/// libvips finds no modules there; the variable is removed again once libvips started), and
/// ``wanted`` are loaded from libvips' own module folder on first need: when a load fails before
/// they are loaded (``retryingWithModules(_:)``, the same answer as with them loaded from the
/// start, because the built-in loaders claim the same files either way) or before a HEIF encode. When `VIPSHOME` is set to anything else, libvips
/// loads what it finds there, as before, and nothing is loaded here.
enum VipsModules {
    /// The modules AttachKit reads with, loaded on first need.
    static let wanted = ["heif", "jxl"]
    /// `VIPSHOME` while libvips starts: no modules are found under it.
    static let noModules = "/nonexistent/attachkit-loads-vips-modules-on-demand"

    /// Whether ``wanted`` are loaded (or libvips loaded its modules itself).
    private static let loaded = Atomic<Bool>(false)

    /// Runs `start` (`vips_init`) with `VIPSHOME` at ``noModules``, then removes it again, so child
    /// processes (the `vips` CLI, workers) get the environment as it was. When the user set
    /// `VIPSHOME`, it is left alone: libvips loads what it finds there, and ``loaded`` is set.
    static func startingWithout(_ start: () -> Int32) -> Int32 {
        guard getenv("VIPSHOME") == nil else {
            loaded.store(true, ordering: .releasing)
            return start()
        }
        setenv("VIPSHOME", noModules, 1)
        defer { unsetenv("VIPSHOME") }
        return start()
    }

    /// Loads ``wanted`` once, from the `vips-modules-MAJOR.MINOR` folder beside the libvips
    /// library this process mapped. A module that is missing or does not load is skipped: the
    /// formats it reads then fail to load, as they would with libvips' own loading.
    private static let loading: Void = {
        guard let library = libraryPath(), let slash = library.lastIndex(of: "/") else { return }
        let modules = library[..<slash] + "/vips-modules-\(vips_version(0)).\(vips_version(1))"
        for name in wanted {
            // Never closed: a module's types stay registered with GObject for the process' life.
            _ = g_module_open(modules + "/vips-" + name + ".so", G_MODULE_BIND_LAZY)
        }
    }()

    /// The path of the libvips library mapped into this process, from `dladdr(3)` on `vips_init`
    /// (looked up with `dlsym`: glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc
    /// module is built without); `nil` when it cannot tell.
    private static func libraryPath() -> String? {
        typealias DLAddr = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32
        guard let symbol = dlsym(nil, "dladdr") else { return nil }
        let dladdr = unsafeBitCast(symbol, to: DLAddr.self)
        let anchor: @convention(c) (UnsafePointer<CChar>?) -> Int32 = vips_init
        // Dl_info: dli_fname, dli_fbase, dli_sname, dli_saddr (four pointers).
        var info: (UnsafePointer<CChar>?, UnsafeRawPointer?, UnsafePointer<CChar>?, UnsafeRawPointer?) = (nil, nil, nil, nil)
        let found = withUnsafeMutableBytes(of: &info) { dladdr(unsafeBitCast(anchor, to: UnsafeRawPointer.self), $0.baseAddress) }
        guard found != 0, let name = info.0 else { return nil }
        return String(cString: name)
    }

    /// Loads ``wanted`` if they are not loaded yet.
    static func load() {
        guard !loaded.load(ordering: .acquiring) else { return }
        _ = loading
        loaded.store(true, ordering: .releasing)
    }

    /// Runs `attempt`; when it fails while ``wanted`` were not loaded yet, loads them and runs it
    /// once more (a HEIC or JPEG XL file is "not a known format" until then).
    static func retryingWithModules<Result: ~Copyable>(_ attempt: () throws(VipsError) -> Result) throws(VipsError) -> Result {
        let hadModules = loaded.load(ordering: .acquiring)
        do {
            return try attempt()
        } catch {
            guard !hadModules else { throw error }
            load()
            return try attempt()
        }
    }
}
