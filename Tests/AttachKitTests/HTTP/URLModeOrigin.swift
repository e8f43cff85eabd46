import Foundation
@testable import AttachKit

/// A media origin on 127.0.0.1 for URL mode's tests: a small Python server (ThreadingHTTPServer)
/// the test writes, serving a folder of TestMedia files and the misbehaviours an origin can have.
/// It counts the requests of each path (`GET /_count?path=/media/x.jpg`).
///
/// | path | answer |
/// |---|---|
/// | `/media/NAME` | the file, with `ETag` and `Last-Modified`; 304 to a matching `If-None-Match` |
/// | `/plain/NAME` | the file, without validators (identity by SHA-256) |
/// | `/slowish/NAME` | the file after 0.5 s (concurrent requests overlap) |
/// | `/slow/NAME` | the file after 5 s |
/// | `/hop/N/NAME` | 302 to `/hop/N-1/NAME`, `/hop/0/NAME` → `/media/NAME` |
/// | `/away/NAME` | 302 to `/private/NAME` (outside the origin prefixes the tests give) |
/// | `/big` | a declared length of 50 MB (sends 1 MB, then closes) |
/// | `/endless` | chunked bytes without end |
/// | `/errors` | 500 with chunked bytes without end |
/// | `/lie/NAME` | a `Content-Length` 1,000 bytes over the file's, then closes |
/// | `/status/N` | status N, a short text body |
/// | `/redirbody/NAME` | 302 to `/media/NAME` declaring a 50 MB body (sends 1 MB, then closes) |
/// | `/twolengths/NAME` | the file with two different `Content-Length` values |
/// | `/badlength/NAME` | the file with `Content-Length: 1e3` |
/// | `/hugehead/NAME` | the file with 100 KB of header fields |
/// | `/hugeline/NAME` | the file with one 200 KB header field |
/// | `/lmgarbage/NAME` | the file with `Last-Modified: garbage` |
/// | `/toloopback/NAME` | 302 to `http://127.0.0.1:PORT/media/NAME` |
final class URLModeOrigin: @unchecked Sendable {
    let process = Process()
    let port: Int
    let folder: URL

    static let script = #"""
import http.server, os, sys, time, hashlib, threading, json, urllib.parse
root = sys.argv[1]
counts = {}
lock = threading.Lock()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send_file(self, name, validators=True, extra=0, head=()):
        path = os.path.join(root, os.path.basename(name))
        if not os.path.isfile(path):
            return self.plain(404)
        data = open(path, "rb").read()
        etag = '"' + hashlib.sha1(data).hexdigest()[:16] + '"'
        if validators and self.headers.get("If-None-Match") == etag:
            self.send_response(304); self.send_header("ETag", etag); self.send_header("Content-Length", "0"); self.end_headers(); return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data) + extra))
        if validators:
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT")
        if extra: self.send_header("Connection", "close")
        for k, v in head: self.send_header(k, v)
        if head: self.close_connection = True
        self.end_headers()
        self.wfile.write(data)
        if extra: self.close_connection = True
    def plain(self, status, headers=()):
        body = b"origin says %d" % status
        self.send_response(status)
        for k, v in headers: self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        if url.path == "/_count":
            want = urllib.parse.parse_qs(url.query)["path"][0]
            with lock: n = counts.get(want, 0)
            body = json.dumps({"count": n}).encode()
            self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body); return
        with lock: counts[url.path] = counts.get(url.path, 0) + 1
        parts = url.path.split("/")
        kind = parts[1] if len(parts) > 1 else ""
        if kind == "media": return self.send_file(parts[-1])
        if kind == "plain": return self.send_file(parts[-1], validators=False)
        if kind == "slowish": time.sleep(0.5); return self.send_file(parts[-1])
        if kind == "slow": time.sleep(5); return self.send_file(parts[-1])
        if kind == "lie": return self.send_file(parts[-1], extra=1000)
        if kind == "hop":
            n = int(parts[2])
            target = "/media/" + parts[3] if n == 0 else "/hop/%d/%s" % (n - 1, parts[3])
            return self.plain(302, [("Location", target)])
        if kind == "away": return self.plain(302, [("Location", "/private/" + parts[-1])])
        if kind == "status": return self.plain(int(parts[2]))
        if kind == "twolengths": return self.send_file(parts[-1], validators=False, head=[("Content-Length", "100")])
        if kind == "badlength":
            self.send_response(200); self.send_header("Content-Length", "1e3"); self.end_headers(); self.wfile.write(b"x" * 1000)
            self.close_connection = True; return
        if kind == "hugehead": return self.send_file(parts[-1], validators=False, head=[("X-Big-%d" % i, "a" * 1000) for i in range(100)])
        if kind == "hugeline": return self.send_file(parts[-1], validators=False, head=[("X-Big", "a" * 200_000)])
        if kind == "lmgarbage": return self.send_file(parts[-1], validators=False, head=[("Last-Modified", "garbage")])
        if kind == "toloopback": return self.plain(302, [("Location", "http://127.0.0.1:%d/media/%s" % (self.server.server_address[1], parts[-1]))])
        if kind == "redirbody":
            self.send_response(302); self.send_header("Location", "/media/" + parts[-1]); self.send_header("Content-Length", str(50_000_000)); self.end_headers()
            try: self.wfile.write(b"\0" * 1_000_000)
            except Exception: pass
            self.close_connection = True; return
        if kind == "big":
            self.send_response(200); self.send_header("Content-Length", str(50_000_000)); self.end_headers()
            try: self.wfile.write(b"\0" * 1_000_000)
            except Exception: pass
            self.close_connection = True; return
        if kind in ("endless", "errors"):
            self.send_response(200 if kind == "endless" else 500); self.send_header("Transfer-Encoding", "chunked"); self.end_headers()
            try:
                for _ in range(10000):
                    self.wfile.write(b"10000\r\n" + b"\0" * 65536 + b"\r\n")
            except Exception: pass
            self.close_connection = True; return
        return self.plain(404)
