import CFFmpegLoader

/// FFmpeg's libraries, opened (`dlopen`) the first time audio or video work needs them, so a
/// process that only handles images never maps them (README, "How FFmpeg is loaded"). Every
/// bridge that starts FFmpeg work (``AVInput``, ``AVDecoder``, ``AVEncoder``, ``AVOutput``...)
/// calls ``require()`` first.
enum FFmpegLibrary {
    /// Loads FFmpeg if no call did yet (once per process, safe from any thread) and applies
    /// ``FFmpegRuntime``'s settings.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/loadLibrary`` whose message names the library that
    ///   could not be opened, its Debian package and the dynamic linker's reason; every later call
    ///   throws the same error (the load is tried once).
    static func require() throws(FFmpegError) {
        if let failure { throw failure }
    }

    /// Whether FFmpeg is loaded (loading it if no call did yet).
    static var isAvailable: Bool { failure == nil }

    private static let failure: FFmpegError? = {
        if let message = ak_ffmpeg_load() {
            return FFmpegError(operation: .loadLibrary, message: String(cString: message))
        }
        FFmpegRuntime.start()
        return nil
    }()

    /// ``require()``, then libavfilter, opened apart the first time a filter graph is built
    /// (``AVVideoFilter``): it maps many libraries of its own, which work without a graph never needs.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/loadLibrary``, as ``require()`` (naming
    ///   libavfilter and Debian's `libavfilter8` when that is what failed).
    static func requireFilters() throws(FFmpegError) {
        try require()
        if let filterFailure { throw filterFailure }
    }

    private static let filterFailure: FFmpegError? = ak_ffmpeg_load_filters().map {
        FFmpegError(operation: .loadLibrary, message: String(cString: $0))
    }
}

extension FFmpegLibrary {
    /// ``require()`` for the prober: a missing FFmpeg makes any file that needs it `unreadable`
    /// (the file may be fine; this process cannot read it), with the loader's message as the reason.
    static func requireForProbe(path: String) throws(ProbeError) {
        do {
            try require()
        } catch {
            throw .unreadable(path: path, reason: error.message)
        }
    }
}
