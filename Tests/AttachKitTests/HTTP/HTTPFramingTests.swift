import Foundation
import Testing
@testable import AttachKit

/// Request smuggling and odd framing against the built server (issue 27), byte-exact from raw
/// Python sockets: every head RFC 9112 says to refuse gets its one answer at once, the connection
/// then closes, and a request hidden in a body is never answered.
@Suite("attachkit http: strict framing on the wire", .serialized)
struct HTTPFramingTests {
    /// Sends each request of the plan (name → bytes, base64) on a connection of its own and reads
    /// until the server closes it; prints, by name: the status, how many status lines came back (at
/// the start of a line),
    /// the seconds to the first byte and to the close, and the text.
    static let script = #"""
import sys, json, socket, time, base64, re
port, plan = int(sys.argv[1]), json.load(open(sys.argv[2]))
def exchange(data):
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
    start = time.time(); first = None; out = b""; closed = False
    s.sendall(data)
    try:
        while True:
            d = s.recv(65536)
            if not d: closed = True; break
            if first is None: first = time.time() - start
            out += d
    except Exception as e:
        out += ("<%s>" % type(e).__name__).encode()
    s.close()
    text = out.decode("latin-1")
    status = int(text[9:12]) if text.startswith("HTTP/1.") else 0
    body = text.split("\r\n\r\n", 1)[1] if "\r\n\r\n" in text else ""
    return {"status": status, "answers": len(re.findall(r"(?:^|\n)HTTP/1\.[01] \d\d\d ", text)), "first": first, "seconds": time.time() - start,
            "closed": closed, "text": text[:600], "body": body[:400]}
print(json.dumps({name: exchange(base64.b64decode(data)) for name, data in plan.items()}))
"""#

    /// The request smuggled inside the others: it must never be answered.
    static let hidden = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Byte-exact requests and what each must get (status, code), by RFC 9112.
    /// A GET whose head is exactly `bytes` long.
    static func head(bytes: Int) -> String {
        let start = "GET /healthz HTTP/1.1\r\nHost: x\r\nX: ", end = "\r\n\r\n"
        return start + String(repeating: "a", count: bytes - start.utf8.count - end.utf8.count) + end
    }

    static let cases: [(name: String, request: String, status: Int, code: String?)] = [
        // Smuggling: a framing header libmicrohttpd ignored, so the other framed the body.
        ("space before the colon of Content-Length",
         "POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden, 400, "malformed-request"),
        ("space before the colon of Transfer-Encoding",
         "POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nTransfer-Encoding : chunked\r\n\r\n22\r\n" + hidden + "\r\n0\r\n\r\n", 400, "malformed-request"),
        ("obs-folded Transfer-Encoding",
         "POST /v1/probe HTTP/1.1\r\nHost: x\r\nX: y\r\n Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n" + hidden, 400, "malformed-request"),
        ("Transfer-Encoding behind a bare CR",
         "POST /v1/probe HTTP/1.1\r\nHost: x\r\nX: y\rTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n" + hidden, 400, "malformed-request"),
        // Transfer codings other than a final chunked alone.
        ("Transfer-Encoding gzip", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 400, "malformed-request"),
        ("Transfer-Encoding identity", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n", 400, "malformed-request"),
        ("Transfer-Encoding chunked, identity", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n", 400, "malformed-request"),
        ("Transfer-Encoding gzip, chunked", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, "unsupported-coding"),
        // The Kelvin sign lowers to k in Unicode, not in HTTP: not chunked, so a coding the server does not decode
        ("Transfer-Encoding chun\u{212A}ed", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chun\u{212A}ed\r\n\r\n0\r\n\r\n" + hidden, 400, "malformed-request"),
        // Framing libmicrohttpd (which reads the body) would read another way than the head's reader.
        ("whitespace after Transfer-Encoding: chunked", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked \r\n\r\n0\r\n\r\n" + hidden, 400, "malformed-request"),
        ("whitespace after Content-Length", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 5 \r\n\r\nabcde" + hidden, 400, "malformed-request"),
        ("Transfer-Encoding in two fields", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden, 400, "malformed-request"),
        // The rest of RFC 9112's refusals.
        ("two Host fields", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "malformed-request"),
        ("no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "malformed-request"),
        ("Content-Length +5", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nabcde" + hidden, 400, "malformed-request"),
        ("Content-Length 5, 5", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\nabcde" + hidden, 400, "malformed-request"),
        ("a field name with a non-token character", "GET /healthz HTTP/1.1\r\nHost: x\r\nX(y): 1\r\n\r\n", 400, "malformed-request"),
        ("NUL in the head", "GET /healthz HTTP/1.1\r\nHost: x\r\nX: a\0b\r\n\r\n", 400, "malformed-request"),
        ("bare LF", "GET /healthz HTTP/1.1\nHost: x\n\n", 400, "malformed-request"),
        ("HTTP/2.0", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505, "unsupported-version"),
        ("a head over 16 KiB", "GET /healthz HTTP/1.1\r\nHost: x\r\nX: " + String(repeating: "a", count: 17_000) + "\r\n\r\n", 431, "header-too-large"),
        // One byte over: the reader once waited for a byte its peek could never return, then timed out.
        ("a head of exactly 16,385 bytes", head(bytes: 16_385), 431, "header-too-large"),
        // Many tiny fields: under 16 KiB, but past what libmicrohttpd's pool holds (its own HTML 431).
        ("4,000 header fields", "GET /healthz HTTP/1.1\r\nHost: x\r\n" + String(repeating: "a:\r\n", count: 4_000) + "\r\n", 431, "header-too-large"),
        // Well-framed requests with another one behind them: answered once, then the connection closes.
        ("a request after a Content-Length body", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcde" + hidden, 415, "unrecognized-type"),
        ("a request after a chunked body", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden, 422, "empty"),
        ("a request after a GET", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" + hidden, 200, nil),
        // A malformed chunk: libmicrohttpd reads the body, and answers this itself (HTML, a known limit).
        ("a request after a malformed chunk", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n" + hidden, 400, nil),
    ]

    @Test("smuggled and odd framing: one answer at once (400, 501, 505, 431), the connection closed, the hidden request never answered", .needsPython)
    func framing() throws {
        let server = try HTTPServerProcess(["--jobs", "1", "--read-timeout", "5"])
        let results = try Self.send(Self.cases.map { ($0.name, Data($0.request.utf8)) }, to: server)
        for item in Self.cases {
            let result = try #require(results[item.name], "\(item.name): no result")
            let text = result["text"]?.stringValue ?? ""
            #expect(result["status"]?.intValue == item.status, "\(item.name): \(text)")
            #expect(result["answers"]?.intValue == 1, "\(item.name): not exactly one answer: \(text)")
            #expect(!text.contains("attachkit_http"), "\(item.name): the hidden GET /metrics was answered")
            #expect(text.contains("\r\nConnection: close\r\n"), "\(item.name): \(text)")
            #expect(result["closed"]?.boolValue == true, "\(item.name): the server did not close the connection")
            #expect((result["first"]?.doubleValue ?? 99) < 1 && (result["seconds"]?.doubleValue ?? 99) < 1,
                    "\(item.name): answered after \(result["first"]?.serialized ?? "never"), closed after \(result["seconds"]?.serialized ?? "?") s")
            let body = try? JSONValue.parse(result["body"]?.stringValue ?? "")
            if let code = item.code {
                #expect(body?["code"]?.stringValue == code, "\(item.name): \(text)")
                #expect(body?["message"]?.stringValue?.isEmpty == false, "\(item.name): no message")
            }
        }
        // The metrics saw no request for /metrics (only the one asked now), and counted the refusals.
        let metrics = try HTTPPythonClient.run([HTTPPythonClient.spec(("method", .string("GET")), ("path", .string("/metrics")))], on: server)
        let lines = (metrics[0]?["text"]?.stringValue ?? "").split(separator: "\n").filter { $0.hasPrefix("attachkit_http_requests_total") }
        #expect(!lines.contains { $0.contains(#"op="metrics""#) }, "\(lines)")
        #expect(lines.contains(#"attachkit_http_requests_total{op="unknown",outcome="malformed-request",status="400"} 18"#), "\(lines)")
        #expect(lines.contains(#"attachkit_http_requests_total{op="unknown",outcome="unsupported-coding",status="501"} 1"#), "\(lines)")
        let (status, log) = server.stop()
        #expect(status == 0, "\(log)")
        #expect(server.spoolLeftovers.isEmpty, "left in the spool: \(server.spoolLeftovers)")
    }

    /// Runs the script on `plan` (name → request bytes); the results by name.
    static func send(_ plan: [(String, Data)], to server: HTTPServerProcess) throws -> JSONValue {
        let planURL = server.folder.appendingPathComponent("framing-plan-\(UUID().uuidString.prefix(8)).json")
        try JSONValue.object(plan.map { ($0.0, .string($0.1.base64EncodedString())) }).serialized.write(to: planURL, atomically: true, encoding: .utf8)
        let scriptURL = server.folder.appendingPathComponent("framing.py")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        return try JSONValue.parse(TestEnvironment.run("python3", [scriptURL.path, String(server.port), planURL.path]).stdout)
    }

    @Test("conflicting Content-Length, or Content-Length with Transfer-Encoding: one 400 malformed-request, then the connection closes", .needsPython)
    func ambiguousFraming() throws {
        let server = try HTTPServerProcess(["--jobs", "1", "--read-timeout", "3"])
        let requests = [
            ("two lengths", "POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabc" + Self.hidden),
            ("a length and chunked",
             "POST /v1/probe HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + Self.hidden),
        ]
        let results = try Self.send(requests.map { ($0.0, Data($0.1.utf8)) }, to: server)
        for (name, _) in requests {
            let result = try #require(results[name], "\(name): no result")
            let text = result["text"]?.stringValue ?? ""
            #expect(result["status"]?.intValue == 400 && result["answers"]?.intValue == 1, "\(name): \(text)")
            #expect(text.contains("\r\nConnection: close\r\n") && result["closed"]?.boolValue == true, "\(name): \(text)")
            let body = try? JSONValue.parse(result["body"]?.stringValue ?? "")
            #expect(body?["code"]?.stringValue == "malformed-request", "\(name): \(text)")
        }
        #expect(server.stop().status == 0)
    }

    @Test("every framing the head reader accepts, libmicrohttpd reads the same way: the whole body arrives, one answer", .needsPython)
    func agreement() throws {
        // Given a GIF sent under every spelling of its framing that RequestHead accepts
        let server = try HTTPServerProcess(["--jobs", "1", "--read-timeout", "5"])
        let gif = try Data(contentsOf: URL(fileURLWithPath: server.file("gif_static_320x240.gif")))
        let chunked = Data(String(gif.count, radix: 16).utf8) + Data("\r\n".utf8) + gif + Data("\r\n0\r\n\r\n".utf8)
        let filler = "X-Filler: " + String(repeating: "f", count: RequestHead.maxBytes - 200) + "\r\n"
        let heads: [(String, String, Data)] = [
            ("Content-Length", "Content-Length: \(gif.count)", gif),
            ("lowercase name, no space", "content-length:\(gif.count)", gif),
            ("leading zeros", "Content-Length: 000\(gif.count)", gif),
            ("tab and spaces before the value", "Content-Length:\t  \(gif.count)", gif),
            ("HTTP/1.0 with a length", "Content-Length: \(gif.count)", gif),
            ("chunked", "Transfer-Encoding: chunked", chunked),
            ("Chunked, uppercase name", "TRANSFER-ENCODING: Chunked", chunked),
            ("tab before chunked", "Transfer-Encoding:\tCHUNKED", chunked),
            ("obs-text in another field", "X-Name: caf\u{E9}\r\nContent-Length: \(gif.count)", gif),
            ("a head of nearly 16 KiB", filler + "Content-Length: \(gif.count)", gif),
        ]
        let plan = heads.map { name, fields, body in
            let version = name.hasPrefix("HTTP/1.0") ? "HTTP/1.0" : "HTTP/1.1"
            return (name, Data("POST /v1/probe \(version)\r\nHost: x\r\n\(fields)\r\n\r\n".utf8) + body + Data(Self.hidden.utf8))
        }
        let results = try Self.send(plan, to: server)
        // Then each is answered once, on the whole GIF, and the request behind it never
        for (name, _, _) in heads {
            let result = try #require(results[name], "\(name): no result")
            let text = result["text"]?.stringValue ?? ""
            #expect(result["status"]?.intValue == 200 && result["answers"]?.intValue == 1, "\(name): \(text)")
            let body = try? JSONValue.parse(result["body"]?.stringValue ?? "")
            #expect(body?["bytes"]?.intValue == gif.count, "\(name): the body was read as \(body?["bytes"]?.serialized ?? "nothing"): \(text)")
            #expect(result["closed"]?.boolValue == true, "\(name)")
        }
        #expect(server.stop().status == 0)
    }

    @Test("a client that closes its side in the middle of its head is let go at once, not after --header-timeout", .needsPython)
    func halfHead() throws {
        let server = try HTTPServerProcess(["--jobs", "1", "--header-timeout", "5"])
        let script = """
        import socket, time, json
        s = socket.create_connection(("127.0.0.1", \(server.port))); s.settimeout(8)
        s.sendall(b"POST /v1/probe HTTP/1.1\\r\\nHost: x\\r\\nContent-Le"); time.sleep(0.3)
        start = time.time(); s.shutdown(socket.SHUT_WR)
        try: data = s.recv(4096)
        except Exception as e: data = type(e).__name__.encode()
        print(json.dumps({"seconds": time.time() - start, "data": data.decode("latin-1")}))
        """
        let url = server.folder.appendingPathComponent("half-head.py")
        try script.write(to: url, atomically: true, encoding: .utf8)
        let out = try JSONValue.parse(TestEnvironment.run("python3", [url.path]).stdout)
        #expect(out["data"]?.stringValue == "", "\(out.serialized)")
        #expect((out["seconds"]?.doubleValue ?? 99) < 1, "\(out.serialized)")
        #expect(server.stop().status == 0)
    }
}
