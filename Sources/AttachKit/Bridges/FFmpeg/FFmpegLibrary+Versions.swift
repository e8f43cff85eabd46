import CFFmpeg
import CFFmpegLoader

extension FFmpegLibrary {
    /// The libraries the loader opens, in its order, each with the version it reported when opened
    /// (`nil` for one not loaded in this process). Loads nothing.
    static var libraries: [FFmpegLibraryInfo] {
        var libraries: [FFmpegLibraryInfo] = []
        var index: Int32 = 0
        while let info = ak_ffmpeg_library(index) {
            let version = ak_ffmpeg_library_version(index)
            libraries.append(FFmpegLibraryInfo(name: String(cString: info.pointee.name), soname: String(cString: info.pointee.soname),
                                               package: String(cString: info.pointee.package),
                                               version: version == 0 ? nil : "\(version >> 16).\((version >> 8) & 0xff).\(version & 0xff)"))
            index += 1
        }
        return libraries
    }

    /// FFmpeg's release as the loaded libavutil names it (`av_version_info()`, e.g. `5.1.7-0+deb12u1`).
    /// - Parameter filters: also load libavfilter (``requireFilters()``), so that its version is known too.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/loadLibrary`` when FFmpeg cannot be loaded.
    static func release(filters: Bool) throws(FFmpegError) -> String {
        if filters { try requireFilters() } else { try require() }
        return String(cString: av_version_info())
    }
}
