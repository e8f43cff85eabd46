/// What a flight's leader leaves for the identical requests that waited on it (``SingleFlight``).
package enum AttachShared: Sendable {
    /// The answer is in the cache.
    case cached(CachedAnswer)
    /// An error answer (its body in memory), the same for all.
    case failed(HTTPResponse)
    /// Nothing to share (the answer could not be stored): each does its own work.
    case alone
}

/// How a URL-mode request (``AttachRequest``) is answered.
///
/// Without a cache: the original is fetched into the request folder; when the client's
/// `If-None-Match` already names the answer's `ETag` it is 304 at once, else the original is
/// prepared as an upload (``UploadPlan/run(in:server:requestID:)``) and answered with `ETag`,
/// `Cache-Control` and `Last-Modified`.
///
/// The fetch holds no work slot (the request holds an upload slot while it fetches or waits on a
/// flight): a work slot is taken only to prepare (``takeSlot``), so slow origins cannot keep other
/// work from the slots.
///
/// A cached entry is served only while the origin policy allows how it was fetched (its URLs
/// under the origins, and private addresses allowed when it came from one: ``usable(_:_:)``), with
/// its report's `requestId` set to the request's own.
///
/// With a cache (``ResultCache``): a fresh entry (confirmed within `--cache-max-age`) is served
/// without a work slot (``freshAnswer(_:server:requestID:)``). Otherwise identical requests share one flight:
/// its leader revalidates a stale entry with the origin (`If-None-Match`/`If-Modified-Since`
/// with the origin's validators; a `304` or the same identity confirms it; an origin that is
/// down, `origin-failed`, leaves it served as it is), or fetches, prepares and stores; those that
/// waited are served the stored answer.
struct AttachWork {
    /// How long the leader's phases took, sent as `Server-Timing` (`fetch`, `prepare`, `store`,
    /// milliseconds) on the answer that did them.
    final class Phases: @unchecked Sendable {
        var entries: [(name: String, seconds: Double)] = []

        func time<Value>(_ name: String, _ work: () -> Value) -> Value {
            let started = HTTPServer.now
            defer { entries.append((name, HTTPServer.now - started)) }
            return work()
        }

        var header: [(name: String, value: String)] {
            entries.isEmpty ? [] : [("Server-Timing", entries.map { "\($0.name);dur=\((($0.seconds * 10_000).rounded() / 10))" }.joined(separator: ", "))]
        }
    }

    let phases = Phases()
    let request: AttachRequest
    let mode: URLMode
    let server: HTTPServer
    let folder: String
    let requestID: String
    /// Takes the work slot the preparation runs in (once; the exchange gives it back): `nil`, or
    /// why none could be taken (429 `busy`, 503 while draining).
    let takeSlot: () -> ServiceError?

    /// The fresh cached answer to `request`, or `nil`.
    static func freshAnswer(_ request: AttachRequest, server: HTTPServer, requestID: String) -> HTTPResponse? {
        guard let mode = server.urlMode, let cache = mode.cache, let entry = cache.lookup(request.cacheKey), usable(entry, mode),
              entry.isFresh(maxAge: mode.maxAge), let response = served(entry, mode, requestID: requestID) else { return nil }
        mode.metrics.hit()
        return request.conditions.answer(response)
    }

    /// Whether `entry` may be served under the origin policy in force now.
    static func usable(_ entry: CachedAnswer, _ mode: URLMode) -> Bool {
        mode.fetch.allowsAgain(hops: entry.hops, reachedPrivate: entry.reachedPrivate)
    }

    /// The answer (a work slot is taken only to prepare).
    func answer() -> HTTPResponse {
        guard let cache = mode.cache else { return uncached() }
        var own: HTTPResponse?
        let (shared, leader) = mode.flight.run(request.cacheKey) {
            let (shared, response) = lead(cache)
            own = response
            return shared
        }
        switch shared {
        case .cached(let entry):
            if !leader { mode.metrics.hit() }
            return served(entry).map { request.conditions.answer($0.adding(leader ? phases.header : [])) } ?? uncached()
        case .failed(let response):
            return response
        case .alone:
            return own.map(request.conditions.answer) ?? uncached()
        }
    }

    /// The leader's work: what to share, and its own answer when nothing could be.
    private func lead(_ cache: ResultCache) -> (AttachShared, HTTPResponse?) {
        // An entry the policy no longer allows is left alone (another server on the same folder may
        // allow it): fetched as if it were not there, which the policy then refuses.
        guard let entry = cache.lookup(request.cacheKey), Self.usable(entry, mode) else {
            mode.metrics.miss()
            return fetchAndPrepare(cache, conditional: [])
        }
        if entry.isFresh(maxAge: mode.maxAge) {
            mode.metrics.hit()
            return (.cached(entry), nil)
        }
        switch fetch(conditional: entry.validators) {
        case .failure(let failure) where failure.error.code == .originFailed:
            mode.metrics.hit()   // the origin is down: the stale answer is served
            return (.cached(entry), nil)
        case .failure(let failure):
            return (.failed(failure.response), nil)
        case .success(let answer) where answer.notModified || identity(answer) == entry.identity:
            mode.metrics.hit()
            return (.cached(cache.confirm(entry)), nil)
        case .success(let answer):
            mode.metrics.miss()
            return prepareAndStore(cache, answer)
        }
    }

