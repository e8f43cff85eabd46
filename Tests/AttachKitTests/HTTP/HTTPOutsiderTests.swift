import Foundation
import Testing
@testable import AttachKit

/// What an outside tester found in `attachkit http` (issue 15), each checked the way the tester
/// broke it: raw sockets from Python, against the built server.
@Suite("attachkit http: the outside tester's findings", .serialized)
struct HTTPOutsiderTests {
    /// Raw-socket clients, one per mode (`argv[1]`); each prints one JSON object.
    static let script = #"""
import sys, json, socket, time, os, signal, http.client
mode, port = sys.argv[1], int(sys.argv[2])

def raw(data, timeout=5):
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(timeout); s.sendall(data); out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d: break
            out += d
    except Exception: pass
    s.close()
    return out.decode("latin-1")

def get(path, conn=None):
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path); r = c.getresponse(); r.read()
    return r.status, r.getheader("Connection")

def metrics():
    text = urllib_get("/metrics")
    return [l for l in text.splitlines() if l.startswith("attachkit_http_requests_total")]

def urllib_get(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10); c.request("GET", path); return c.getresponse().read().decode()

if mode == "idle":      # 70 connections that send nothing; then health and readiness; then when were the idle ones closed
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(70)]
    time.sleep(0.3)
    out = {"healthz": get("/healthz")[0], "readyz": get("/readyz")[0]}
    start = time.time(); closed = 0
    for s in socks:
        s.settimeout(max(0.1, 6 - (time.time() - start)))
        try: closed += s.recv(1) == b""
        except Exception: pass
    out.update(closed=closed, seconds=time.time() - start)
elif mode == "drain":   # every answer closes its connection; while draining, one accepted before SIGTERM is answered, a new one refused
    pid = int(sys.argv[3])
    before = get("/healthz")
    early = socket.create_connection(("127.0.0.1", port)); early.settimeout(5)
    held = socket.create_connection(("127.0.0.1", port))
    held.sendall(b"POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab")
    time.sleep(0.3); os.kill(pid, signal.SIGTERM); time.sleep(0.5)
    early.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"); text = b""
    try:
        while True:
            d = early.recv(65536)
            if not d: break
            text += d
    except Exception: pass
    text = text.decode("latin-1")
    try: after = get("/healthz")[0]
    except Exception as e: after = type(e).__name__
    out = {"before": before, "during": [int(text[9:12]) if text.startswith("HTTP/1.1 ") else 0, "\r\nConnection: close\r\n" in text,
                                        text.count("HTTP/1.1 ")], "after": after}
