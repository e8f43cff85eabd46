/// One piece of service work with its options already read: what every front end builds
/// (`POST /v1/prepare` from its query string, `POST /v1/jobs` and `serve` from a request line, a
/// batch from its run's options) and what ``AttachKitService/perform(_:progress:)`` runs, in this
/// process or in a worker process. It becomes text in one place only, the worker boundary (and
/// the `serve` protocol, which is the same text): ``ServiceCall/request(progress:)`` writes it as
/// a ``ServiceRequest``, ``ServiceCall/init(_:defaultProfile:asWorker:)`` reads one back.
public struct ServiceCall: Sendable {
    /// What to do with the file at ``path``, with its options.
    public enum Work: Sendable {
        case probe
        /// Validates against `profile`; `deep` adds the full decode (`--deep`).
        case validate(profile: Profile, deep: Bool)
        /// Prepares into `options.outputFolder`.
        case prepare(PrepareOptions)
        /// Renders a JPEG thumbnail to `output`.
        case thumbnail(output: String, ThumbnailRequest)
    }

    /// Echoed in the answer as it was given (any JSON value; `null` when none).
    public var id: JSONValue
    /// The input file.
    public var path: String
    public var work: Work
    /// A prepare's output stem (default: the input's) and the files already at its names that it
    /// may replace: a batch's requests to its workers only (the input's earlier outputs).
    var outputStem: String?
    var replacing: Set<FileVersion> = []

    package init(id: JSONValue = .null, path: String, work: Work) {
        self.id = id
        self.path = path
        self.work = work
    }

    public static func probe(_ path: String, id: JSONValue = .null) -> ServiceCall {
        ServiceCall(id: id, path: path, work: .probe)
    }

    public static func validate(_ path: String, profile: Profile, deep: Bool = false, id: JSONValue = .null) -> ServiceCall {
        ServiceCall(id: id, path: path, work: .validate(profile: profile, deep: deep))
    }

    public static func prepare(_ path: String, options: PrepareOptions, id: JSONValue = .null) -> ServiceCall {
        ServiceCall(id: id, path: path, work: .prepare(options))
    }

    public static func thumbnail(_ path: String, output: String, request: ThumbnailRequest = ThumbnailRequest(),
                                 id: JSONValue = .null) -> ServiceCall {
        ServiceCall(id: id, path: path, work: .thumbnail(output: output, request))
    }

    public var operation: ServiceRequest.Operation {
        switch work {
        case .probe: return .probe
        case .validate: return .validate
        case .prepare: return .prepare
        case .thumbnail: return .thumbnail
        }
    }

    /// The folder the work writes into (a prepare's output folder, the folder of a thumbnail);
    /// `nil` for probe and validate. Where a dead worker's temporaries are looked for.
    public var outputFolder: String? {
        switch work {
        case .prepare(let options): return options.outputFolder
        case .thumbnail(let output, _): return PathResolver.directory(output)
        case .probe, .validate: return nil
        }
    }

    /// The file the work writes (a thumbnail's JPEG), or the folder it writes into (a prepare's).
    var writes: String? {
        switch work {
        case .prepare(let options): return options.outputFolder
        case .thumbnail(let output, _): return output
        case .probe, .validate: return nil
        }
    }

    /// The call with a prepare's ``PrepareOptions/deadline`` at most `cap` seconds (a server's
    /// `--deadline`); other work unchanged.
    func capping(deadline cap: Double?) -> ServiceCall {
        guard case .prepare(var options) = work else { return self }
        options.capDeadline(at: cap)
        var capped = self
        capped.work = .prepare(options)
        return capped
    }
}
