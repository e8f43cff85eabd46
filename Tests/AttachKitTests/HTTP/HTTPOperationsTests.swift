import Foundation
import Testing
@testable import AttachKit

/// `attachkit http` as operations run it: Debian's haproxy in front of two instances restarted
/// one after the other under load, and `GET /metrics` checked by Prometheus' `promtool`.
@Suite("attachkit http: behind haproxy, metrics checked by promtool", .serialized)
struct HTTPOperationsTests {
    /// The instances' settings (one job, four queue places) and haproxy's `maxconn` for each: 3,
    /// under jobs + queue, so that haproxy queues the rest itself and two queue places are spare.
    /// With `maxconn` equal to jobs + queue (3, against `--jobs 1 --queue 2`) haproxy 2.6 sent a
    /// 4th request at once to an instance right after redispatching requests from the one being
    /// stopped, and it got 429 `busy`, which `retry-on` cannot retry (8 of 120 requests, 1 run in 2).
    static let jobs = 1, queue = 4, maxconn = 3

    /// Sends prepares of one file through haproxy from `clients` threads, each on a connection
    /// of its own, until `least` were sent and the file `stop` exists (at most `most`). One JSON
    /// line per request to `out`: `i`, `status`, `length`, `declared` (Content-Length), `type`,
    /// `requestId` (echoed), `sha` (of the body), `ok` (the report's), `text` (an error's body),
    /// `error` (an exception), `start`, `end`. Each distinct 200 body is kept in `bodies/SHA.png`.
    static let loadScript = #"""
import sys, json, http.client, threading, time, os, base64, hashlib
port, media, path, clients, least, most, stop, out_path, bodies = (int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]),
    int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8], sys.argv[9])
body = open(media, "rb").read()
lock = threading.Lock(); state = {"next": 0}
out = open(out_path, "a")
def client():
    while True:
        with lock:
            i = state["next"]
            if i >= most or (i >= least and os.path.exists(stop)): return
            state["next"] = i + 1
        r = {"i": i, "start": time.time()}
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            c.request("POST", path, body=body, headers={"X-Request-Id": "rolling-%d" % i})
            a = c.getresponse(); data = a.read(); c.close()
            sha = hashlib.sha256(data).hexdigest()
            r.update(status=a.status, length=len(data), declared=int(a.getheader("Content-Length") or -1), type=a.getheader("Content-Type"),
                     requestId=a.getheader("X-Request-Id"), sha=sha)
            report = a.getheader("AttachKit-Report")
            if report: r["ok"] = json.loads(base64.urlsafe_b64decode(report + "=" * (-len(report) % 4))).get("ok")
            if a.status != 200: r["text"] = data[:300].decode("latin-1")
            kept = os.path.join(bodies, sha + ".png")
            if a.status == 200 and not os.path.exists(kept):
                with open(kept + ".%d" % i, "wb") as f: f.write(data)
                os.replace(kept + ".%d" % i, kept)
        except Exception as e:
            r["error"] = "%s: %s" % (type(e).__name__, e)
        r["end"] = time.time()
        with lock:
            out.write(json.dumps(r) + "\n"); out.flush()