import socket
class V6(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
bind = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
server = (V6 if ":" in bind else http.server.ThreadingHTTPServer)((bind, 0), H)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
"""#

    /// Starts the origin serving copies of `files` (TestMedia paths).
    /// The address it listens on (`127.0.0.1`, or `::1`).
    let bind: String

    init(files: [String], bind: String = "127.0.0.1", name: String = #function) throws {
        self.bind = bind
        folder = TestEnvironment.temporaryFolder("origin-\(name)")
        for file in files {
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture(file), toPath: folder.appendingPathComponent(PathResolver.fileName(file)).path)
        }
        let script = folder.appendingPathComponent("origin.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, folder.path, bind]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        guard let port = Int(HTTPServerProcess.firstLine(of: output)) else {
            throw HTTPTestError("the origin did not start")
        }
        self.port = port
    }

    /// `http://127.0.0.1:PORT` (`http://[::1]:PORT`).
    var url: String { bind.contains(":") ? "http://[\(bind)]:\(port)" : "http://\(bind):\(port)" }

    /// Requests the origin received for `path`.
    func count(_ path: String) throws -> Int {
        let answer = try URLModeClient.get("\(url)/_count?path=\(path)")
        return (try JSONValue.parse(String(decoding: answer.body, as: UTF8.self)))["count"]?.intValue ?? -1
    }

    /// SIGKILL: the test process blocks most signals, and a child started by Foundation's
    /// `Process` inherits the mask, so Python would never see a SIGTERM.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// One GET (or HEAD) with curl: status, headers (names in lower case) and body.
enum URLModeClient {
    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: Data
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    static func get(_ url: String, headers: [String] = [], head: Bool = false) throws -> Answer {
        let folder = TestEnvironment.temporaryFolder("curl")
        defer { try? FileManager.default.removeItem(at: folder) }
        let headFile = folder.appendingPathComponent("h").path, bodyFile = folder.appendingPathComponent("b").path
        var arguments = ["-sS", "-o", bodyFile, "-D", headFile, "-w", "%{http_code}", "--max-time", "20"]
        if head { arguments.append("-I") }   // curl writes the head, not a body, to -o
        for header in headers { arguments += ["-H", header] }
        let run = try TestEnvironment.run("curl", arguments + [url])
        var fields: [String: String] = [:]
        for line in (try? String(contentsOfFile: headFile, encoding: .utf8))?.split(separator: "\r\n") ?? [] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: Int(run.stdout) ?? 0, headers: fields, body: (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data())
    }

    /// The `code` of a JSON error body.
    static func code(_ answer: Answer) -> String? {
        (try? JSONValue.parse(String(decoding: answer.body, as: UTF8.self)))?["code"]?.stringValue
    }
}
