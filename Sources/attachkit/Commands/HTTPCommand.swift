import AttachKit

/// `attachkit http --listen HOST:PORT --allow DIR... [--jobs N] [--profile P] [--max-body N] [--uploads N] ...`
struct HTTPCommand: Command {
    static let name = "http"
    static let summary = "serve the same operations over HTTP, with health, readiness, metrics and limits"
    static let usage = """
        \(UsageText.synopsis(name, ["--listen HOST:PORT", "--allow DIR", "[--allow DIR...]", "[--jobs N]"] + UsageText.items(.http)
                               + ["[--max-body N]", "[--queue N]", "[--uploads N]", "[--uploads-per-client N]", "[--read-timeout S]",
                                  "[--header-timeout S]", "[--drain S]", "[--spool DIR]", "[--access-log FILE|-|off]",
                                  "[--signing-key-file FILE --origin PREFIX... [--allow-private-origins] [--origin-connect-timeout S] [--origin-timeout S] [--cache-max-age S] [--cache DIR [--cache-size N]]]",
                                  Arguments.isolationSynopsis]))

        An HTTP API over the same service as `serve` (docs/http.md):
          POST /v1/prepare?maxBytes=5MB&...  body: the media; answer: the attachment, report in AttachKit-Report
          POST /v1/probe, POST /v1/validate  body: the media; answer: the same JSON as --json
          POST /v1/jobs                      body: {"op", "path", "options"} on files under --allow
          GET /v1/attach/SIG/OPTIONS/SOURCE  URL mode: the original fetched from an --origin, prepared
          GET /healthz, /readyz, /metrics    liveness, readiness, Prometheus text
        Errors are {"code", "message"} with 400, 403, 404, 405, 413, 415, 422, 429, 431, 500, 501, 502, 503, 504 or 505.
        Every answer closes its connection (Connection: close).
        \(UsageText.lines([
            ("--listen HOST:PORT", ["address to listen on (127.0.0.1:8080; port 0: any free port); the",
                                    "ready line on stdout says the address bound"]),
            ("--allow DIR", ["a root /v1/jobs may read from and write into (repeatable; required)"]),
            ("--jobs N", ["requests worked on at once (default: cores)"]),
            ("--queue N", ["requests that may wait beyond those, bodies in (default jobs × 4); more get 429"]),
            ("--uploads N", ["request bodies arriving at once (default 128): a request takes a work",
                             "slot only once its body is in, so slow uploads hold these, not work slots"]),
            ("--uploads-per-client N", ["of those, from one client address (default 32); more get 429"]),
        ] + UsageText.entries(.http) + [
            ("--max-body N", ["largest request body (default 100MB); over it: 413"]),
            ("--read-timeout S", ["seconds a client has to send a whole request (default 30); then it is cut off"]),
            ("--header-timeout S", ["seconds a new connection has to send its request's headers (default 10,",
                                    "at most --read-timeout); then it is closed"]),
            ("--drain S", ["on SIGTERM, seconds to finish the requests in flight (default 30)"]),
            ("--spool DIR", ["where bodies and outputs wait (default $TMPDIR/attachkit-http)"]),
            ("--access-log FILE|-|off", ["one JSON line per answered request (time, requestId, method, path,",
                                         "status, code, bytes, durationMs, outcome, client): appended to FILE,",
                                         "on stderr (-, the default), or none (off); X-Request-Id is echoed"]),
            ("--signing-key-file FILE", ["turns URL mode on (docs/url-mode.md): one hex key per line; the first",
                                         "signs (attachkit sign), all verify; a bad signature is 403"]),
            ("--origin PREFIX", ["an http(s) URL prefix originals may be fetched from (repeatable); others: 403"]),
            ("--allow-private-origins", ["also fetch from loopback, private, link-local addresses (tests, private networks)"]),
            ("--origin-connect-timeout S", ["seconds to connect to the origin (default 5)"]),
            ("--origin-timeout S", ["seconds for a whole fetch from the origin (default 20); then 504"]),
            ("--cache-max-age S", ["Cache-Control max-age of URL-mode answers (default 86400); a cached",
                                   "answer older than this is revalidated with the origin"]),
            ("--cache DIR", ["keep URL-mode answers there (survives restarts); identical requests at once",
                             "fetch once; cached answers are served while the origin is down"]),
            ("--cache-size N", ["the cache's size; least recently used answers go first (default 2GB)"]),
        ]))
        \(Arguments.isolationUsage)
        SIGTERM/SIGINT: stop accepting, answer what was accepted (within --drain), exit 0.
        """
    static let options = Arguments.options(.http)
        .union(["listen", "allow", "jobs", "queue", "uploads", "uploads-per-client", "max-body", "read-timeout", "header-timeout", "drain", "spool", "access-log"])
        .union(["signing-key-file", "origin", "origin-connect-timeout", "origin-timeout", "cache-max-age", "cache", "cache-size"])
        .union(Arguments.isolationOptions)
    static let flags = Arguments.flags(.http).union(Arguments.isolationFlags).union(["allow-private-origins"])

