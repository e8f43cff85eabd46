/// The outcome of preparing one file: where the attachment is, what was done, how long it took,
/// and the options a payload needs. On failure ``output`` is `nil` and ``error`` says why.
public struct PrepareReport: Sendable {
    /// Absolute path of the input.
    public var input: String
    /// Absolute path of the prepared attachment; `nil` when it could not be prepared.
    public var output: String?
    /// Every action, in order.
    public var actions: [PrepareAction] = []
    /// The input as probed.
    public var before: MediaInfo?
    /// The output as re-probed after writing.
    public var after: MediaInfo?
    /// JPEG/HEIC quality chosen by byte fitting.
    public var quality: Int?
    /// Total bitrate chosen for audio/video, bits per second.
    public var bitRate: Int?
    /// Encodes tried (1 = first guess fitted).
    public var attempts: Int = 0
    /// Wall time of the whole preparation, milliseconds.
    public var elapsedMilliseconds: Double = 0
    /// The time budget, when one was given, and whether the work finished inside it.
    public var deadline: Double?
    public var deadlineMet: Bool?
    /// Where a trimmed clip really starts and how long it is (a fast trim snaps to a keyframe).
    public var trimStart: Double?
    public var trimDuration: Double?
    /// The attachment options to send with the file.
    public var options: AttachmentOptions?
    /// Absolute path of the thumbnail written beside the output, when asked for.
    public var thumbnail: String?
    /// The stem the output was given and why, when it is not the one the input's name asked for
    /// (``WritePlan``: another input or output holds that name).
    package var outputName: PlannedOutput?
    /// Findings on the input that drove the work (warnings on the output are added).
    public var diagnostics: [Diagnostic] = []
    /// Details of what a step decided (e.g. "quality 78 after 3 attempts", "dropped every 2nd frame").
    public var notes: [String] = []
    public var error: PrepareError?

    /// A report of `input`; `error` set when it failed before any work (access refused).
    public init(input: String, error: PrepareError? = nil) {
        self.input = input
        self.error = error
    }

    /// Whether a valid attachment was produced.
    public var ok: Bool { output != nil && error == nil }

    /// The headline action: the last one that changed the bytes, else renamed/passthrough.
    public var action: PrepareAction? {
        actions.last(where: \.changesBytes) ?? actions.last
    }

    /// One JSON object, keys as documented in the README; `attachkitVersion` names the build that
    /// made it (``BuildInfo/version``).
    public var json: JSONValue {
        func brief(_ info: MediaInfo?) -> JSONValue? {
            guard let info else { return nil }
            var o = JSONObjectBuilder()
            o.set("kind", info.kind.rawValue)
            o.set("container", info.container.rawValue)
            o.set("codec", info.codec?.rawValue)
            o.set("audioCodec", info.audioCodec?.rawValue)
            o.set("width", info.width)
            o.set("height", info.height)
            o.set("frames", info.frames)
            o.set("duration", info.duration.map { ($0 * 1000).rounded() / 1000 })
            o.set("bytes", info.bytes)
            o.set("bitRate", info.bitRate)
            return o.value
        }
        var o = JSONObjectBuilder()
        o.set("input", input)
        o.set("output", output)
        o.set("ok", ok)
        o.set("action", action?.rawValue)
        o.set("actions", .array(actions.map { .string($0.rawValue) }))
        o.set("before", brief(before))
        o.set("after", brief(after))
        o.set("uti", after?.uniformType?.identifier)
        o.set("quality", quality)
        o.set("bitRate", bitRate)
        o.set("attempts", attempts)
        o.set("elapsedMs", (elapsedMilliseconds * 10).rounded() / 10)
        o.set("deadline", deadline)
        o.set("deadlineMet", deadlineMet)
        o.set("trimStart", trimStart.map { ($0 * 1000).rounded() / 1000 })
        o.set("trimDuration", trimDuration.map { ($0 * 1000).rounded() / 1000 })
        o.set("options", options?.json)
        o.set("thumbnail", thumbnail)
        o.set("outputName", outputName?.json)
        if !diagnostics.isEmpty { o.set("diagnostics", .array(diagnostics.map(\.json))) }
        if !notes.isEmpty { o.set("notes", .array(notes.map(JSONValue.string))) }
        o.set("error", error?.json)
        o.set("attachkitVersion", BuildInfo.version)
        return o.value
    }
}
