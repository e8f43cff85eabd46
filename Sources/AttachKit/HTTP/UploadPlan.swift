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
    let operation: ServiceRequest.Operation
    /// The upload's file name.
    let name: String
    /// The request's options, without `out`.
    let options: [(String, JSONValue)]

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
                if let cap = deadline { prepare.deadline = min(prepare.deadline ?? cap, cap) }
                (operation, options) = route == .attach && prepare.thumbnail ? try Self.thumbnailOnly(decoder, prepare) : (.prepare, prepare.requestOptions)
            case .validate:
                operation = .validate
                try decoder.refuseUnknownKeys(allowed: OptionTable.keys(for: .validate))
                let profile = try decoder.profile(default: standard)
                options = [("profile", profile.json), ("deep", .bool(try decoder.bool("deep")))]
            default:
                operation = .probe
                try decoder.refuseUnknownKeys(allowed: [])
                options = []
            }
        } catch {
            throw ServiceError(error)
        }
    }

    /// A URL-mode URL with `thumbnail` is the thumbnail alone (a poster without the movie): a
    /// `thumbnail` request with the thumbnail's options (``OptionTable``'s for `thumbnail`), no other.
    private static func thumbnailOnly(_ decoder: OptionsDecoder, _ prepare: PrepareOptions) throws(OptionsError) -> (ServiceRequest.Operation, [(String, JSONValue)]) {
        let keys = OptionTable.keys(for: .thumbnail).subtracting(["out"])
        try decoder.refuseUnknownKeys(allowed: keys.union(["thumbnail"]))
        return (.thumbnail, prepare.requestOptions.filter { keys.contains($0.0) })
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

    /// Runs the request on the upload in `folder` and answers: the `--json` object (probe,
    /// validate) or the prepared file (prepare), with the spool's paths left out of everything
    /// the client sees. `requestID` is the service request's `id` and the report's `requestId`.
    func run(in folder: String, server: HTTPServer, requestID: String) -> HTTPResponse {
        let out = folder + "/out"
        var pairs = options
        if operation == .prepare { pairs.append(("out", .string(out))) }
        if operation == .thumbnail { pairs.append(("out", .string(out + "/" + Preparer.stem(of: name) + ".thumbnail.jpg"))) }
        let line = JSONValue.object([("id", .string(requestID)), ("op", .string(operation.rawValue)), ("path", .string(folder + "/in/" + name)),
                                     ("options", .object(pairs))]).serialized
        let service = server.service
        let text = server.blocking { await service.respond(to: line) }
        // What the client sees names its files by name, never by their place in the spool.
        let shown = text.replacing(folder + "/in/", with: "").replacing(out + "/", with: "")
        guard let answer = try? JSONValue.parse(text), let visible = try? JSONValue.parse(shown) else {
            return .error(ServiceError(code: .processingFailed, message: "the service gave an answer that is not JSON"))
        }
        let report = visible["result"].map { JobWork.tagged($0, requestID: requestID) }
        guard answer["ok"]?.boolValue == true else {
            let header = report.map { [("AttachKit-Report", Base64URL.encode(Array($0.serialized.utf8)))] } ?? []
            return .error(JobWork.error(of: visible), report: report, headers: operation == .probe || operation == .validate ? [] : header)
        }
        guard operation == .prepare || operation == .thumbnail, let report else { return .json(200, report ?? .null) }
        return PreparedBody.response(answer: answer["result"] ?? .null, report: report, folder: folder)
    }
}
