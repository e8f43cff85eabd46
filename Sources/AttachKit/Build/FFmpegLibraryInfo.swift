/// One of FFmpeg's libraries as AttachKit opens it at run time (README, "How FFmpeg is loaded").
public struct FFmpegLibraryInfo: Sendable, Equatable {
    /// `libavformat`.
    public let name: String
    /// The soname opened, from the headers AttachKit was compiled against: `libavformat.so.59`.
    public let soname: String
    /// The Debian package that ships it: `libavformat59`.
    public let package: String
    /// Its version as the loaded library reports it (`59.27.100`); `nil` when it is not loaded.
    public let version: String?

    /// `{"name", "soname", "package", "version"}` (`version` left out when not loaded).
    public var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("name", name)
        o.set("soname", soname)
        o.set("package", package)
        o.set("version", version)
        return o.value
    }
}
