import Foundation
import Testing
@testable import AttachKit

/// `attachkit http` under load, and stopped with SIGTERM under load.
@Suite("attachkit http: load and shutdown", .serialized)
struct HTTPLoadTests {
    /// Raw sockets around a SIGTERM (`argv[2]` is the server's pid): a GET before it (its status and
    /// Connection header); a connection accepted before it that asks for readiness only after it
    /// (the status, whether the answer said Connection: close, how many answers); a new connection
    /// after it. A slow upload keeps the drain going meanwhile. Prints one JSON object.
    static let drainScript = #"""
import sys, json, socket, time, os, signal, http.client
port, pid = int(sys.argv[1]), int(sys.argv[2])

def get(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path); r = c.getresponse(); r.read()
    return r.status, r.getheader("Connection")

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
print(json.dumps({"before": before, "during": [int(text[9:12]) if text.startswith("HTTP/1.1 ") else 0, "\r\nConnection: close\r\n" in text,
                                               text.count("HTTP/1.1 ")], "after": after}))
"""#

    /// A request of the mix and what must come back.
    enum Kind: CaseIterable {
        case prepare, probe, validate, job, corrupt, notMedia, oversize, oversizeChunked, badQuery, badOption, slow

        /// How often each comes, out of 100 (slow clients are added apart: every 100th request).
        var weight: Int {
            switch self {
            case .prepare: return 30
            case .probe: return 15
            case .validate, .job, .notMedia, .badQuery, .badOption, .oversizeChunked: return 5
            case .corrupt, .oversize: return 10
            case .slow: return 0
            }
        }
    }

    static func request(_ kind: Kind, _ server: HTTPServerProcess) -> JSONValue {
        let post = { (path: String, file: String) in
            HTTPPythonClient.spec(("method", .string("POST")), ("path", .string(path)), ("file", .string(server.file(file))))
        }
        switch kind {
        case .prepare: return post("/v1/prepare?name=a.gif&maxBytes=15KB", "gif_static_320x240.gif")
        case .probe: return post("/v1/probe", "jpeg_named_as.png")
        case .validate: return post("/v1/validate?name=a.png", "png_palette_400x300.png")
        case .job:
            return HTTPPythonClient.spec(("method", .string("POST")), ("path", .string("/v1/jobs")),
                                         ("text", .string(#"{"op": "probe", "path": "\#(server.file("gif_static_320x240.gif"))"}"#)))
        case .corrupt: return post("/v1/prepare?name=a.jpg", "jpeg_truncated_half.jpg")
        case .notMedia: return post("/v1/prepare", "json_named_as.webp")
        case .oversize:
            return HTTPPythonClient.spec(("method", .string("POST")), ("path", .string("/v1/probe")), ("zeros", .number(250_000)),
                                         ("expect100", .bool(true)))
        case .oversizeChunked:
            return HTTPPythonClient.spec(("method", .string("POST")), ("path", .string("/v1/prepare")), ("zeros", .number(250_000)),
                                         ("chunked", .bool(true)))
        case .badQuery: return post("/v1/prepare?maxBytes=%G0", "gif_static_320x240.gif")
        case .badOption: return post("/v1/prepare?maxEdge=2&bogus", "gif_static_320x240.gif")
        case .slow: return HTTPPythonClient.spec(("slow", .string("body")), ("path", .string("/v1/probe")), ("limit", .number(10)))
        }
    }

    /// What is wrong with a result for `kind`; `nil` when it is right.
    static func problem(_ kind: Kind, _ result: JSONValue?) -> String? {
        guard let result else { return "no result" }
        if kind == .slow {
            guard let cut = result["cut"]?.doubleValue, cut >= 1.9, cut < 5 else { return "a slow client was not cut off in time: \(result.serialized)" }
            return nil
        }
        if let error = result["error"]?.stringValue { return "\(error)" }
        let expected: (Int, String?) = switch kind {
        case .prepare, .probe, .validate, .job: (200, nil)
        case .corrupt: (422, "corrupt")
        case .notMedia: (415, "unrecognized-type")
        case .oversize, .oversizeChunked: (413, "over-cap")
        case .badQuery: (400, "malformed-request")
        case .badOption: (400, "bad-options")
        case .slow: (0, nil)
        }
        guard result["status"]?.intValue == expected.0, result["json"]?["code"]?.stringValue == expected.1,
              result["length"]?.intValue == result["declared"]?.intValue else { return "\(result.serialized)" }
        if kind == .prepare && (result["report"]?["ok"] != .bool(true) || result["type"]?.stringValue != "image/gif") { return "\(result.serialized)" }
        return nil
    }

    /// `count` requests of the mix, the same every run; every 100th is a slow client.
    static func mix(_ count: Int, offset: Int, _ server: HTTPServerProcess) -> [(Kind, JSONValue)] {
        var generator = SplitMix64(seed: UInt64(42 + offset))
        let bag = Kind.allCases.flatMap { Array(repeating: $0, count: $0.weight) }
        return (0..<count).map { index in
            let kind = (offset + index) % 100 == 50 ? Kind.slow : bag[Int.random(in: 0..<bag.count, using: &generator)]
            return (kind, request(kind, server))
        }
    }

    @Test("1,000 mixed requests at concurrency 8: every one answered correctly, memory flat, no temporary left", .needsPython)
    func thousandRequests() throws {
        let server = try HTTPServerProcess(["--jobs", "2", "--max-body", "200KB", "--read-timeout", "2"])
        let start = Date()
        var residentKB: [Int] = []
        var wrong: [String] = []
        for (offset, count) in [(0, 200), (200, 800)] {
            let requests = Self.mix(count, offset: offset, server)
            let results = try HTTPPythonClient.run(requests.map(\.1), on: server, concurrency: 8)
            for (index, (kind, _)) in requests.enumerated() {
                if let problem = Self.problem(kind, results[index]) { wrong.append("#\(offset + index) \(kind): \(problem)") }
            }
            residentKB.append(ServeProcessTests.residentKB(server.pid))
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong: \(wrong.prefix(10))")
        // Resident memory after 1,000 requests is where it was after 200 (allocator noise aside).
        #expect(residentKB[1] <= residentKB[0] + max(residentKB[0] / 5, 8_192), "RSS \(residentKB[0]) KB after 200, \(residentKB[1]) KB after 1000")
        let (status, log) = server.stop()
        #expect(status == 0, "\(log)")
        #expect(log.contains("0 outstanding, 0 leaked"), "\(log)")
        #expect(server.spoolLeftovers.isEmpty, "left in the spool: \(server.spoolLeftovers)")
        #expect(server.temporaries.isEmpty)
        print("http load: 1000 requests in \(Int(Date().timeIntervalSince(start))) s, RSS \(residentKB[0]) KB after 200 → \(residentKB[1]) KB after 1000")
    }

    @Test("SIGTERM under load: what was accepted is answered, new work gets 503, new connections are refused, exit 0, nothing left", .needsPython)
    func terminateUnderLoad() throws {
        let server = try HTTPServerProcess(["--jobs", "2", "--read-timeout", "3"])
        let flag = server.folder.appendingPathComponent("terminated").path
        // Given a slow upload (so the drain lasts), two clients that ask again after SIGTERM (each
        // answer closed its connection, so on a new one), and a stream of prepares
        let plan = [Self.request(.slow, server),
                    HTTPPythonClient.spec(("method", .string("POST")), ("path", .string("/v1/probe")),
                                          ("file", .string(server.file("gif_static_320x240.gif"))), ("again", .string(flag))),
                    HTTPPythonClient.spec(("method", .string("GET")), ("path", .string("/readyz")), ("again", .string(flag)))]
            + (0..<300).map { _ in Self.request(.prepare, server) }
        nonisolated(unsafe) var results: [Int: JSONValue] = [:]
        let done = DispatchGroup()
        done.enter()
        DispatchQueue.global().async {
            results = (try? HTTPPythonClient.run(plan, on: server, concurrency: 8)) ?? [:]
            done.leave()
        }
        // When SIGTERM comes in the middle
        Thread.sleep(forTimeInterval: 1.5)
        kill(server.pid, SIGTERM)
        Thread.sleep(forTimeInterval: 0.2)
        FileManager.default.createFile(atPath: flag, contents: Data())
        let (status, log) = server.stop()
        done.wait()
        // Then the server exits 0 after answering everything it accepted
        #expect(status == 0, "\(log)")
        #expect(!log.contains("still in flight"), "\(log)")
        // A request after SIGTERM finds the listening socket closed (readiness while draining:
        // drainAnswersAcceptedConnection); the first answers said Connection: close, so nothing was asked on them.
        for index in 1...2 {
            #expect(results[index]?["status"]?.intValue == 200, "\(results[index]?.serialized ?? "")")
            #expect(results[index]?["error"]?.stringValue == "ConnectionRefusedError", "\(results[index]?.serialized ?? "")")
        }
        var answered = 0, refused = 0
        for index in 3..<plan.count {
            let result = try #require(results[index])
            if let code = result["status"]?.intValue {
                // An answer is whole and right: the prepared file, or 503 for work that came during the drain.
                #expect(code == 200 || code == 503, "\(result.serialized)")
                #expect(result["length"]?.intValue == result["declared"]?.intValue, "a cut answer: \(result.serialized)")
                if code == 200 { #expect(Self.problem(.prepare, result) == nil); answered += 1 }
            } else {
                // Never accepted (the listening socket was closed): refused or reset before any answer.
                let error = result["error"]?.stringValue ?? ""
                #expect(["ConnectionRefusedError", "ConnectionResetError", "RemoteDisconnected", "BrokenPipeError"].contains(error), "\(result.serialized)")
                refused += 1
            }
        }
        #expect(answered > 0 && refused > 0, "answered \(answered), refused \(refused)")
        #expect(server.spoolLeftovers.isEmpty, "left in the spool: \(server.spoolLeftovers)")
        #expect(server.temporaries.isEmpty)
    }

    @Test("every answer says Connection: close; while draining, a connection accepted before SIGTERM gets readiness 503, a new one is refused", .needsPython)
    func drainAnswersAcceptedConnection() throws {
        let server = try HTTPServerProcess(["--jobs", "1", "--read-timeout", "3", "--drain", "10"])
        let url = server.folder.appendingPathComponent("drain.py")
        try Self.drainScript.write(to: url, atomically: true, encoding: .utf8)
        let result = try TestEnvironment.run("python3", [url.path, String(server.port), String(server.pid)])
        guard result.status == 0 else { throw HTTPTestError("the Python client failed: \(result.stderr)") }
        let out = try JSONValue.parse(result.stdout)
        let before = out["before"]?.arrayValue ?? [], during = out["during"]?.arrayValue ?? []
        #expect(before.first?.intValue == 200 && before.last?.stringValue == "close", "\(out.serialized)")
        #expect(during.count == 3 && during[0].intValue == 503 && during[1] == .bool(true) && during[2].intValue == 1, "\(out.serialized)")
        #expect(out["after"]?.stringValue == "ConnectionRefusedError", "\(out.serialized)")
        #expect(server.stop().status == 0)
    }
}
