import Synchronization
/// One request of `attachkit http`, from its head to its end, as the daemon drives it:
/// ``early`` (an answer decided from the head alone: a refusal, or a `GET`), else
/// ``receive(_:)`` for each piece of the body and ``finish()`` for the answer; ``complete(_:)``
/// once, however it ended (answered, or the client went away). Used by one connection thread.
///
/// While its body arrives a request holds an upload slot (``HTTPServer/uploads``), never a work
/// slot: it queues for a work slot only once the body is in (429 `busy` when none is left), so
/// slow uploads cannot keep whole requests from being worked on. A URL-mode request holds its
/// upload slot while the original comes from the origin (or while it waits on the flight fetching
/// it), and takes a work slot only to prepare (``AttachWork``). A media body goes straight to a
/// file in a request folder of the spool, never held whole in memory; the request folder goes
/// when the answer's file is open, and at the latest in ``complete(_:)``.
///
/// Every answer says `Connection: close`: the connection ends with it, so no second request can
/// follow on it unseen by ``RequestHead``.
package final class HTTPExchange: @unchecked Sendable {
    private let server: HTTPServer
    private let client: String
    private let started = HTTPServer.now
    private var route: HTTPRoute?
    private var plan: UploadPlan?
    private var attach: AttachRequest?
    private var maxBody: Int64 = 0
    private var holdsSlot = false
    private var holdsRun = false
    private var holdsUpload = false
    private var folder: String?
    private var upload: Int32 = -1
    private var received: Int64 = 0
    private var overLimit = false
    private var writeError: Int32 = 0
    private var jsonBody: [UInt8] = []
    private var answered: (status: Int, code: ErrorCode?, bytes: Int64)?
    private var completed = false
    /// The answer is made (counted once in ``HTTPServer/answerMade()``).
    private let answerCounted = Atomic<Bool>(false)
    /// Where the body's reading stands: the one state ``cutOff()`` (another thread) and the
    /// connection's thread agree through.
    private let phase = Locked<Phase>(.receiving)

    private enum Phase: Sendable, Equatable {
        /// The body is arriving (or there is none and no answer yet).
        case receiving
        /// The body is in: ``finish()`` makes the answer.
        case answering
        /// Answered 503 by ``cutOff()`` while the body was arriving; whether the answer was sent.
        case cutOff(sent: Bool)
    }

    /// The request's id: the client's `X-Request-Id` when sane, else 32 random hex digits. Echoed
    /// in the answer, sent to the worker as the request's `id`, logged (``AccessLog``).
    package let requestID: String
    /// The method and the path without its query, a URL-mode signature replaced by `-`
    /// (``AttachPath/redacted(_:)``), for the access log (`-` for a refused head).
    private let method: String
    private let path: String

    /// The answer decided from the head alone; `nil` when the body is to be read.
    package private(set) var early: HTTPResponse?

    /// - Parameters:
    ///   - head: the request's head, or why ``RequestHead`` refused it (answered with that error).
    ///   - client: the client's address.
    init(server: HTTPServer, head: Result<RequestHead, ServiceError>, client: String) {
        self.server = server
        self.client = client
        let read = try? head.get()
        requestID = read?.requestID ?? Self.newRequestID()
        method = read?.method ?? "-"
        path = read.map { AttachPath.redacted(String($0.target.prefix { $0 != "?" })) } ?? "-"
        switch head {
        case .success(let head): early = decide(head).map(note)
        case .failure(let error): early = note(.error(error))
        }
    }

    /// The endpoint, for logs and metrics (`unknown` when none matched).
    package var operation: String { route?.rawValue ?? "unknown" }

    private func decide(_ head: RequestHead) -> HTTPResponse? {
        let method = head.method
        let parsed: RequestTarget
        do throws(ServiceError) { parsed = try RequestTarget.parse(head.target) } catch { return .error(error) }
        guard let route = HTTPRoute(path: parsed.path) else {
            return .error(ServiceError(code: .notFound, message: "no endpoint \(parsed.path.debugDescription) (POST /v1/prepare, /v1/probe, /v1/validate, /v1/jobs; GET /healthz, /readyz, /metrics)"))
        }
        self.route = route
        let verb = method == "HEAD" ? "GET" : method
        guard verb == route.method else {
            let methods = route.method == "GET" ? "GET or HEAD" : route.method
            let shown = route == .attach ? AttachPath.prefix + "..." : parsed.path
            return .error(ServiceError(code: .malformedRequest, message: "\(shown) takes \(methods), not \(String(method.prefix(20)))"),
                          status: 405, headers: [("Allow", route.method == "GET" ? "GET, HEAD" : route.method)])
        }
        guard route.isWork else { return server.answerProbe(route) }
        guard !server.isDraining else { return .error(ServiceError(code: .unavailable, message: "shutting down: no new work is taken")) }
        do throws(ServiceError) {
            if route == .attach {
                guard !head.framing.hasBody else { throw ServiceError(code: .malformedRequest, message: "a URL-mode GET takes no body") }
                attach = try AttachRequest(target: parsed, head: head, server: server)
            } else if route.takesMedia {
                plan = try UploadPlan(route: route, parameters: parsed.parameters, server: server)
            } else if let first = parsed.parameters.first {
                throw ServiceError(code: .badOptions, message: "/v1/jobs takes no query parameters (\(first.name.debugDescription)); options go in the body")
            }
        } catch {
            return .error(error)
        }
        maxBody = route.takesMedia ? server.limits.maxBodyBytes : Int64(ServiceRequest.maxLineBytes)
        if let length = head.framing.declaredLength, length > maxBody { return .error(tooLarge(length)) }
        guard server.hasWorkRoom else { return .error(workSlotsTaken()) }
        // A URL-mode request's body comes from the origin: it takes an upload slot (in
        // ``finish()``) only when it must fetch, past a fresh cached answer, and holds it while
        // it fetches (or waits on the flight fetching it); a work slot only to prepare.
        if head.framing.hasBody {
            if let refusal = server.uploads.take(client) { return .error(uploadsTaken(refusal)) }
            holdsUpload = true
        }
        guard let plan else { return nil }
        guard let folder = server.spool.makeRequestFolder() else {
            return .error(ServiceError(code: .unavailable, message: "the spool \(server.spool.root) refuses writes"))
        }
        self.folder = folder
        do { upload = try FileDescriptor.open(folder + "/in/" + plan.name, [.writeOnly, .create, .exclusive, .noFollow], mode: 0o600).release() } catch {
            return .error(ServiceError(code: .writeFailed, message: "cannot create the upload in the spool: \(error)"))
        }
        return nil
    }

    /// Takes the next piece of the body: written to the upload (media), kept (a job's JSON), or
    /// discarded once the body is over the limit.
    package func receive(_ bytes: UnsafeRawBufferPointer) {
        received += Int64(bytes.count)
        guard !overLimit, writeError == 0, phase.withLock({ $0 == .receiving }) else { return }
        guard received <= maxBody else {
            overLimit = true
            closeUpload()
            jsonBody = []
            return
        }
        guard plan != nil else { jsonBody.append(contentsOf: bytes); return }
        writeError = HTTPSpool.write(bytes, to: upload)
    }

    /// The answer, once the whole body has arrived: the upload slot is given back, a work slot
    /// taken (429 `busy` when every one is taken), and the work done here (this thread waits).
    /// The work slot and the spool folder are given back as soon as the answer is made (an
    /// answer's file stays open), not when the client has read it. `nil` when ``cutOff()``
    /// answered the request already: nothing more is sent, the connection is closed.
    package func finish() -> HTTPResponse? {
        let proceed = phase.withLock { phase in
            guard phase == .receiving else { return false }
            phase = .answering
            return true
        }
        guard proceed else { return nil }
        closeUpload()
        if attach == nil { releaseUpload() }
        defer { releaseResources() }
        if overLimit { return note(.error(tooLarge(received))) }
        if writeError != 0 {
            return note(.error(ServiceError(code: .writeFailed, message: "cannot write the upload into the spool: \(SystemError(code: writeError))")))
        }
        if let attach, let mode = server.urlMode {
            // A fresh answer of URL mode's cache is a file to send: no job is taken for it.
            if let cached = AttachWork.freshAnswer(attach, server: server, requestID: requestID) { return note(cached) }
            if let refusal = server.uploads.take(client) { return note(.error(uploadsTaken(refusal))) }
            holdsUpload = true
            guard let made = server.spool.makeRequestFolder() else {
                return note(.error(ServiceError(code: .unavailable, message: "the spool \(server.spool.root) refuses writes")))
            }
            folder = made
            let work = AttachWork(request: attach, mode: mode, server: server, folder: made, requestID: requestID) { [self] in takeWorkSlot() }
            return note(server.abortedAnswer(for: work.answer()))
        }
        if let refusal = takeWorkSlot() { return note(.error(refusal)) }
        if let plan, let folder { return note(server.abortedAnswer(for: plan.run(in: folder, server: server, requestID: requestID))) }
        return note(server.abortedAnswer(for: JobWork.run(body: jsonBody, server: server, requestID: requestID)))
    }

    /// The request has ended (answered, or the client went away before its answer): what it
    /// held is given back, the metrics count it (an answer made but not `delivered` counts as
    /// the ending, never as its status). Idempotent.
    package func complete(_ ending: HTTPEnding) {
        guard !completed else { return }
        completed = true
        releaseResources()
        let (answered, cut) = phase.withLock { (self.answered, $0) }
        let answer = answered ?? (status: 499, code: nil, bytes: 0)
        var how = ending == .delivered && answered == nil ? .clientGone : ending
        if case .cutOff(let sent) = cut { how = sent ? .delivered : .clientGone }
        let seconds = HTTPServer.now - started
        let sent = how == .delivered ? answer.bytes : 0
        server.metrics.record(op: operation, status: answer.status, code: answer.code, ending: how, seconds: seconds,
                              received: received, sent: sent)
        if server.accessLog.isOn {
            var entry: [(String, JSONValue)] = [("time", .string(AccessLog.timestamp(AccessLog.now))), ("requestId", .string(requestID)),
                                                ("method", .string(method)), ("path", .string(path)),
                                                ("status", .number(Double(how.status ?? answer.status)))]
            if let code = answer.code { entry.append(("code", .string(code.rawValue))) }
            entry += [("bytesIn", .number(Double(received))), ("bytesOut", .number(Double(sent))),
                      ("durationMs", .number((seconds * 1000 * 10).rounded() / 10)),
                      ("outcome", .string(how == .delivered ? answer.code?.rawValue ?? "ok" : how.rawValue)), ("client", .string(client))]
            server.accessLog.write(.object(entry))
        }
        server.ended(answered: answerCounted.load(ordering: .acquiring))
    }

    /// Answers a request whose body is still arriving with 503 `unavailable` (`Retry-After`), for
    /// the caller to write on the connection itself (libmicrohttpd cannot queue an answer in the
    /// middle of a body): what a drain does when its time is up, so an upload still on its way
    /// gets an answer too. From then on the rest of the body is dropped and ``finish()`` answers
    /// nothing. `nil` when the body is in already (its answer is on its way) or there is none.
    /// - Parameter sent: told afterwards, through ``cutOffSent(_:)``.
    package func cutOff() -> HTTPResponse? {
        guard early == nil else { return nil }
        return phase.withLock { phase in
            guard phase == .receiving else { return nil }
            phase = .cutOff(sent: false)
            return note(.error(ServiceError(code: .unavailable, message: "shutting down: the drain ran out while this request's body was arriving (--drain); send it again")))
        }
    }

    /// Whether the answer of ``cutOff()`` was written whole (the ending counted).
    package func cutOffSent(_ sent: Bool) {
        phase.withLock { $0 = .cutOff(sent: sent) }
    }

    /// Every answer passes here: counted for the metrics, and told to close the connection.
    private func note(_ response: HTTPResponse) -> HTTPResponse {
        answered = (response.status, response.errorCode, response.bodyBytes)
        if !answerCounted.exchange(true, ordering: .acquiringAndReleasing) { server.answerMade() }
        var closing = response
        // URL mode's answers travel through caches: an error is never kept.
        if route == .attach, response.status >= 400 {
            closing.headers.removeAll { $0.name.lowercased() == "cache-control" }
            closing.headers.append(("Cache-Control", "no-store"))
        }
        closing.headers.append(("X-Request-Id", requestID))
        closing.headers.append(("Connection", "close"))
        return closing
    }

    /// Gives the upload slot back and takes a work slot, then waits in the queue for a job (once):
    /// `nil`, or why not (429 `busy`, 503 when the drain closed the queue).
    private func takeWorkSlot() -> ServiceError? {
        releaseUpload()
        guard !holdsSlot else { return nil }
        guard server.admit() else { return workSlotsTaken() }
        holdsSlot = true
        guard server.startRunning() else { return server.queueClosedError }
        holdsRun = true
        return nil
    }

    /// Closes the upload, removes the request folder, frees the upload and work slots; once.
    private func releaseResources() {
        closeUpload()
        releaseUpload()
        if let folder { HTTPSpool.remove(folder) }
        folder = nil
        if holdsRun { server.stopRunning() }
        holdsRun = false
        if holdsSlot { server.release() }
        holdsSlot = false
    }

    private func releaseUpload() {
        if holdsUpload { server.uploads.release(client) }
        holdsUpload = false
    }

    private func closeUpload() {
        if upload >= 0 { FileDescriptor(adopting: upload).close() }
        upload = -1
    }

    private func workSlotsTaken() -> ServiceError {
        ServiceError(code: .busy, message: server.workSlotsTaken + "; try again shortly")
    }

    private func uploadsTaken(_ refusal: ClientSlots.Refusal) -> ServiceError {
        let message = refusal == .full ? server.uploadSlotsTaken
            : "this client has \(server.uploads.perClient) uploads in progress already (--uploads-per-client)"
        return ServiceError(code: .busy, message: message + "; try again shortly")
    }

    /// 32 random hexadecimal digits (a request's id, a multipart boundary).
    static func newRequestID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    private func tooLarge(_ bytes: Int64) -> ServiceError {
        let limit = route?.takesMedia == false ? "a /v1/jobs body is one serve request line" : "--max-body"
        return ServiceError(code: .overCap, message: "a request body of \(bytes) bytes or more is over the \(maxBody)-byte limit (\(limit))")
    }
}
