/// The one codec between a ``ServiceCall`` and the text of a request line (``ServiceRequest``):
/// what crosses the boundary to a worker process, and what `serve` and `POST /v1/jobs` read.
/// Reading back what ``ServiceCall/request(progress:)`` writes gives an equal call.
extension ServiceCall {
    /// Options only a worker's parent may send (never a client): the output's `stem`, the files
    /// (``FileVersion/text``) already at its names that it `replaces` (the batch's earlier
    /// outputs), and whether to write `progress` lines before the answer.
    static let workerOnlyOptions: Set<String> = ["stem", "replaces", "progress"]

    /// The options each operation takes (``OptionTable``'s for the command of the same name).
    static func optionKeys(_ operation: ServiceRequest.Operation) -> Set<String> {
        switch operation {
        case .probe: return []
        case .validate: return OptionTable.keys(for: .validate)
        case .prepare: return OptionTable.keys(for: .prepare)
        case .thumbnail: return OptionTable.keys(for: .thumbnail)
        }
    }

    /// The call as a request: the operation, the path and the options under ``OptionTable``'s keys
    /// (a prepare's every option not at its default, its profile as an inline policy; `out`), plus
    /// the worker-only ones that are set. `progress` asks a worker for progress lines.
    package func request(progress: Bool = false) -> ServiceRequest {
        var options: [(String, JSONValue)]
        switch work {
        case .probe:
            options = []
        case .validate(let profile, let deep):
            options = [("profile", profile.json)] + (deep ? [("deep", .bool(true))] : [])
        case .prepare(let prepare):
            options = prepare.requestOptions + [("out", .string(prepare.outputFolder))]
            if let outputStem { options.append(("stem", .string(outputStem))) }
            if !replacing.isEmpty { options.append(("replaces", .array(replacing.sorted().map { .string($0.text) }))) }
            if progress { options.append(("progress", .bool(true))) }
        case .thumbnail(let output, let request):
            options = request.requestOptions + [("out", .string(output))]
        }
        return ServiceRequest(id: id, operation: operation, path: path, options: options)
    }

    /// Reads a request strictly: an option its operation does not take is refused, and every
    /// value is checked by ``OptionsDecoder``. A prepare's profile defaults to `defaultProfile`.
    /// - Parameter asWorker: whether the worker-only options are accepted (in `attachkit worker`).
    /// - Returns: the call, and whether the request asks for progress lines.
    /// - Throws: ``ServiceError`` `bad-options` naming the option that is wrong.
    package static func decode(_ request: ServiceRequest, defaultProfile: Profile,
                               asWorker: Bool = false) throws(ServiceError) -> (call: ServiceCall, progress: Bool) {
        let decoder = OptionsDecoder(JSONOptions(request.options))
        var call = ServiceCall(id: request.id, path: request.path, work: .probe)
        var progress = false
        do throws(OptionsError) {
            try decoder.refuseUnknownKeys(allowed: optionKeys(request.operation), unlisted: asWorker ? workerOnlyOptions : [])
            switch request.operation {
            case .probe:
                break
            case .validate:
                call.work = .validate(profile: try decoder.profile(default: defaultProfile), deep: try decoder.bool("deep"))
            case .prepare:
                call.work = .prepare(try decoder.prepareOptions(defaultProfile: defaultProfile))
                call.outputStem = try decoder.string("stem")
                call.replacing = try decoder.fileVersions("replaces")
                progress = try decoder.bool("progress")
            case .thumbnail:
                guard let out = try decoder.string("out") else { throw .missing(key: "out", expected: "the JPEG path to write") }
                call.work = .thumbnail(output: out, try decoder.thumbnailRequest())
            }
        } catch {
            throw ServiceError(error)
        }
        return (call, progress)
    }
}
