/// What a camera raw is besides its sensor data (``MediaInfo/cameraRaw``): who made it, the
/// sensor's size, and the embedded JPEG preview that AttachKit shows, checks and converts in its
/// place (libvips 8.14 here has no camera raw decoder). The raw's ``MediaInfo/width`` and
/// ``MediaInfo/height`` are the preview's, since that is the picture every verb works on.
public struct CameraRawInfo: Sendable, Equatable {
    /// IFD0's Make (`NIKON CORPORATION`, `SONY`...), `nil` when the file gives none.
    public var make: String?
    /// IFD0's Model, `nil` when the file gives none.
    public var model: String?
    /// The sensor data's size (the largest raw image's), `nil` when the header does not say.
    public var sensorWidth: Int?
    public var sensorHeight: Int?
    /// The embedded JPEG preview's coded size (its frame header), before orientation.
    public var previewWidth: Int
    public var previewHeight: Int
    /// The preview's bytes in the file.
    public var previewBytes: Int64
    /// Where the preview starts in the file.
    var previewOffset: Int64
    /// The raw's own orientation (IFD0's tag 0x0112), written into the preview in place of any
    /// the preview carries; `nil` when the raw has none (the preview's own then stands).
    var rawOrientation: Int?

    /// The fields for `probe`'s JSON (`cameraRaw`).
    var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("make", make)
        o.set("model", model)
        o.set("sensorWidth", sensorWidth)
        o.set("sensorHeight", sensorHeight)
        o.set("previewWidth", previewWidth)
        o.set("previewHeight", previewHeight)
        o.set("previewBytes", previewBytes)
        return .object(o.pairs)
    }
}
