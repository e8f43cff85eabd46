import AttachKit
import Foundation

/// `attachkit http` against `attachkit serve` for the same work: a 24 MP JPEG (6 MP in quick
/// mode) prepared to 2048 px under `apple`, `requests` times, two at a time (`--jobs 2`, two
/// clients), on loopback. Each contender is one client process (Python's standard library) that
/// starts its server, sends the requests and stops it (whole-process time); the latency figures
/// (from a request's first byte out to its answer's last byte in) come from one more client run
/// with both servers up and 60 requests each in alternating rounds. Over HTTP the photo travels in
/// the body and is spooled; `serve` reads it from its path: that difference is what is measured.
/// Target: HTTP adds at most 10 % latency (p50 ≤ 1.1×).
extension Scenarios {
    func httpPrepare() -> Scenario {
        let photo = inputs.photo(megapixels: quick ? 6 : 24)
        let requests = quick ? 6 : 20
        let latencyRequests = quick ? 8 : 60
        return pythonScenario("http", summary: "\(quick ? 6 : 24) MP JPEG → 2048 px, \(requests) requests 2 at a time over loopback: http vs serve",
                              client: pythonClient("http", script: Self.httpClientScript, photo: photo), requests: requests,
                              modes: [("http", "http"), ("serve", "serve")], figures: ("paired", latencyRequests)) { paired in
            // The target is on latency (each request's own time), measured once more after the
            // timed runs with both servers up and their requests in alternating rounds: the
            // whole-process wall time also counts starting the server and its workers, and two
            // runs one after the other see different neighbours on a shared machine.
            var rows = ["http", "serve"].map { latencyRow("\($0) latency", paired?[$0], requests: latencyRequests, digits: 0) }
            if let http = paired?["http"]?["p50"]?.doubleValue, let serve = paired?["serve"]?["p50"]?.doubleValue, serve > 0 {
                rows.append(("http ÷ serve, p50 latency", "\(fmt(http / serve))× (target ≤ 1.10×): **\(http / serve <= 1.1 ? "met" : "MISSED")**"))
            }
            return rows
        }
    }

    /// What every HTTP scenario's Python client does with its requests: `run(request, count, latencies,
    /// failures)`, `count` calls of `request()` `c` at a time, and `figures(...)`, their rate and percentiles.
    static let pythonSeries = #"""
def run(request, count, latencies, failures):
    """count calls of request() (each giving seconds and whether it succeeded), c at a time (c client threads)."""
    def client(k):
        for _ in range(k, count, c):
            seconds, ok = request()
            latencies.append(seconds)
            if not ok: failures.append(1)
    threads = [threading.Thread(target=client, args=(k,)) for k in range(c)]
    for thread in threads: thread.start()
    for thread in threads: thread.join()

def figures(latencies, failures, seconds):
    latencies = sorted(latencies)
    return {"n": len(latencies), "seconds": seconds, "rps": len(latencies) / seconds, "p50": latencies[len(latencies) // 2],
            "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))], "failures": len(failures)}
"""#

    /// The client: `python3 SCRIPT MODE ATTACHKIT PHOTO OUT REQUESTS CONCURRENCY`. MODE `http` or
    /// `serve`: starts that server, sends REQUESTS requests CONCURRENCY at a time, stops it, prints
    /// `{"n", "seconds", "rps", "p50", "p99", "failures"}`. MODE `paired`: starts both servers and
    /// sends REQUESTS requests to each in alternating rounds (CONCURRENCY requests to one, then to
    /// the other, the order swapped every round), so a neighbour's load on this shared machine
    /// falls on both alike; prints `{"http": {...}, "serve": {...}}` with the figures above.
    /// Exits 1 when any request failed.
    static let httpClientScript = #"""
import sys, json, time, subprocess, threading, http.client, os, signal
mode, attachkit, photo, out, n, c = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])

class Serve:
    """attachkit serve: requests by path over its stdin, answers read from its stdout."""
    def __init__(self):
        self.process = subprocess.Popen([attachkit, "serve", "--allow", os.path.dirname(photo), "--allow", out, "--jobs", str(c)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lock, self.waiting, self.next = threading.Lock(), {}, 0
        threading.Thread(target=self.read, daemon=True).start()
    def read(self):
        for line in self.process.stdout:
            answer = json.loads(line)
            with self.lock: slot = self.waiting.pop(answer["id"])
            slot[1] = answer.get("ok") is True
            slot[0].set()
    def request(self):
        slot = [threading.Event(), False]
        with self.lock:
            i = self.next; self.next += 1; self.waiting[i] = slot
            begun = time.time()
            self.process.stdin.write(json.dumps({"id": i, "op": "prepare", "path": photo,
                                                 "options": {"out": out, "profile": "apple", "maxEdge": 2048}}) + "\n")
            self.process.stdin.flush()
        slot[0].wait()
        return time.time() - begun, slot[1]
    def stop(self):
        self.process.stdin.close(); self.process.wait()

class HTTP:
    """attachkit http: the photo in each request's body, one connection per request per client thread (every answer closes its connection)."""
    def __init__(self):
        self.process = subprocess.Popen([attachkit, "http", "--listen", "127.0.0.1:0", "--allow", out, "--spool", out + "/spool",
                                         "--jobs", str(c)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.port = int(self.process.stdout.readline().strip().rsplit(":", 1)[1])
        self.body = open(photo, "rb").read()
        self.local = threading.local()
    def request(self):
        if not hasattr(self.local, "connection"):
            self.local.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        begun = time.time()
        self.local.connection.request("POST", "/v1/prepare?profile=apple&maxEdge=2048&name=photo.jpg", body=self.body)
        response = self.local.connection.getresponse()
        response.read()
        return time.time() - begun, response.status == 200
    def stop(self):
        self.process.send_signal(signal.SIGTERM); self.process.wait()

"""# + Scenarios.pythonSeries + #"""

if mode == "paired":
    servers = {"http": HTTP(), "serve": Serve()}
    results = {name: ([], [], 0.0) for name in servers}
    for round in range(n // c):
        for name in (["http", "serve"] if round % 2 == 0 else ["serve", "http"]):
            latencies, failures, seconds = results[name]
            begun = time.time()
            run(servers[name].request, c, latencies, failures)
            results[name] = (latencies, failures, seconds + time.time() - begun)
    for server in servers.values(): server.stop()
    answer = {name: figures(*value) for name, value in results.items()}
    print(json.dumps(answer))
    sys.exit(1 if any(a["failures"] for a in answer.values()) else 0)
server = HTTP() if mode == "http" else Serve()
latencies, failures = [], []
begun = time.time()
run(server.request, n, latencies, failures)
seconds = time.time() - begun
server.stop()
answer = figures(latencies, failures, seconds)
print(json.dumps(answer))
sys.exit(1 if failures else 0)
"""#
}
