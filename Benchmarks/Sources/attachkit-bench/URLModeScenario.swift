import AttachKit
import Foundation

/// URL mode's result cache against preparing every time (issue 32): a 24 MP JPEG (6 MP in quick
/// mode) on a local origin, prepared to 2048 px under `apple`. The timed contenders are one client
/// process each (it starts its server and, for URL mode, an origin): `url-cached` sends `requests`
/// signed GETs of one URL (the first one fills the cache; it is not counted), two at a time;
/// `post-prepare` sends the same photo and options to `POST /v1/prepare` as often. One more client
/// run, with everything up, gives the latency figures (p50, p99, requests per second) of the cached
/// answer and of the same answer from `POST /v1/prepare`, and a cold request's cost split into
/// fetch, prepare and store (the `Server-Timing` header of the answer that did the work).
extension Scenarios {
    func urlMode() -> Scenario {
        let photo = inputs.photo(megapixels: quick ? 6 : 24)
        let requests = quick ? 10 : 40
        return pythonScenario("url-mode", summary: "\(quick ? 6 : 24) MP JPEG → 2048 px, \(requests) requests 2 at a time: a cached URL-mode answer vs POST /v1/prepare",
                              client: pythonClient("url-mode", script: Self.urlModeClientScript, photo: photo), requests: requests,
                              modes: [("url-cached", "cached"), ("post-prepare", "prepare")], figures: ("figures", requests)) { json in
            guard let json else { return [("figures", "the client failed")] }
            var rows = ["cached", "prepare"].map { mode in
                latencyRow("\(mode == "cached" ? "cached GET" : "POST /v1/prepare") latency", json[mode], requests: requests, digits: 1)
            }
            if let cold = json["cold"], let total = cold["total"]?.doubleValue {
                let phases = ["fetch", "prepare", "store"].map { "\($0) \(fmt(cold[$0]?.doubleValue ?? 0, 1)) ms" }.joined(separator: ", ")
                rows.append(("cold GET (cache empty)", "\(fmt(total * 1000, 1)) ms: \(phases)"))
            }
            return rows
        }
    }

    /// `python3 SCRIPT MODE ATTACHKIT PHOTO OUT REQUESTS CONCURRENCY`: starts an origin serving
    /// PHOTO's folder (a thread of its own) and `attachkit http` in URL mode with a cache in OUT,
    /// then MODE `cached` (REQUESTS GETs of one signed URL after one that fills the cache),
    /// `prepare` (REQUESTS `POST /v1/prepare` of the photo) or `figures` (a cold GET with its
    /// `Server-Timing`, then both series in alternating rounds); prints JSON figures.
    static let urlModeClientScript = #"""
import sys, json, time, subprocess, threading, http.client, http.server, os, signal, functools, urllib.parse
mode, attachkit, photo, out, n, c = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=os.path.dirname(photo))
handler.log_message = lambda *a: None
origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
threading.Thread(target=origin.serve_forever, daemon=True).start()
keys = os.path.join(out, "keys.txt")
open(keys, "w").write("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n")
server = subprocess.Popen([attachkit, "http", "--listen", "127.0.0.1:0", "--allow", out, "--spool", out + "/spool", "--jobs", str(c),
                           "--signing-key-file", keys, "--origin", "http://127.0.0.1:%d/" % origin.server_address[1],
                           "--allow-private-origins", "--cache", out + "/cache", "--access-log", "off"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
port = int(server.stdout.readline().strip().rsplit(":", 1)[1])
source = "http://127.0.0.1:%d/%s" % (origin.server_address[1], os.path.basename(photo))
url = subprocess.run([attachkit, "sign", "--key-file", keys, "--base", "http://127.0.0.1:%d" % port, "--profile", "apple",
                      "--max-edge", "2048", source], capture_output=True, text=True, check=True).stdout.strip()
path = url.split("%d" % port, 1)[1]
body = open(photo, "rb").read()
local = threading.local()

def request(kind):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    begun = time.time()
    if kind == "cached": connection.request("GET", path)
    else: connection.request("POST", "/v1/prepare?profile=apple&maxEdge=2048&name=photo.jpg", body=body)
    response = connection.getresponse(); response.read(); connection.close()
    return time.time() - begun, response.status == 200, response.getheader("Server-Timing")

"""# + Scenarios.pythonSeries + #"""

answer, failed = {}, False
if mode == "figures":
    seconds, ok, timing = request("cached")
    cold = {"total": seconds}
    for part in (timing or "").split(","):
        name, _, dur = part.strip().partition(";dur=")
        if dur: cold[name] = float(dur)
    answer["cold"] = cold
    results = {kind: ([], [], 0.0) for kind in ("cached", "prepare")}
    for round in range(n // c):
        for kind in (["cached", "prepare"] if round % 2 == 0 else ["prepare", "cached"]):
            latencies, failures, total = results[kind]
            begun = time.time()
            run(lambda: request(kind)[:2], c, latencies, failures)
            results[kind] = (latencies, failures, total + time.time() - begun)
    for kind, value in results.items():
        answer[kind] = figures(*value)
        failed = failed or answer[kind]["failures"] > 0
else:
    if mode == "cached": request("cached")
    latencies, failures = [], []
    begun = time.time()
    run(lambda: request(mode)[:2], n, latencies, failures)
    answer = figures(latencies, failures, time.time() - begun)
    failed = bool(failures)
server.send_signal(signal.SIGTERM); server.wait()
origin.shutdown()
print(json.dumps(answer))
sys.exit(1 if failed else 0)
"""#
}