elif mode == "framing":
    out = {name: raw(data) for name, data in [
        ("twoLengths", b"POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        ("lengthAndChunked", b"POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")]}
elif mode == "endings": # a client gone mid-body, one cut off by the read timeout, one gone before its answer
    media = open(sys.argv[3], "rb").read()
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"); time.sleep(0.2); s.close()
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab"); time.sleep(3.5); s.close()
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"POST /v1/prepare?name=a.png&maxEdge=50 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(media) + media); s.close()
    time.sleep(2)
    out = {"metrics": metrics()}
print(json.dumps(out))
"""#

    static func client(_ mode: String, _ server: HTTPServerProcess, _ extra: [String] = []) throws -> JSONValue {
        let url = server.folder.appendingPathComponent("outsider.py")
        try script.write(to: url, atomically: true, encoding: .utf8)
        let result = try TestEnvironment.run("python3", [url.path, mode, String(server.port)] + extra)
        guard result.status == 0 else { throw HTTPTestError("the Python client failed: \(result.stderr)") }
        return try JSONValue.parse(result.stdout)
    }

    @Test("70 idle connections lock nobody out: health and readiness answer, the idle ones are closed after --header-timeout", .needsPython)
    func idleConnections() throws {
        let server = try HTTPServerProcess(["--jobs", "1", "--header-timeout", "2"])
        let out = try Self.client("idle", server)
        #expect(out["healthz"]?.intValue == 200, "\(out.serialized)")
        #expect(out["readyz"]?.intValue == 200, "\(out.serialized)")
        #expect(out["closed"]?.intValue == 70, "\(out.serialized)")
        #expect((out["seconds"]?.doubleValue ?? 99) < 4, "\(out.serialized)")
        #expect(server.stop().status == 0)
    }

    @Test("every answer says Connection: close; while draining, a connection accepted before SIGTERM gets readiness 503, a new one is refused", .needsPython)
    func drainClosesKeptAlive() throws {
        let server = try HTTPServerProcess(["--jobs", "1", "--read-timeout", "3", "--drain", "10"])
        let out = try Self.client("drain", server, [String(server.pid)])
        let before = out["before"]?.arrayValue ?? [], during = out["during"]?.arrayValue ?? []
        #expect(before.first?.intValue == 200 && before.last?.stringValue == "close", "\(out.serialized)")
        #expect(during.count == 3 && during[0].intValue == 503 && during[1] == .bool(true) && during[2].intValue == 1, "\(out.serialized)")
        #expect(out["after"]?.stringValue == "ConnectionRefusedError", "\(out.serialized)")
        #expect(server.stop().status == 0)
    }

    @Test("a query key given twice is 400 bad-options naming it (a bad first value is never skipped)", .needsCurl)
    func repeatedQueryKeys() throws {
        let server = try HTTPServerProcess(["--jobs", "1"])
        for query in ["maxEdge=abc&maxEdge=200", "maxEdge=100&maxEdge=200", "name=a.gif&name=b.png"] {
            let item = HTTPCase(name: query, method: "POST", path: "/v1/prepare?" + query, body: .file("gif_static_320x240.gif"),
                                status: 400, code: "bad-options")
            let answer = try HTTPEndpointTests.curl(item, server)
            #expect(item.problems(answer).isEmpty, "\(query): \(item.problems(answer))")
            let key = String(query.prefix { $0 != "=" })
            #expect(answer.json?["message"]?.stringValue?.contains("\"\(key)\" more than once") == true, "\(answer.json?.serialized ?? "")")
        }
        #expect(server.stop().status == 0)
    }

    @Test("conflicting Content-Length, or Content-Length with Transfer-Encoding: one 400 malformed-request, then the connection closes", .needsPython)
    func ambiguousFraming() throws {
        let server = try HTTPServerProcess(["--jobs", "1", "--read-timeout", "3"])
        let out = try Self.client("framing", server)
        for name in ["twoLengths", "lengthAndChunked"] {
            let text = out[name]?.stringValue ?? ""
            #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "\(name): \(text)")
            #expect(text.hasPrefix("HTTP/1.1 400 ") && text.contains("Connection: close") && text.contains("malformed-request"), "\(name): \(text)")
        }
        #expect(server.stop().status == 0)
    }

    @Test("metrics: a client gone is client-gone 499, one cut off is timed-out 408, an answer to a client gone before it is not 200 ok", .needsPython)
    func endingsInMetrics() throws {
        let server = try HTTPServerProcess(["--jobs", "1", "--read-timeout", "2"])
        let out = try Self.client("endings", server, [server.file("png_palette_400x300.png")])
        let lines = (out["metrics"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(lines.contains(#"attachkit_http_requests_total{op="probe",outcome="client-gone",status="499"} 1"#), "\(lines)")
        #expect(lines.contains(#"attachkit_http_requests_total{op="validate",outcome="timed-out",status="408"} 1"#), "\(lines)")
        #expect(lines.contains(#"attachkit_http_requests_total{op="prepare",outcome="client-gone",status="499"} 1"#), "\(lines)")
        #expect(!lines.contains { $0.contains(#"outcome="ok",status="499""#) || $0.contains(#"op="prepare",outcome="ok""#) }, "\(lines)")
        #expect(server.stop().status == 0)
    }

    @Test("HTTPMetrics: an ending other than delivered counts its own outcome and status, and no refusal")
    func endingsRecorded() {
        let metrics = HTTPMetrics()
        metrics.record(op: "prepare", status: 200, code: nil, ending: .clientGone, seconds: 0.1, received: 10, sent: 0)
        metrics.record(op: "probe", status: 422, code: .corrupt, ending: .timedOut, seconds: 0.1, received: 10, sent: 0)
        let text = metrics.render(inFlight: 0, workerRestarts: 0)
        #expect(text.contains(#"attachkit_http_requests_total{op="prepare",outcome="client-gone",status="499"} 1"#), "\(text)")
        #expect(text.contains(#"attachkit_http_requests_total{op="probe",outcome="timed-out",status="408"} 1"#), "\(text)")
        #expect(!text.contains("attachkit_http_refusals_total{"), "\(text)")
    }
}