threads = [threading.Thread(target=client) for _ in range(clients)]
for t in threads: t.start()
for t in threads: t.join()
"""#

    /// The haproxy configuration the test runs, as docs/http.md shows it: health checks on
    /// `/readyz` every 200 ms, and an instance taken out at once when a connection to it fails
    /// (`observe layer4`: after SIGTERM its port refuses before the next check); at most
    /// ``maxconn`` requests per instance (haproxy queues the rest); a request retried on the other
    /// instance when the connection fails, the server closes without an answer, or it answers 503
    /// (draining). Logs to stdout; a stats listener for the test.
    static func haproxyConfig(front: Int, stats: Int, servers: [(name: String, port: Int)]) -> String {
        """
        global
            maxconn 256
            log stdout format raw local0
        defaults
            mode http
            log global
            option httplog
            timeout connect 2s
            timeout client 60s
            timeout server 60s
            timeout queue 30s
            timeout check 2s
        frontend attachkit
            bind 127.0.0.1:\(front)
            default_backend attachkit
        backend attachkit
            balance roundrobin
            option http-buffer-request
            retries 3
            option redispatch 1
            retry-on conn-failure empty-response 503
            option httpchk
            http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host localhost
            http-check expect status 200
            default-server check inter 200ms fall 1 rise 2 maxconn \(maxconn) observe layer4 error-limit 1 on-error mark-down
        \(servers.map { "    server \($0.name) 127.0.0.1:\($0.port)" }.joined(separator: "\n"))
        listen stats
            bind 127.0.0.1:\(stats)
            stats enable
            stats uri /stats

        """
    }

    @Test("two instances behind haproxy, restarted one after the other under load: every prepare answered 200 with the same valid PNG, nothing lost, each old instance drained and exited 0",
          .needsHAProxy, .needsPython, .timeLimit(.minutes(2)))
    func rollingRestartBehindHAProxy() throws {
        let arguments = ["--jobs", String(Self.jobs), "--queue", String(Self.queue), "--read-timeout", "10"]
        // Given two instances on one host (one spool) and haproxy in front of them; b with no
        // drain time, so that what waits in its queue at SIGTERM is answered 503 (Retry-After)
        // at once, for haproxy to send elsewhere
        let a = try HTTPServerProcess(arguments)
        let b = try HTTPServerProcess(arguments + ["--drain", "0"], sharing: a)
        let folder = a.folder
        let media = a.file("webp_alpha_320x240.webp")
        let path = "/v1/prepare?name=photo.webp&maxEdge=160"
        let reference = try #require(LoopbackHTTP.post(a.port, path, body: Data(contentsOf: URL(fileURLWithPath: media))), "a direct prepare")
        #expect(reference.status == 200)
        let front = LoopbackHTTP.freePort(), stats = LoopbackHTTP.freePort()
        let haproxy = try HAProxyProcess(config: Self.haproxyConfig(front: front, stats: stats, servers: [("a", a.port), ("b", b.port)]),
                                         folder: folder, front: front, stats: stats)
        defer { haproxy.stop() }
        try haproxy.waitUntilUp(["a", "b"])

        // When prepares come from 6 clients while each instance in turn gets SIGTERM (it drains)
        // and a new one is started on its port once the old one stopped listening
        let results = folder.appendingPathComponent("results.jsonl"), stop = folder.appendingPathComponent("stop")
        let bodies = folder.appendingPathComponent("bodies", isDirectory: true)
        try FileManager.default.createDirectory(at: bodies, withIntermediateDirectories: true)
        let script = folder.appendingPathComponent("load.py")
        try Self.loadScript.write(to: script, atomically: true, encoding: .utf8)
        let start = Date()
        nonisolated(unsafe) var load: (status: Int32, stdout: String, stderr: String)?
        let loaded = DispatchGroup()
        loaded.enter()
        DispatchQueue.global().async {
            load = try? TestEnvironment.run("python3", [script.path, String(front), media, path, "6", "120", "200", stop.path, results.path, bodies.path])
            loaded.leave()
        }
        // However the test ends, the load ends before haproxy and the instances are stopped
        defer {
            FileManager.default.createFile(atPath: stop.path, contents: Data())
            loaded.wait()
        }
        func answered() -> Int { ((try? String(contentsOf: results, encoding: .utf8)) ?? "").split(separator: "\n").count }
        try Self.waitFor("the first 10 answers through haproxy", seconds: 20) { answered() >= 10 }
        var instances = [a, b], stopped: [(status: Int32, log: String)] = [], restarts: [String] = []
        for (index, name) in ["a", "b"].enumerated() {
            let old = instances[index], began = Date()
            let before = answered()
            kill(old.pid, SIGTERM)
            try Self.waitFor("\(name)'s port to refuse connections after SIGTERM", seconds: 5) { !LoopbackHTTP.accepts(old.port) }
            let new = try HTTPServerProcess(arguments, port: old.port, sharing: a)
            instances.append(new)
            try Self.waitFor("the new \(name) to be ready", seconds: 10) { LoopbackHTTP.get(new.port, "/readyz")?.status == 200 }
            try haproxy.waitUntilUp([name])
            stopped.append(old.stop())
            restarts.append("\(name): \(String(format: "%.2f", Date().timeIntervalSince(began))) s, \(answered() - before) answers meanwhile")
        }
        guard FileManager.default.createFile(atPath: stop.path, contents: Data()) else { throw HTTPTestError("cannot write \(stop.path)") }
        loaded.wait()
        let seconds = Date().timeIntervalSince(start)
        let counters = haproxy.counters()
        haproxy.stop()
        let finals = [instances[2].stop(), instances[3].stop()]

        // Then the load ran across both restarts and every request got its prepared PNG
        let run = try #require(load, "the load script did not run")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOf: results, encoding: .utf8).split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(lines.count >= 120 && lines.count <= 200, "\(lines.count) requests")
        var wrong: [String: Int] = [:]
        for line in lines {
            let i = line["i"]?.intValue ?? -1
            guard line["status"]?.intValue == 200, line["error"] == nil, line["ok"] == .bool(true), line["type"]?.stringValue == "image/png",
                  line["length"]?.intValue == line["declared"]?.intValue, line["requestId"]?.stringValue == "rolling-\(i)",
                  line["sha"]?.stringValue == reference.sha256 else {
                // Counted by what came back (the status and the first words of the body, or the exception)
                let what = line["error"]?.stringValue
                    ?? "\(line["status"]?.intValue ?? 0) \(line["type"]?.stringValue ?? "") \((line["text"]?.stringValue ?? "").prefix(90))"
                wrong[what, default: 0] += 1
                continue
            }
        }
        #expect(wrong.isEmpty, "\(wrong.values.reduce(0, +)) of \(lines.count) wrong, by answer: \(wrong)")
        // Every body was the same PNG, the one the instance gives directly; probed again it is a 160×120 PNG that passes ios
        let kept = try FileManager.default.contentsOfDirectory(atPath: bodies.path).filter { $0.hasSuffix(".png") }
        #expect(kept == [reference.sha256 + ".png"], "distinct bodies: \(kept)")
        for name in kept {
            let file = bodies.appendingPathComponent(name).path
            let probe = try JSONValue.parse(TestEnvironment.runAttachKit(["probe", "--json", file]).stdout)
            #expect(probe["container"]?.stringValue == "png" && probe["width"]?.intValue == 160 && probe["height"]?.intValue == 120, "\(probe.serialized)")
            let validate = try JSONValue.parse(TestEnvironment.runAttachKit(["validate", "--json", "--profile", "ios", file]).stdout)
            #expect(validate["ok"] == .bool(true), "\(validate.serialized)")
        }
        // Each of the four instances answered prepares, and their 200s add up to the requests
        // (one more: the direct one): none lost, none done twice
        let logs = stopped.map(\.log) + finals.map(\.log)
        let served = logs.map { $0.components(separatedBy: #""path":"/v1/prepare","status":200,"#).count - 1 }
        #expect(served.allSatisfy { $0 > 0 }, "prepares answered 200 by old a, old b, new a, new b: \(served)")
        #expect(served.reduce(0, +) == lines.count + 1, "prepares answered 200 by old a, old b, new a, new b: \(served), requests \(lines.count) + 1")
        // And each old instance drained: exit 0, nothing in flight cut off, no access handle left
        for (status, log) in stopped + finals {
            #expect(status == 0, "\(log.suffix(2_000))")
            #expect(!log.contains("still in flight"), "\(log.suffix(2_000))")
            #expect(log.contains("0 outstanding, 0 leaked"), "\(log.suffix(2_000))")
        }
        #expect(a.spoolLeftovers.isEmpty, "left in the spool: \(a.spoolLeftovers)")
        // What the drains answered 503 reached no client: haproxy sent each again
        let drained503 = stopped.map { $0.log.components(separatedBy: #""path":"/v1/prepare","status":503,"#).count - 1 }
        #expect(drained503.reduce(0, +) <= Int(counters["wretr"] ?? "") ?? 0, "503s \(drained503), haproxy \(counters)")
        print("http behind haproxy: \(lines.count) prepares in \(String(format: "%.1f", seconds)) s, \(wrong.values.reduce(0, +)) wrong; restarts \(restarts); "
              + "served by old a, old b, new a, new b: \(served); 503 while draining: \(drained503); haproxy \(counters.sorted { $0.key < $1.key })")
    }

    @Test("promtool check metrics finds nothing to say about GET /metrics after requests of every kind", .needsPromtool, .needsPython)
    func metricsPassPromtool() throws {
        let server = try HTTPServerProcess(["--jobs", "2", "--max-body", "100KB"])
        defer { server.stop() }
        let post = { (path: String, file: String) in
            HTTPPythonClient.spec(("method", .string("POST")), ("path", .string(path)), ("file", .string(server.file(file))))
        }
        // Given answers of many kinds: prepared, probed, validated, a job, refused (400, 404, 405,
        // 413, 415, 422) and the probes
        let plan = [
            post("/v1/prepare?name=photo.webp&maxEdge=160", "webp_alpha_320x240.webp"), post("/v1/probe", "gif_static_320x240.gif"),
            post("/v1/validate?name=a.png", "png_palette_400x300.png"), post("/v1/prepare?name=a.jpg", "jpeg_truncated_half.jpg"),
            post("/v1/prepare", "json_named_as.webp"), post("/v1/prepare?bogus=1", "gif_static_320x240.gif"),
            HTTPPythonClient.spec(("method", .string("POST")), ("path", .string("/v1/jobs")),
                                  ("text", .string(#"{"op": "probe", "path": "\#(server.file("gif_static_320x240.gif"))"}"#))),
            HTTPPythonClient.spec(("method", .string("POST")), ("path", .string("/v1/probe")), ("zeros", .number(200_000)), ("expect100", .bool(true))),
            HTTPPythonClient.spec(("method", .string("GET")), ("path", .string("/v1/prepare"))),
            HTTPPythonClient.spec(("method", .string("GET")), ("path", .string("/nothing"))),
            HTTPPythonClient.spec(("method", .string("GET")), ("path", .string("/healthz"))),
            HTTPPythonClient.spec(("method", .string("GET")), ("path", .string("/readyz"))),
        ]
        let answers = try HTTPPythonClient.run(plan, on: server, concurrency: 4)
        let statuses = (0..<plan.count).map { answers[$0]?["status"]?.intValue ?? 0 }
        #expect(statuses == [200, 200, 200, 422, 415, 400, 200, 413, 405, 404, 200, 200], "\(statuses)")
        // When /metrics is scraped
        let scrape = try HTTPPythonClient.run([HTTPPythonClient.spec(("method", .string("GET")), ("path", .string("/metrics")))], on: server)
        let text = try #require(scrape[0]?["text"]?.stringValue)
        // Then every family is there, with sane values
        for family in ["attachkit_http_requests_total", "attachkit_http_request_duration_seconds", "attachkit_http_received_bytes_total",
                       "attachkit_http_sent_bytes_total", "attachkit_http_requests_in_flight", "attachkit_worker_restarts_total",
                       "attachkit_build_info", "attachkit_http_refusals_total", "process_resident_memory_bytes", "process_cpu_seconds_total",
                       "process_start_time_seconds", "process_open_fds", "process_max_fds", "attachkit_worker_resident_memory_bytes"] {
            #expect(text.contains("# TYPE \(family) "), "no \(family) in:\n\(text)")
        }
        func value(_ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        #expect((value("attachkit_worker_resident_memory_bytes") ?? 0) > 1_000_000, "two worker processes use memory")
        #expect((value("process_resident_memory_bytes") ?? 0) > 1_000_000)
        let started = value("process_start_time_seconds") ?? 0, now = Date().timeIntervalSince1970
        #expect(started > now - 600 && started <= now + 1, "process_start_time_seconds \(started), now \(now)")
        #expect((value("process_open_fds") ?? 0) > 0 && (value("process_open_fds") ?? 0) <= (value("process_max_fds") ?? 0))
        #expect(text.contains(#"attachkit_http_refusals_total{code="over-cap"} 1"#), "\(text)")
        // And promtool (its parser and its lint) says nothing
        let url = server.folder.appendingPathComponent("metrics.txt")
        try text.write(to: url, atomically: true, encoding: .utf8)
        let check = try TestEnvironment.run("promtool", ["check", "metrics"], stdin: Data(text.utf8))
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty,
                "promtool check metrics (\(url.path)): exit \(check.status)\n\(check.stdout)\(check.stderr)")
        // (A control: the same check does speak up, about a counter named without _total.)
        let control = try TestEnvironment.run("promtool", ["check", "metrics"],
                                              stdin: Data("# HELP x_requests Requests.\n# TYPE x_requests counter\nx_requests 1\n".utf8))
        #expect(control.status != 0 && (control.stdout + control.stderr).contains("_total"), "\(control)")
    }

    /// Polls `condition` every 20 ms for up to `seconds`.
    static func waitFor(_ what: String, seconds: Double, _ condition: () -> Bool) throws {
        let end = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < end else { throw HTTPTestError("timed out after \(seconds) s waiting for \(what)") }
            usleep(20_000)
        }
    }
}

/// Debian's haproxy run in the foreground (`-db`) on a configuration written to a folder; its log
/// (stdout and stderr) beside it. Stopped (SIGTERM) by ``stop()`` or when dropped.
final class HAProxyProcess: @unchecked Sendable {
    let process = Process()
    let log: URL
    let stats: Int

    /// `haproxy` on `PATH`, else Debian's `/usr/sbin/haproxy` (not on a user's `PATH`).
    static let executable: String? = {
        let found = try? TestEnvironment.run("sh", ["-c", "command -v haproxy"])
        if let found, found.status == 0, !found.stdout.isEmpty { return found.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
        return FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : nil
    }()

    init(config: String, folder: URL, front: Int, stats: Int) throws {
        let file = folder.appendingPathComponent("haproxy.cfg")
        try config.write(to: file, atomically: true, encoding: .utf8)
        log = folder.appendingPathComponent("haproxy.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        self.stats = stats
        guard let executable = Self.executable else { throw HTTPTestError("no haproxy") }
        let check = try TestEnvironment.run(executable, ["-c", "-q", "-f", file.path])
        guard check.status == 0 else { throw HTTPTestError("haproxy -c refused the configuration: \(check.stdout)\(check.stderr)\n\(config)") }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-db", "-f", file.path]
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try HTTPOperationsTests.waitFor("haproxy to listen on \(front)", seconds: 10) { LoopbackHTTP.accepts(front) }
    }

    var logText: String { String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self) }

    /// The stats page's CSV rows of the backend's servers, by server name (haproxy's column names).
    func servers() -> [String: [String: String]] {
        guard let csv = LoopbackHTTP.get(stats, "/stats;csv")?.body else { return [:] }
        let rows = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        guard let header = rows.first?.map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: "# ")) }) else { return [:] }
        var byName: [String: [String: String]] = [:]
        for row in rows.dropFirst() where row.first == "attachkit" && row.count >= header.count {
            byName[row[1]] = Dictionary(zip(header, row), uniquingKeysWith: { first, _ in first })
        }
        return byName
    }

    /// Waits until haproxy's health checks say each of `names` is UP.
    func waitUntilUp(_ names: [String]) throws {
        try HTTPOperationsTests.waitFor("haproxy to see \(names) up", seconds: 10) {
            let servers = servers()
            return names.allSatisfy { servers[$0]?["status"] == "UP" }
        }
    }

    /// The backend's totals from the stats page: requests retried (`wretr`), redispatched
    /// (`wredis`), connection errors (`econ`), response errors (`eresp`), answers by class.
    func counters() -> [String: String] {
        let backend = servers()["BACKEND"] ?? [:]
        return backend.filter { ["wretr", "wredis", "econ", "eresp", "hrsp_2xx", "hrsp_5xx"].contains($0.key) }
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// HTTP/1.0 over a plain socket on 127.0.0.1, for polling readiness and haproxy's stats without
/// starting a process each time.
enum LoopbackHTTP {
    /// A connected socket (5 s send and receive timeouts), or `nil` when the connection is refused.
    static func connect(_ port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Whether something listens on the port (the connection is closed at once).
    static func accepts(_ port: Int) -> Bool {
        guard let fd = connect(port) else { return false }
        close(fd)
        return true
    }

    struct Answer {
        let status: Int
        let body: String
        let bytes: [UInt8]
        var sha256: String { SHA256.hex(bytes) }
    }

    static func get(_ port: Int, _ path: String) -> Answer? { exchange(port, "GET \(path) HTTP/1.0\r\n\r\n", body: Data()) }

    static func post(_ port: Int, _ path: String, body: Data) -> Answer? {
        exchange(port, "POST \(path) HTTP/1.0\r\nContent-Length: \(body.count)\r\n\r\n", body: body)
    }

    /// Sends the head and body, reads to the close; the status and the body.
    private static func exchange(_ port: Int, _ head: String, body: Data) -> Answer? {
        guard let fd = connect(port) else { return nil }
        defer { close(fd) }
        let request = Array(head.utf8) + Array(body)
        var offset = 0
        while offset < request.count {
            let sent = request[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return nil }
            offset += sent
        }
        var data: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            data += buffer[..<count]
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, data.count - 3)).first(where: { Array(data[$0..<$0 + 4]) == separator }) else { return nil }
        let headText = String(decoding: data[..<end], as: UTF8.self)
        guard headText.hasPrefix("HTTP/1."), let status = Int(headText.dropFirst(9).prefix(3)) else { return nil }
        let bytes = Array(data[(end + 4)...])
        return Answer(status: status, body: String(decoding: bytes, as: UTF8.self), bytes: bytes)
    }

    /// A port free on 127.0.0.1 now (the kernel's choice for port 0, released at once).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 ? getsockname(fd, $0, &length) : -1 }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension Trait where Self == ConditionTrait {
    /// Debian's haproxy (scripts/setup.sh haproxy).
    static var needsHAProxy: Self {
        .enabled(if: HAProxyProcess.executable != nil, "needs Debian's haproxy (scripts/setup.sh haproxy)")
    }

    /// Prometheus' promtool, from Debian's prometheus package (scripts/setup.sh prometheus).
    static var needsPromtool: Self {
        .enabled(if: TestEnvironment.hasTool("promtool"), "needs promtool on PATH, from Debian's prometheus package (scripts/setup.sh prometheus)")
    }
}
