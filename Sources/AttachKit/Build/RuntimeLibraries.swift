/// The libvips and FFmpeg this process runs against, as the libraries themselves report their
/// versions (they may differ from the headers AttachKit was compiled against within a soname).
public struct RuntimeLibraries: Sendable {
    /// libvips' version, e.g. `8.14.1`.
    public let vips: String
    /// FFmpeg's release as its libavutil names it, e.g. `5.1.7-0+deb12u1`; `nil` when FFmpeg cannot
    /// be loaded (``ffmpegFailure`` then says why).
    public let ffmpeg: String?
    /// Why FFmpeg could not be loaded (the loader's message: library, Debian package, reason).
    public let ffmpegFailure: String?
    /// Every FFmpeg library the loader opens, with its version when loaded.
    public let ffmpegLibraries: [FFmpegLibraryInfo]

    /// Reads the versions, loading FFmpeg if this process has not yet (its five core libraries; with
    /// `filters`, default `true`, libavfilter too, which maps many libraries of its own).
    public static func current(filters: Bool = true) -> RuntimeLibraries {
        let release = Result { () throws(FFmpegError) in try FFmpegLibrary.release(filters: filters) }
        return RuntimeLibraries(vips: VipsRuntime.version, ffmpeg: try? release.get(),
                                ffmpegFailure: release.failureMessage, ffmpegLibraries: FFmpegLibrary.libraries)
    }

    /// `{"version" | "error", "libraries": [...]}`.
    var ffmpegJSON: JSONValue {
        var o = JSONObjectBuilder()
        o.set("version", ffmpeg)
        o.set("error", ffmpegFailure)
        o.set("libraries", .array(ffmpegLibraries.map(\.json)))
        return o.value
    }
}

private extension Result where Failure == FFmpegError {
    var failureMessage: String? {
        if case .failure(let error) = self { return error.message }
        return nil
    }
}
