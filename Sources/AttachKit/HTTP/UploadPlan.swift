/// What `POST /v1/prepare`, `/v1/probe` or `/v1/validate` asks for, read from the query string
/// before the body arrives (so a bad option costs no upload), and how it runs once the body is in
/// the spool: as a `serve` request through the service (and its worker processes).
///
/// The query names the library's option keys, as `serve` does (`maxBytes=5MB`, `maxEdge=1024`,
/// `thumbnail=1`), read by ``OptionsDecoder`` as command-line text; `out` is the server's to
/// choose. `profile` is a built-in name only (a request never makes the server read a policy
/// file; `POST /v1/jobs` takes an inline policy). `name` is the file name the media would have
/// (default `upload`): iOS reads the type from its extension, so `validate` checks it.
struct UploadPlan {
    /// The upload's file name.
    let name: String
    /// The work asked for; where its input and output lie in the spool is set by
    /// ``call(in:requestID:)``.
    let work: ServiceCall.Work

    var operation: ServiceRequest.Operation { ServiceCall(path: name, work: work).operation }

    /// The request's options as a request line writes them, without `out` (what URL mode's cache
    /// key and ETag hash).
    var options: [(String, JSONValue)] { ServiceCall(path: name, work: work).request().options.filter { $0.0 != "out" } }

    /// - Throws: ``ServiceError`` `bad-options` for an unknown or invalid option (the decoder's
    ///   message) or a key given twice, `malformed-request` for a `name` that is no plain file name.
    init(route: HTTPRoute, parameters: [(name: String, value: String?)], server: HTTPServer) throws(ServiceError) {
        try self.init(route: route, parameters: parameters, standard: server.service.profile, deadline: server.limits.deadline)
    }

    /// As a server whose profile for requests naming none is `standard`, and whose longest
    /// deadline is `deadline`, reads the request (``AttachURL`` checks what it signs this way).
    init(route: HTTPRoute, parameters: [(name: String, value: String?)], standard: Profile, deadline: Double?) throws(ServiceError) {
        var seen = Set<String>()
        for parameter in parameters where !seen.insert(parameter.name).inserted {
            throw ServiceError(code: .badOptions, message: "the query gives \(parameter.name.debugDescription) more than once; give each option once")
        }
        let named = parameters.first { $0.name == "name" }
        name = try Self.fileName(named.map { $0.value ?? "" } ?? "upload")
        let given = parameters.filter { $0.name != "name" }
        if let profile = given.first(where: { $0.name == "profile" })?.value, Profile.builtIn[profile] == nil {
            throw ServiceError(code: .badOptions, message: "profile must be \(Profile.builtIn.keys.sorted().joined(separator: " or ")) in a query string, not \(profile.debugDescription) (POST /v1/jobs takes an inline policy)")
        }
        let source = TextOptions(values: given.compactMap { p in p.value.map { (p.name, $0) } }, flags: given.filter { $0.value == nil }.map(\.name))
        let decoder = OptionsDecoder(source)
        do throws(OptionsError) {
            switch route {
            case .prepare, .attach:
                try decoder.refuseUnknownKeys(allowed: route == .attach ? OptionTable.keys(for: .sign) : OptionsDecoder.prepareKeys.subtracting(["out"]))
                var prepare = try decoder.prepareOptions(defaultProfile: standard, defaultOutputFolder: "-")
                prepare.capDeadline(at: deadline)
                work = route == .attach && prepare.thumbnail ? .thumbnail(output: "-", try Self.thumbnailOnly(decoder, prepare)) : .prepare(prepare)
            case .validate:
                try decoder.refuseUnknownKeys(allowed: OptionTable.keys(for: .validate))
                work = .validate(profile: try decoder.profile(default: standard), deep: try decoder.bool("deep"))
            default:
                try decoder.refuseUnknownKeys(allowed: [])
                work = .probe
            }
        } catch {
            throw ServiceError(error)
        }
    }

    /// A URL-mode URL with `thumbnail` is the thumbnail alone (a poster without the movie): a
    /// `thumbnail` request with the thumbnail's options (``OptionTable``'s for `thumbnail`), no other.
    private static func thumbnailOnly(_ decoder: OptionsDecoder, _ prepare: PrepareOptions) throws(OptionsError) -> ThumbnailRequest {
        try decoder.refuseUnknownKeys(allowed: OptionTable.keys(for: .thumbnail).subtracting(["out"]).union(["thumbnail"]))
        return prepare.thumbnailRequest
    }

    /// `name`: 1 to 200 characters of letters, digits, `.`, `_`, `-` and space, not starting with
    /// a dot (no path, nothing a header or a file system could misread).
    private static func fileName(_ text: String) throws(ServiceError) -> String {
        let allowed = text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._- ".unicodeScalars.contains($0)) }
        guard (1...200).contains(text.count), allowed, !text.hasPrefix(".") else {
            throw ServiceError(code: .malformedRequest, message: "name must be a plain file name (1 to 200 of A-Z a-z 0-9 . _ - and space, not starting with a dot), not \(text.debugDescription)")
        }
        return text
    }

    /// The call on the upload in the spool `folder` (`in/NAME`), writing into `out/`.
    /// `requestID` is its `id` and the report's `requestId`.
    func call(in folder: String, requestID: String) -> ServiceCall {
        let out = folder + "/out"
        var work = self.work
        switch work {
        case .prepare(var options):
            options.outputFolder = out
            work = .prepare(options)
        case .thumbnail(_, let request):
            work = .thumbnail(output: out + "/" + Preparer.stem(of: name) + ".thumbnail.jpg", request)
        case .probe, .validate:
            break
        }
        return ServiceCall(id: .string(requestID), path: folder + "/in/" + name, work: work)
    }

    /// Runs the request on the upload in `folder` and answers: the `--json` object (probe,
    /// validate) or the prepared file (prepare), with the spool's paths left out of everything
    /// the client sees. `requestID` is the call's `id` and the report's `requestId`.
    func run(in folder: String, server: HTTPServer, requestID: String) -> HTTPResponse {
        let call = call(in: folder, requestID: requestID)
        let service = server.service
        let answer = Blocking.wait { await service.perform(call) }
        // What the client sees names its files by name, never by their place in the spool.
        let shown = answer.removing([folder + "/in/", folder + "/out/"])
        let report = shown.report.map { JobWork.tagged($0, requestID: requestID) }
        if let error = shown.error {
            let header = report.map { [("AttachKit-Report", Base64URL.encode(Array($0.serialized.utf8)))] } ?? []
            return .error(error, report: report, headers: operation == .probe || operation == .validate ? [] : header)
        }
        guard operation == .prepare || operation == .thumbnail, let report else { return .json(200, report ?? .null) }
        return PreparedBody.response(output: answer.output, thumbnail: answer.thumbnail, report: report, folder: folder)
    }
}
