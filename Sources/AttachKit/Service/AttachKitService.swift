/// AttachKit as a long-lived service: probe, validate, prepare and thumbnail as async functions
/// that are safe to call concurrently, plus the JSON Lines protocol `attachkit serve` speaks.
///
/// Every path is confined to the allowed roots (the access scopes); anything outside is refused
/// with `access-denied`. At most `jobs` operations run at once on the service's own threads, so a
/// flood of requests queues instead of oversubscribing the machine.
public final class AttachKitService: Sendable {
    /// The ledger granting every read and write; its report shows any handle leak.
    public let ledger: AccessLedger
    /// The profile used when a request names none. Default ``Profile/standard``.
    public let profile: Profile
    public let jobs: Int
    private let pool: WorkerPool
    private let safety: SafetyLimits
    private let prober: Prober
    private let threadsPerJob: Int

    /// - Parameters:
    ///   - roots: folders requests may read from and write into.
    ///   - jobs: operations at once (default: the number of cores); libvips and FFmpeg get
    ///     cores ÷ jobs threads each.
    /// - Throws: ``AccessError/notFound(path:)`` when a root does not exist.
    public init(allow roots: [String], profile: Profile = .standard, jobs: Int = BatchOptions.coreCount,
                safety: SafetyLimits = SafetyLimits(), prober: Prober = Prober()) throws(AccessError) {
        var scopes: [AccessScope] = []
        for root in roots { scopes.append(try AccessScope.folder(root)) }
        self.ledger = AccessLedger(scopes: scopes)
        self.profile = profile
        self.jobs = max(1, jobs)
        self.pool = WorkerPool(threads: self.jobs)
        self.safety = safety
        self.prober = prober
        self.threadsPerJob = max(1, BatchOptions.coreCount / self.jobs)
        VipsRuntime.setThreads(threadsPerJob)
    }

    // MARK: Swift API

    /// Probes a file inside the allowed roots.
    /// - Throws: ``ServiceError`` with the probe's code (`not-found`, `access-denied`, `corrupt`...).
    public func probe(path: String) async throws(ServiceError) -> MediaInfo {
        let (ledger, prober) = (self.ledger, self.prober)
        let result: Result<MediaInfo, ServiceError> = await pool.run {
            do throws(AccessError) {
                let handle = try ledger.acquire(path)
                let outcome: Result<MediaInfo, ServiceError>
                do throws(ProbeError) { outcome = .success(try prober.probe(handle)) } catch { outcome = .failure(ServiceError(code: error.code, message: error.message)) }
                handle.release()
                return outcome
            } catch {
                return .failure(ServiceError(code: error.code, message: error.description))
            }
        }
        return try result.get()
    }

    /// Validates a file against `profile` (default: the service's).
    public func validate(path: String, profile: Profile? = nil, deep: Bool = false) async throws(ServiceError) -> ValidationReport {
        let validator = Validator(profile: profile ?? self.profile, prober: prober, deep: deep, safety: safety)
        let ledger = self.ledger
        let result: Result<ValidationReport, ServiceError> = await pool.run {
            do throws(AccessError) {
                let handle = try ledger.acquire(path)
                let report = validator.validate(handle)
                handle.release()
                return .success(report)
            } catch {
                return .failure(ServiceError(code: error.code, message: error.description))
            }
        }
        return try result.get()
    }

    /// Prepares a file; `options.outputFolder` must be inside the allowed roots. Failures to fit
    /// are in the report (``PrepareReport/error``), not thrown.
    /// - Throws: ``ServiceError`` only when the input cannot be accessed.
    public func prepare(path: String, options: PrepareOptions, outputStem: String? = nil) async throws(ServiceError) -> PrepareReport {
        var options = options
        options.threads = options.threads ?? threadsPerJob
        let preparer = Preparer(options: options, safety: safety, prober: prober)
        let ledger = self.ledger
        let result: Result<PrepareReport, ServiceError> = await pool.run {
            do throws(AccessError) {
                let handle = try ledger.acquire(path)
                let report = preparer.prepare(handle, ledger: ledger, outputStem: outputStem)
                handle.release()
                return .success(report)
            } catch {
                return .failure(ServiceError(code: error.code, message: error.description))
            }
        }
        return try result.get()
    }

