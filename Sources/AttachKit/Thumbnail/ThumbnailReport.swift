/// The outcome of rendering one thumbnail.
public struct ThumbnailReport: Sendable {
    public var input: String
    /// Absolute path of the JPEG written; `nil` on failure.
    public var output: String?
    public var width: Int?
    public var height: Int?
    /// The frame (animated image) or time in seconds (movie) shown.
    public var frame: Int?
    public var time: Double?
    /// The attachment options that show the same thumbnail on the device (clip and time/frame).
    public var options: AttachmentOptions?
    public var elapsedMilliseconds: Double = 0
    public var error: PrepareError?

    /// A report of `input`; `error` set when it failed before any work (access refused).
    public init(input: String, error: PrepareError? = nil) {
        self.input = input
        self.error = error
    }

    public var ok: Bool { output != nil && error == nil }

    public var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("input", input)
        o.set("output", output)
        o.set("ok", ok)
        o.set("width", width)
        o.set("height", height)
        o.set("frame", frame)
        o.set("time", time.map { ($0 * 1000).rounded() / 1000 })
        o.set("options", options?.json)
        o.set("elapsedMs", (elapsedMilliseconds * 10).rounded() / 10)
        o.set("error", error?.json)
        return o.value
    }
}
