import Dispatch
import Synchronization

/// `attachkit http` without the sockets: admits requests (429 beyond the queue, 503 while
/// shutting down), turns each into an ``HTTPExchange`` the daemon drives, and answers health,
/// readiness and metrics. The work goes to the ``AttachKitService`` (and its worker processes)
/// as `serve` requests, so the answers are the same as `serve`'s.
package final class HTTPServer: Sendable {
    package let service: AttachKitService
    package let spool: HTTPSpool
    package let limits: HTTPLimits
    package let metrics = HTTPMetrics()
    /// One JSON line per answered request (``AccessLog``).
    package let accessLog: AccessLog
    /// URL mode (`GET /v1/attach/...`); `nil` without `--signing-key-file`.
    package let urlMode: URLMode?
    /// The uploads in progress (``HTTPLimits/uploads``, per client ``HTTPLimits/uploadsPerClient``).
    package let uploads: ClientSlots
    /// Work requests admitted at once (working and waiting): the service's jobs plus the queue.
    package let capacity: Int
    private let admitted = Atomic<Int>(0)
    /// Admitted requests working now (at most the service's jobs); the others wait their turn here,
    /// where a drain can still answer them (``closeQueue()``).
    private let running: DispatchSemaphore
    private let queueClosed = Atomic<Bool>(false)
    /// Set when the drain ran out with work still running (``abortRunningWork()``).
    private let workAborted = Atomic<Bool>(false)
    /// Requests begun and not yet ended (answer sent, or the client gone).
    private let open = Atomic<Int>(0)
    /// Of those, the ones whose answer is made and on its way to the client.
    private let answering = Atomic<Int>(0)
    private let draining = Atomic<Bool>(false)

    /// - Parameters:
    ///   - service: does the work; its roots must include `spool.root` (uploads are read there
    ///     and outputs written there).
    /// - accessLog: one line per answered request (default: standard error).
    /// - urlMode: how URL-mode requests are answered (default: they are not, 404).
    package init(service: AttachKitService, spool: HTTPSpool, limits: HTTPLimits, accessLog: AccessLog = .standardError,
                 urlMode: URLMode? = nil) {
        self.service = service
        self.urlMode = urlMode
        self.accessLog = accessLog
        self.spool = spool
        self.limits = limits
        self.capacity = limits.admitted(jobs: service.jobs)
        self.running = DispatchSemaphore(value: service.jobs)
        self.uploads = ClientSlots(total: limits.uploads, perClient: limits.uploadsPerClient)
    }

    /// A request whose head has arrived: what to do with it (an answer before the body, or a
    /// body to read). Never throws: what is wrong is the exchange's early answer.
    /// - Parameters:
    ///   - head: the head as ``RequestHead`` read it, or why it refused it (then answered with
    ///     that error alone).
    ///   - client: the client's address (uploads are counted per address).
    package func begin(_ head: Result<RequestHead, ServiceError>, client: String) -> HTTPExchange {
        open.add(1, ordering: .acquiringAndReleasing)
        return HTTPExchange(server: self, head: head, client: client)
    }

    /// A request's answer is made: from now on it is only being sent (see ``waitForAnswers(seconds:)``).
    func answerMade() { answering.add(1, ordering: .acquiringAndReleasing) }

    /// A request has ended (see ``HTTPExchange/complete(_:)``); `answered`: its answer had been made.
    func ended(answered: Bool) {
        if answered { answering.subtract(1, ordering: .acquiringAndReleasing) }
        open.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// Takes a work slot; `false` when every one is taken (the request gets 429).
    func admit() -> Bool {
        var current = admitted.load(ordering: .relaxed)
        while current < capacity {
            let (exchanged, original) = admitted.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func release() { admitted.subtract(1, ordering: .acquiringAndReleasing) }

    /// Waits, in the queue, for one of the service's jobs to be free; `false` when the queue was
    /// closed first (the drain's time is up: the request is answered 503 instead).
    func startRunning() -> Bool {
        while running.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
            if queueClosed.load(ordering: .acquiring) { return false }
        }
        guard !queueClosed.load(ordering: .acquiring) else {
            running.signal()
            return false
        }
        return true
    }

    /// A request's work is done: the next in the queue may start.
    func stopRunning() { running.signal() }

    /// Answers every request still waiting in the queue with 503 `unavailable` (`Retry-After`),
    /// now and from now on: what a drain does when its time is up, so that each request accepted
    /// before the signal gets an answer, and a load balancer retries it elsewhere.
    package func closeQueue() { queueClosed.store(true, ordering: .releasing) }

    /// Ends the work still running when the drain has run out (its worker processes are killed),
    /// so that its requests are answered 503 `unavailable` (``abortedAnswer(for:)``) and the
    /// process can end. In-process work cannot be ended: it runs to its end.
    package func abortRunningWork() {
        workAborted.store(true, ordering: .releasing)
        service.abortRunningWork()
    }

    /// A failed answer to work the drain ended (``abortRunningWork()``) becomes 503 `unavailable`:
    /// the request was fine, the server stopped it; send it again. Any other answer stands.
    func abortedAnswer(for response: HTTPResponse) -> HTTPResponse {
        guard workAborted.load(ordering: .acquiring), response.status >= 500 else { return response }
        return .error(ServiceError(code: .unavailable, message: "shutting down: the drain ran out while this request was worked on (--drain); send it again"))
    }

    /// The answer to a request the closed queue turned away.
    var queueClosedError: ServiceError {
        ServiceError(code: .unavailable, message: "shutting down: this request waited in the queue until the drain ran out (--drain); send it again")
    }

    /// Whether a work slot is free now (taken only once a body is in: ``admit()``).
    var hasWorkRoom: Bool { admitted.load(ordering: .acquiring) < capacity }

    /// Why a request is refused (429) when every work slot and queue place is taken.
    var workSlotsTaken: String { "all \(capacity) work slots are taken (--jobs \(service.jobs) and the queue)" }

    /// Why an upload is refused (429) when every upload slot is taken.
    var uploadSlotsTaken: String { "all \(uploads.total) upload slots are taken (--uploads)" }

    /// Work requests admitted and not yet answered.
    package var inFlight: Int { admitted.load(ordering: .acquiring) }

    /// From now on readiness fails and new work gets 503 `unavailable`; admitted work goes on.
    package func startDraining() { draining.store(true, ordering: .relaxed) }

    package var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Waits until every request begun has ended (its answer sent, or its client gone) and
    /// `pending()` is 0 (connections whose request head is still arriving), or `seconds` have
    /// passed; whether they all ended.
    package func waitForOpenRequests(seconds: Double, pending: () -> Int = { 0 }) -> Bool {
        let end = Self.now + seconds
        while open.load(ordering: .acquiring) > 0 || pending() > 0 {
            if Self.now >= end { return false }
            SystemProcess.sleep(microseconds: 20_000)
        }
        return true
    }

    /// Waits while answers already made are still being sent (a large attachment to a slow
    /// reader), until they are all sent, or `seconds` have passed; whether every request ended.
    /// What a drain grants after its time is up: the work is done, cutting its answer would hand
    /// the client a truncated body (a reader that stalls is cut off by the connection timeout).
    package func waitForAnswers(seconds: Double) -> Bool {
        let end = Self.now + seconds
        while answering.load(ordering: .acquiring) > 0, open.load(ordering: .acquiring) > 0, Self.now < end {
            SystemProcess.sleep(microseconds: 20_000)
        }
        return open.load(ordering: .acquiring) == 0
    }

    /// Why the server cannot take work, `nil` when it can: shutting down, the spool refuses writes,
    /// or a worker process cannot be started. (Worker processes are started before the server
    /// listens, and a dead one is replaced by the next request.)
    ///
    /// Load is not a reason: every work slot, queue place or upload slot taken is answered by
    /// 429 `busy` to the request that finds it so, while readiness stays 200. A readiness that
    /// failed under load took a busy instance out of its load balancer, which sent its share to
    /// the others, which filled and failed too: haproxy in front of two instances with
    /// `maxconn` = jobs + queue (so it queues the rest) answered 174 of 200 prepares "no server
    /// is available" during a rolling restart, where every instance would have answered each in
    /// turn (HTTPOperationsTests); a Kubernetes Service loses its endpoints the same way.
    package var notReadyReason: String? {
        if isDraining { return "shutting down" }
        if !spool.isWritable { return "the spool \(spool.root) is not writable" }
        return service.workersProblem()
    }

    /// `GET /healthz`, `/readyz`, `/metrics`.
    func answerProbe(_ route: HTTPRoute) -> HTTPResponse {
        switch route {
        case .readyz:
            if let reason = notReadyReason {
                return .error(ServiceError(code: .unavailable, message: "not ready: \(reason)"))
            }
            return .json(200, .object([("status", .string("ready")), ("jobs", .number(Double(service.jobs))),
                                       ("isolation", .string(service.isolationSummary))]))
        case .metrics:
            let text = metrics.render(inFlight: inFlight, workerRestarts: service.workerRestarts) + (urlMode?.metrics.render() ?? "")
            return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                                body: .bytes(Array(text.utf8)))
        default:
            return .json(200, .object([("status", .string("ok"))]))
        }
    }

    /// Seconds on the monotonic clock.
    static var now: Double {
        SystemClock.monotonicSeconds()
    }
}
