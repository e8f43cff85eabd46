import AttachKit
import Dispatch

/// `attachkit serve --allow DIR... [--jobs N] [--profile NAME|PATH.json]`
struct ServeCommand: Command {
    static let name = "serve"
    static let summary = "run as a worker speaking JSON Lines on stdin/stdout (for pipelines in any language)"
    static let usage = """
        \(UsageText.synopsis(name, ["--allow DIR", "[--allow DIR...]", "[--jobs N]"] + UsageText.items(.serve)
                               + ["[--access-log FILE|-|off]", Arguments.isolationSynopsis]))

        Reads one JSON request per line on stdin and writes exactly one JSON response per request on
        stdout (responses may come out of order; match them by id). Logs go to stderr only. EOF on
        stdin drains the requests in flight and exits 0; SIGTERM/SIGINT stop reading and drain too.
          request:  {"id": 1, "op": "probe"|"validate"|"prepare"|"thumbnail", "path": "...", "options": {...}}
          response: {"id": 1, "ok": true, "result": {...}}  or  {"id": 1, "ok": false, "error": {"code", "message"}}
        \(UsageText.lines([("--allow DIR", ["a root requests may read from and write into (repeatable; required)"]),
                            ("--jobs N", ["requests processed at once (default: cores)"]),
                            ("--access-log FILE|-|off", ["one JSON line per answered request (time, id, op, ok, code,",
                                                         "durationMs): appended to FILE, on stderr (-, the default), or none"])]
                           + UsageText.entries(.serve)))
        Each request runs in one of N worker processes (sandboxed with Landlock where the kernel
        has it): a request that crashes a decoder or breaks a limit is answered with crashed,
        over-memory or timed-out, and the worker is replaced. Answers then carry "sandbox".
        \(Arguments.isolationUsage)
        \(UsageText.operationKeys("Options per op (docs/cli.md): ", [.validate, .prepare, .thumbnail])).
        """
    static let options = Arguments.options(.serve).union(["allow", "jobs", "access-log"]).union(Arguments.isolationOptions)
    static let flags = Arguments.flags(.serve).union(Arguments.isolationFlags)

    let service: AttachKitService
    let accessLog: AccessLog

    init(_ arguments: Arguments) throws(UsageError) {
        guard arguments.positional.isEmpty else { throw UsageError("serve takes no file arguments; requests name them") }
        let roots = arguments.all("allow")
        guard !roots.isEmpty else { throw UsageError("give at least one --allow DIR") }
        service = try arguments.service(allow: roots)
        do throws(ServiceError) { accessLog = try AccessLog(arguments.value("access-log") ?? "-") } catch { throw UsageError(error.message) }
    }

    func run() -> ExitCode {
        let stop = StopSignal()
        let signals = SignalWatch(stop: stop, quiet: true)
        let swept = service.removeStaleTemporaries()
        if swept > 0 { Output.error("attachkit serve: removed \(swept) temporary file(s) left by a killed run") }
        Output.error("attachkit serve: ready (roots: \(service.ledger.scopes.map(\.description).joined(separator: ", ")); jobs: \(service.jobs); \(service.isolationSummary))")
        let inFlight = DispatchGroup()
        // Backpressure: at most jobs × 4 requests are read ahead of the work, so a fast client
        // cannot queue unbounded lines in memory.
        let slots = DispatchSemaphore(value: service.jobs * 4)
        let service = self.service
        let accessLog = self.accessLog
        var reader = LineReader(fd: SystemProcess.standardInput, maxBytes: ServiceRequest.maxLineBytes)
        var requests = 0
        while !stop.isStopped, let line = reader.next(shouldStop: { stop.isStopped }) {
            switch line {
            case .tooLong(let bytes):
                Output.json(RequestRejection.tooLong(bytes: bytes).response)
            case .text(let text):
                guard text.contains(where: { !$0.isWhitespace }) else { continue }
                requests += 1
                slots.wait()
                inFlight.enter()
                Task {
                    let started = AccessLog.now
                    let response = await service.respond(to: text)
                    Output.json(response)
                    accessLog.write(AccessLog.serveEntry(request: text, response: response, seconds: AccessLog.now - started))
                    slots.signal()
                    inFlight.leave()
                }
            }
        }
        inFlight.wait()
        service.shutDownWorkers()
        withExtendedLifetime(signals) {}
        let report = service.ledger.report
        Output.error("attachkit serve: \(requests) request(s) answered; workers replaced: \(service.workerRestarts); access handles: \(report.acquired) acquired, \(report.outstanding.count) outstanding, \(report.leaked.count) leaked")
        guard report.isClean else {
            for problem in report.problems { Output.error("attachkit serve: \(problem)") }
            return .software
        }
        return .success
    }
}
