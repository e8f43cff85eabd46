import Foundation
@testable import AttachKit

/// Python's standard `http.client` (and raw sockets, for slow clients) driving the server: the
/// test writes a plan (one JSON object per request), the script runs it at a given concurrency
/// and prints one JSON line per request with what came back.
///
/// A request: `method`, `path`, a body from `file` / `zeros` (a count) / `text`; `expect100`
/// (send the headers with `Expect: 100-continue` and read the answer without sending the body,
/// as a careful client does with a big body), `chunked` (no length, chunked encoding), `slow`
/// (a raw socket trickling one byte every 0.25 s: records when the server cut it off), `delay`
/// (seconds to wait first), `again` (after the answer, wait for the file `again` names to exist,
/// then send the same request once more: `http.client` reconnects, as every answer closes its
/// connection).
/// A result: `i`, `status`, `type`, `length`, `declared` (Content-Length), `json`, `report`
/// (the decoded AttachKit-Report), `text` (a text/plain body), `retryAfter`, `cut` (seconds, for slow ones), `error`
/// (the exception's class), `second` (the status of `again`), `elapsed`.
enum HTTPPythonClient {
    static let script = #"""
import sys, json, http.client, socket, time, base64, os, select
from concurrent.futures import ThreadPoolExecutor, as_completed

host, port, plan_path, concurrency = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
plan = [json.loads(line) for line in open(plan_path)]

def body_of(spec):
    if "file" in spec: return open(spec["file"], "rb").read()
    if "zeros" in spec: return b"\0" * spec["zeros"]
    if "text" in spec: return spec["text"].encode()
    return None

def slow(spec, out):
    s = socket.create_connection((host, port), timeout=30)
    head = ("POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" % spec["path"]).encode()
    start = time.time()
    if spec["slow"] == "body":
        s.sendall(head)
        data = b"x" * 100000
    else:
        data = head
    for i in range(len(data)):
        try:
            s.send(data[i:i + 1])
        except OSError:
            out["cut"] = time.time() - start; break
        readable, _, _ = select.select([s], [], [], 0.25)
        if readable:
            try: chunk = s.recv(4096)
            except OSError: chunk = b""
            if not chunk:
                out["cut"] = time.time() - start; break
            out["answered"] = chunk[:12].decode("latin-1")
            break
        if time.time() - start > spec.get("limit", 30): break
    s.close()

def run(spec):
    out = {"i": spec["i"]}
    start = time.time()
    time.sleep(spec.get("delay", 0))
    try:
        if spec.get("slow"):
            slow(spec, out)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=120)
            body = body_of(spec)
            if spec.get("expect100"):
                conn.putrequest(spec["method"], spec["path"])
                conn.putheader("Content-Length", str(len(body)))
                conn.putheader("Expect", "100-continue")
                conn.endheaders()
            elif spec.get("chunked"):
                pieces = [body[i:i + 65536] for i in range(0, len(body), 65536)]
                conn.request(spec["method"], spec["path"], body=iter(pieces), encode_chunked=True)
            else:
                conn.request(spec["method"], spec["path"], body=body)
            r = conn.getresponse()
            data = r.read()
            out.update(status=r.status, type=r.getheader("Content-Type"), length=len(data),
                       declared=int(r.getheader("Content-Length") or -1), retryAfter=r.getheader("Retry-After"))
            report = r.getheader("AttachKit-Report")
            if report: out["report"] = json.loads(base64.urlsafe_b64decode(report + "=" * (-len(report) % 4)))
            if (out["type"] or "").startswith("application/json"): out["json"] = json.loads(data)
            if (out["type"] or "").startswith("text/plain"): out["text"] = data.decode()
            if spec.get("again"):
                while not os.path.exists(spec["again"]): time.sleep(0.05)
                conn.request(spec["method"], spec["path"], body=body)
                r2 = conn.getresponse()
                second = r2.read()
                out["second"] = r2.status
                if (r2.getheader("Content-Type") or "").startswith("application/json"): out["secondJSON"] = json.loads(second)
            conn.close()
    except Exception as e:
        out["error"] = type(e).__name__
    out["elapsed"] = time.time() - start
    return out

with ThreadPoolExecutor(max_workers=concurrency) as pool:
    for future in as_completed([pool.submit(run, spec) for spec in plan]):
        print(json.dumps(future.result()), flush=True)
"""#

    /// One plan entry.
    static func spec(_ pairs: (String, JSONValue)...) -> JSONValue { .object(pairs) }

    /// Runs `plan` (each object gets its index as `i`) against `server`; results by index.
    static func run(_ plan: [JSONValue], on server: HTTPServerProcess, concurrency: Int = 1) throws -> [Int: JSONValue] {
        let folder = server.folder
        let scriptURL = folder.appendingPathComponent("client.py")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let planURL = folder.appendingPathComponent("plan-\(UUID().uuidString.prefix(8)).jsonl")
        let lines = plan.enumerated().map { index, spec in
            JSONValue.object((spec.objectValue ?? []) + [("i", .number(Double(index)))]).serialized
        }
        try (lines.joined(separator: "\n") + "\n").write(to: planURL, atomically: true, encoding: .utf8)
        let result = try TestEnvironment.run("python3", [scriptURL.path, server.host, String(server.port), planURL.path, String(concurrency)])
        guard result.status == 0 else { throw HTTPTestError("the Python client failed: \(result.stderr)") }
        var byIndex: [Int: JSONValue] = [:]
        for line in result.stdout.split(separator: "\n") {
            let value = try JSONValue.parse(String(line))
            if let index = value["i"]?.intValue { byIndex[index] = value }
        }
        return byIndex
    }
}