    private func fetchAndPrepare(_ cache: ResultCache, conditional: [String]) -> (AttachShared, HTTPResponse?) {
        switch fetch(conditional: conditional) {
        case .failure(let failure): return (.failed(failure.response), nil)
        case .success(let answer): return prepareAndStore(cache, answer)
        }
    }

    private func prepareAndStore(_ cache: ResultCache, _ answer: OriginFetch.Answer) -> (AttachShared, HTTPResponse?) {
        let identity = identity(answer)
        let response = phases.time("prepare") { prepare(answer, identity: identity) }
        guard response.status == 200 else { return (.failed(response), nil) }
        var validators: [String] = []
        if let etag = answer.etag { validators.append("If-None-Match: \(etag)") }
        if let modified = answer.lastModified { validators.append("If-Modified-Since: \(modified)") }
        let stored = phases.time("store") { cache.store(request.cacheKey, response: response, identity: identity, validators: validators, origin: answer) }
        return stored.map { (.cached($0), nil) } ?? (.alone, response.adding(("Cache-Control", cacheControl)))
    }

    /// Without a cache: fetch, 304 when the client holds the answer already, else prepare.
    private func uncached() -> HTTPResponse {
        switch fetch(conditional: []) {
        case .failure(let failure):
            return failure.response
        case .success(let answer):
            let identity = identity(answer)
            let etag = identity.etag(options: request.plan.options)
            if request.conditions.match(etag: etag, lastModified: answer.lastModified) {
                return HTTPResponse(status: 304, headers: [("ETag", etag), ("Cache-Control", cacheControl)] + (answer.lastModified.map { [("Last-Modified", $0)] } ?? []),
                                    body: .bytes([]))
            }
            return request.conditions.answer(prepare(answer, identity: identity).adding(("Cache-Control", cacheControl)))
        }
    }

    /// Prepares the fetched original as an upload; a success gets `ETag` and `Last-Modified`.
    private func prepare(_ answer: OriginFetch.Answer, identity: AttachIdentity) -> HTTPResponse {
        if let refusal = takeSlot() { return .error(refusal) }
        let response = request.plan.run(in: folder, server: server, requestID: requestID)
        guard response.status == 200 else { return response }
        var headers = [("ETag", identity.etag(options: request.plan.options))]
        if let modified = answer.lastModified { headers.append(("Last-Modified", modified)) }
        return response.adding(headers)
    }

    /// Fetches the original into the request folder (`in/NAME`), counted in the metrics.
    private func fetch(conditional: [String]) -> Result<OriginFetch.Answer, OriginError> {
        let started = HTTPServer.now
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(originalPath, [.writeOnly, .create, .truncate, .noFollow], mode: 0o600)
        } catch {
            return .failure(OriginError(.writeFailed, "cannot create the original in the spool: \(error.description)"))
        }
        let fd = file.rawValue
        let result = phases.time("fetch") { () -> Result<OriginFetch.Answer, OriginError> in
            do throws(OriginError) {
                return .success(try mode.fetch.fetch(request.source, conditional: conditional) { HTTPSpool.write($0, to: fd) })
            } catch {
                return .failure(error)
            }
        }
        let outcome: String
        switch result {
        case .success(let answer): outcome = answer.notModified ? "not-modified" : "ok"
        case .failure(let error): outcome = error.outcome
        }
        mode.metrics.fetched(outcome, seconds: HTTPServer.now - started)
        return result
    }

    private var originalPath: String { folder + "/in/" + request.plan.name }

    private func identity(_ answer: OriginFetch.Answer) -> AttachIdentity { AttachIdentity(answer: answer, file: originalPath) }

    private var cacheControl: String { "public, max-age=\(mode.maxAge)" }

    private func served(_ entry: CachedAnswer) -> HTTPResponse? { Self.served(entry, mode, requestID: requestID) }

    /// A cached entry's answer, with `Cache-Control` as configured now and its report's
    /// `requestId` the request's own (not that of the request that prepared it).
    private static func served(_ entry: CachedAnswer, _ mode: URLMode, requestID: String) -> HTTPResponse? {
        guard var response = entry.response() else { return nil }
        response.headers = response.headers.map { header in
            guard header.name.lowercased() == "attachkit-report", let bytes = Base64URL.decode(header.value),
                  let report = try? JSONValue.parse(String(decoding: bytes, as: UTF8.self)) else { return header }
            return (header.name, Base64URL.encode(Array(JobWork.tagged(report, requestID: requestID).serialized.utf8)))
        }
        return response.adding(("Cache-Control", "public, max-age=\(mode.maxAge)"))
    }
}

extension HTTPResponse {
    /// The answer with `headers` added.
    func adding(_ headers: (name: String, value: String)...) -> HTTPResponse { adding(headers) }

    func adding(_ headers: [(name: String, value: String)]) -> HTTPResponse {
        var copy = self
        copy.headers += headers
        return copy
    }
}