    let server: HTTPServer
    let address: ListenAddress

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.isEmpty else { throw UsageError("http takes no file arguments; requests bring them") }
        guard let listen = arguments.value("listen") else { throw UsageError("give --listen HOST:PORT (127.0.0.1:8080)") }
        let roots = arguments.all("allow")
        guard !roots.isEmpty else { throw UsageError("give at least one --allow DIR") }
        do throws(ServiceError) { address = try ListenAddress(parsing: listen) } catch { throw UsageError(error.message) }
        var limits = HTTPLimits()
        if let bytes = try arguments.bytes("max-body", OptionLimits.maxBytes) { limits.maxBodyBytes = bytes }
        limits.queue = try arguments.int("queue", in: 0...100_000)
        if let uploads = try arguments.int("uploads", in: 1...100_000) { limits.uploads = uploads }
        if let uploads = try arguments.int("uploads-per-client", in: 1...100_000) { limits.uploadsPerClient = uploads }
        if let seconds = try arguments.int("read-timeout", in: 1...3_600) { limits.readTimeoutSeconds = seconds }
        if let seconds = try arguments.int("header-timeout", in: 1...3_600) { limits.headerTimeoutSeconds = seconds }
        if let seconds = try arguments.int("drain", in: 0...3_600) { limits.drainSeconds = Double(seconds) }
        limits.deadline = try arguments.decode { options throws(OptionsError) in try options.seconds(OptionLimits.deadline) }
        let spoolPath = arguments.value("spool") ?? (SystemProcess.environment("TMPDIR") ?? "/tmp") + "/attachkit-http"
        let spool: HTTPSpool
        do { spool = try HTTPSpool(spoolPath) } catch { throw UsageError("\(error)") }
        let accessLog: AccessLog
        do throws(ServiceError) { accessLog = try AccessLog(arguments.value("access-log") ?? "-") } catch { throw UsageError(error.message) }
        server = HTTPServer(service: try arguments.service(allow: roots + [spool.root]), spool: spool, limits: limits, accessLog: accessLog,
                            urlMode: try Self.urlMode(arguments, maxBytes: limits.maxBodyBytes))
    }

    /// URL mode's settings, `nil` without `--signing-key-file`.
    private static func urlMode(_ arguments: Arguments, maxBytes: Int64) throws(UsageError) -> URLMode? {
        guard let keyFile = arguments.value("signing-key-file") else {
            let stray = ["origin", "origin-connect-timeout", "origin-timeout", "cache-max-age", "cache", "cache-size"].first { arguments.value($0) != nil }
            if let stray { throw UsageError("--\(stray) needs --signing-key-file (URL mode)") }
            return nil
        }
        let connect = try arguments.int("origin-connect-timeout", in: 1...300)
        let total = try arguments.int("origin-timeout", in: 1...3_600)
        let maxAge = try arguments.int("cache-max-age", in: 0...31_536_000)
        let cacheSize = try arguments.bytes("cache-size", OptionLimits.maxBytes) ?? 2_000_000_000
        do throws(ServiceError) {
            let origins = try OriginList(arguments.all("origin"))
            guard !origins.prefixes.isEmpty else { throw ServiceError(code: .badOptions, message: "URL mode needs at least one --origin PREFIX") }
            var fetch = OriginFetch(origins: origins, allowPrivate: arguments.flag("allow-private-origins"), maxBytes: maxBytes)
            if let connect { fetch.connectTimeoutMs = connect * 1000 }
            if let total { fetch.totalTimeoutMs = total * 1000 }
            var mode = URLMode(keys: try SigningKeys(file: keyFile), fetch: fetch)
            if let maxAge { mode.maxAge = maxAge }
            if let folder = arguments.value("cache") {
                mode.cache = try ResultCache(folder: folder, capacity: cacheSize, metrics: mode.metrics)
            }
            return mode
        } catch {
            throw UsageError(error.message)
        }
    }

    func run() -> ExitCode {
        let stop = StopSignal()
        let signals = SignalWatch(stop: stop, quiet: true)
        let swept = server.spool.removeStale() + server.service.removeStaleTemporaries()
        if swept > 0 { Output.error("attachkit http: removed \(swept) leftover(s) of a killed run") }
        let daemon: MicroHTTPDaemon
        do throws(ServiceError) { daemon = try MicroHTTPDaemon(server: server, address: address) } catch {
            Output.error("attachkit http: \(error.message)")
            return .failure
        }
        Output.line("listening on http://\(daemon.address)")
        Output.error("attachkit http: ready on \(daemon.address) (spool: \(server.spool.root); jobs: \(server.service.jobs), queue: \(server.capacity - server.service.jobs), uploads: \(server.limits.uploads) (\(server.limits.uploadsPerClient) per client); \(server.service.isolationSummary))")
        while !stop.isStopped { SystemProcess.sleep(microseconds: 100_000) }
        // Stop taking work: readiness fails, new work gets 503, the listening socket closes; then
        // what was accepted is answered (within --drain) before the connections are closed.
        server.startDraining()
        daemon.quiesce()
        var drained = server.waitForOpenRequests(seconds: server.limits.drainSeconds, pending: { daemon.headsBeingRead })
        if !drained {
            // Time is up: what still waits in the queue is answered 503 (Retry-After), and those
            // answers are given a moment to go out before the connections close.
            // Uploads still arriving are answered 503 on their sockets as well.
            server.closeQueue()
            daemon.answerUploadsInProgress()
            drained = server.waitForOpenRequests(seconds: 1)
        }
        if !drained {
            // Work still running: its workers are ended, so its requests are answered 503 too.
            server.abortRunningWork()
            drained = server.waitForOpenRequests(seconds: 2)
        }
        if !drained {
            // Answers made and still being sent (a large attachment to a slow reader) get up to
            // --read-timeout more: the work is done, a cut would leave a truncated body.
            drained = server.waitForAnswers(seconds: Double(server.limits.readTimeoutSeconds))
        }
        daemon.stop()
        server.service.shutDownWorkers()
        withExtendedLifetime(signals) {}
        let report = server.service.ledger.report
        Output.error("attachkit http: stopped\(drained ? "" : " with requests still in flight after --drain"); workers replaced: \(server.service.workerRestarts); access handles: \(report.acquired) acquired, \(report.outstanding.count) outstanding, \(report.leaked.count) leaked")
        guard report.isClean else {
            for problem in report.problems { Output.error("attachkit http: \(problem)") }
            return .software
        }
        return .success
    }
}
