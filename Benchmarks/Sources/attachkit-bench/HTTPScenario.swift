import AttachKit
import Foundation

/// `attachkit http` against `attachkit serve` for the same work: a 24 MP JPEG (6 MP in quick
/// mode) prepared to 2048 px under `apple`, `requests` times, two at a time (`--jobs 2`, two
/// clients), on loopback. Each contender is one client process (Python's standard library) that
/// starts its server, sends the requests, stops it and prints requests/s and p50/p99 latency
/// (from a request's first byte out to its answer's last byte in; with 20 requests p99 is the
/// slowest). Over HTTP the photo travels in the body and is spooled; `serve` reads it from its
/// path: that difference is what is measured. Target: HTTP adds at most 10 % latency (p50 ≤ 1.1×).
extension Scenarios {
    func httpPrepare() -> Scenario {
        let photo = inputs.photo(megapixels: quick ? 6 : 24)
        let out = folder("http")
        let script = folder("http-client.py")
        try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try? Self.httpClientScript.write(toFile: script, atomically: true, encoding: .utf8)
        let requests = quick ? 6 : 20
        let client = { (mode: String) in ["python3", script, mode, attachkit, photo, out, String(requests), "2"] }
        return Scenario(name: "http", summary: "\(quick ? 6 : 24) MP JPEG → 2048 px, \(requests) requests 2 at a time over loopback: http vs serve",
                        contenders: [Contender(name: "http", command: client("http"), reset: clean(out)),
                                     Contender(name: "serve", command: client("serve"), reset: clean(out))],
                        reference: "serve") {
            // The target is on latency (each request's own time), measured once more per mode
            // after the timed runs: the whole-process wall time also counts starting the server
            // and its workers, which both pay and which drowns the work on a loaded machine.
            let figures = ["http", "serve"].map { mode -> (String, JSONValue?) in
                clean(out)()
                return (mode, try? JSONValue.parse(Measure.output(client(mode)).trimmingCharacters(in: .whitespacesAndNewlines)))
            }
            var rows = figures.map { mode, json -> (String, String) in
                guard let rate = json?["rps"]?.doubleValue, let p50 = json?["p50"]?.doubleValue, let p99 = json?["p99"]?.doubleValue else {
                    return ("\(mode) latency", "the client failed")
                }
                return ("\(mode) latency", "\(fmt(rate)) requests/s, p50 \(fmt(p50 * 1000, 0)) ms, p99 \(fmt(p99 * 1000, 0)) ms")
            }
            if let http = figures[0].1?["p50"]?.doubleValue, let serve = figures[1].1?["p50"]?.doubleValue, serve > 0 {
                rows.append(("http ÷ serve, p50 latency", "\(fmt(http / serve))× (target ≤ 1.10×): **\(http / serve <= 1.1 ? "met" : "MISSED")**"))
            }
            return rows
        }
    }

    /// The client: `python3 SCRIPT http|serve ATTACHKIT PHOTO OUT REQUESTS CONCURRENCY`; prints
    /// `{"n", "seconds", "rps", "p50", "p99", "failures"}` and exits 1 when any request failed.
    static let httpClientScript = #"""
import sys, json, time, subprocess, threading, http.client, os, signal
mode, attachkit, photo, out, n, c = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
latencies, failures, lock = [], [0], threading.Lock()
if mode == "serve":
    server = subprocess.Popen([attachkit, "serve", "--allow", os.path.dirname(photo), "--allow", out, "--jobs", str(c)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    sent, slots = {}, threading.Semaphore(c)
    def read():
        for line in server.stdout:
            answer = json.loads(line)
            with lock:
                latencies.append(time.time() - sent[answer["id"]])
                if not answer.get("ok"): failures[0] += 1
            slots.release()
            if len(latencies) == n: return
    reader = threading.Thread(target=read); reader.start()
    start = time.time()
    for i in range(n):
        slots.acquire()
        sent[i] = time.time()
        server.stdin.write(json.dumps({"id": i, "op": "prepare", "path": photo,
                                       "options": {"out": out, "profile": "apple", "maxEdge": 2048}}) + "\n")
        server.stdin.flush()
    reader.join()
    total = time.time() - start
    server.stdin.close()
else:
    server = subprocess.Popen([attachkit, "http", "--listen", "127.0.0.1:0", "--allow", out, "--spool", out + "/spool",
                               "--jobs", str(c)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
    body = open(photo, "rb").read()
    def send(indices):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        for i in indices:
            begun = time.time()
            connection.request("POST", "/v1/prepare?profile=apple&maxEdge=2048&name=photo.jpg", body=body)
            response = connection.getresponse()
            response.read()
            with lock:
                latencies.append(time.time() - begun)
                if response.status != 200: failures[0] += 1
    start = time.time()
    clients = [threading.Thread(target=send, args=(range(k, n, c),)) for k in range(c)]
    for client in clients: client.start()
    for client in clients: client.join()
    total = time.time() - start
    server.send_signal(signal.SIGTERM)
server.wait()
latencies.sort()
print(json.dumps({"n": n, "seconds": total, "rps": n / total, "p50": latencies[len(latencies) // 2],
                  "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], "failures": failures[0]}))
sys.exit(1 if failures[0] else 0)
"""#
}