    /// Renders a JPEG thumbnail to `output` (inside the allowed roots).
    public func thumbnail(path: String, output: String, request: ThumbnailRequest = ThumbnailRequest()) async throws(ServiceError) -> ThumbnailReport {
        let thumbnailer = Thumbnailer(safety: safety, prober: prober)
        let ledger = self.ledger
        let result: Result<ThumbnailReport, ServiceError> = await pool.run {
            do throws(AccessError) {
                let handle = try ledger.acquire(path)
                let report = thumbnailer.thumbnail(handle, to: output, request: request, ledger: ledger)
                handle.release()
                return .success(report)
            } catch {
                return .failure(ServiceError(code: error.code, message: error.description))
            }
        }
        return try result.get()
    }

    // MARK: JSON Lines protocol

    /// Answers one request line with exactly one response line (no trailing newline):
    /// `{"id", "ok": true, "result": {...}}` or `{"id", "ok": false, "error": {"code", "message"}}`
    /// (a failed `prepare`/`thumbnail` also carries its report as `result`). Never throws.
    public func respond(to line: String) async -> String {
        let request: ServiceRequest
        do {
            request = try ServiceRequest.parse(line)
        } catch {
            return Self.response(id: error.id, result: nil, error: error.error)
        }
        return await respond(to: request)
    }

    /// Answers a parsed request (see ``respond(to:)-(String)``).
    public func respond(to request: ServiceRequest) async -> String {
        do throws(ServiceError) {
            switch request.operation {
            case .probe:
                _ = try ServiceOptions(request.options, allowed: [])
                let info = try await probe(path: request.path)
                return Self.response(id: request.id, result: info.json, error: nil)
            case .validate:
                let options = try ServiceOptions(request.options, allowed: ["profile", "deep"])
                let report = try await validate(path: request.path, profile: try options.profile(default: profile), deep: try options.bool("deep"))
                return Self.response(id: request.id, result: report.json, error: nil)
            case .prepare:
                let options = try ServiceOptions(request.options, allowed: [
                    "out", "profile", "maxBytes", "maxEdge", "maxFrames", "maxDuration", "start", "deadline", "trim",
                    "thumbnail", "size", "clip", "frame", "at", "keepMetadata", "qualityFloor",
                ])
                let report = try await prepare(path: request.path, options: try prepareOptions(options))
                return Self.response(id: request.id, result: report.json,
                                     error: report.error.map { ServiceError(code: $0.code, message: $0.message) })
            case .thumbnail:
                let options = try ServiceOptions(request.options, allowed: ["out", "size", "clip", "frame", "at"])
                guard let out = try options.string("out") else { throw options.fail("out", "the JPEG path to write") }
                let report = try await thumbnail(path: request.path, output: out, request: try options.thumbnailRequest())
                return Self.response(id: request.id, result: report.json,
                                     error: report.error.map { ServiceError(code: $0.code, message: $0.message) })
            }
        } catch {
            return Self.response(id: request.id, result: nil, error: error)
        }
    }

    private func prepareOptions(_ options: ServiceOptions) throws(ServiceError) -> PrepareOptions {
        guard let out = try options.string("out") else { throw options.fail("out", "the output folder (inside an allowed root)") }
        var trim = TrimMode.fast
        if let text = try options.string("trim") {
            guard let mode = TrimMode(rawValue: text) else { throw options.fail("trim", "\"fast\" or \"exact\"") }
            trim = mode
        }
        return PrepareOptions(
            profile: try options.profile(default: profile), outputFolder: out,
            maxBytes: try options.value(OptionLimits.maxBytes), maxEdge: try options.value(OptionLimits.maxEdge),
            maxFrames: try options.value(OptionLimits.maxFrames), maxDuration: try options.value(OptionLimits.maxDuration),
            start: try options.value(OptionLimits.start) ?? 0, deadline: try options.value(OptionLimits.deadline),
            trim: trim, thumbnail: try options.bool("thumbnail"),
            thumbnailRequest: try options.thumbnailRequest(), keepMetadata: try options.bool("keepMetadata"),
            qualityFloor: try options.value(OptionLimits.qualityFloor) ?? 50)
    }

    static func response(id: JSONValue, result: JSONValue?, error: ServiceError?) -> String {
        var pairs: [(String, JSONValue)] = [("id", id), ("ok", .bool(error == nil))]
        if let result { pairs.append(("result", result)) }
        if let error { pairs.append(("error", error.json)) }
        return JSONValue.object(pairs).serialized
    }
}
