import Foundation
import Testing
@testable import AttachKit

/// Every endpoint and every error status of `attachkit http`, with real clients on 127.0.0.1.
@Suite("attachkit http: endpoints and errors", .serialized)
struct HTTPEndpointTests {
    static let serverArguments = ["--jobs", "2", "--max-body", "300KB", "--read-timeout", "2"]

    @Test("curl: every endpoint and error status", .needsCurl)
    func curl() throws {
        let server = try HTTPServerProcess(Self.serverArguments, fault: "crash:poison")
        for item in HTTPCase.table(server) {
            let answer = try Self.curl(item, server)
            #expect(item.problems(answer).isEmpty, "\(item): \(item.problems(answer))")
        }
        let (status, log) = server.stop()
        #expect(status == 0, "\(log)")
        #expect(server.spoolLeftovers.isEmpty, "left in the spool: \(server.spoolLeftovers)")
        #expect(server.temporaries.isEmpty)
    }

    @Test("Python http.client: every endpoint and error status, and the metrics count them", .needsPython)
    func python() throws {
        let server = try HTTPServerProcess(Self.serverArguments, fault: "crash:poison")
        let table = HTTPCase.table(server)
        let results = try HTTPPythonClient.run(table.map { Self.spec($0, server) }, on: server)
        for (index, item) in table.enumerated() {
            let result = try #require(results[index], "\(item): no result")
            #expect(result["error"] == nil, "\(item): \(result.serialized)")
            let answer = HTTPCase.Answer(status: result["status"]?.intValue ?? 0, type: result["type"]?.stringValue ?? "",
                                         json: result["json"], report: result["report"], bodyBytes: result["length"]?.intValue ?? 0,
                                         retryAfter: result["retryAfter"]?.stringValue)
            #expect(item.problems(answer).isEmpty, "\(item): \(item.problems(answer))")
            #expect(result["declared"]?.intValue == result["length"]?.intValue, "\(item): body length differs from Content-Length")
        }
        // The metrics counted what was answered, by endpoint, outcome and code.
        let metrics = try HTTPPythonClient.run([HTTPPythonClient.spec(("method", .string("GET")), ("path", .string("/metrics")))], on: server)
        let text = metrics[0]?["text"]?.stringValue ?? ""
        #expect(text.contains(#"attachkit_http_requests_total{op="prepare",outcome="corrupt",status="422"} 1"#), "\(text)")
        #expect(text.contains(#"attachkit_http_refusals_total{code="crashed"} 1"#))
        #expect(text.contains(#"attachkit_http_request_duration_seconds_bucket{op="probe",le="+Inf"} 2"#))
        #expect(text.contains("attachkit_worker_restarts_total 1"))
        #expect(text.contains("attachkit_http_requests_in_flight 0"))
        let (status, log) = server.stop()
        #expect(status == 0, "\(log)")
        #expect(server.spoolLeftovers.isEmpty, "left in the spool: \(server.spoolLeftovers)")
    }

    @Test("429 when every work slot is held by work, with Retry-After; readiness stays 200 (busy is not unready) and health answers; the slot is free once the work ends; curl", .needsCurl)
    func busy() throws {
        let server = try HTTPServerProcess(["--jobs", "1", "--queue", "0", "--worker-timeout", "3"], fault: "hang:hold.gif")
        // Given the only work slot held by a request whose worker hangs (until --worker-timeout)
        let holder = Process(), holderStatus = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@" + server.file("gif_static_320x240.gif"),
                            server.url + "/v1/probe?name=hold.gif"]
        holder.standardOutput = holderStatus
        try holder.run()
        Thread.sleep(forTimeInterval: 1)
        // When another request comes
        let item = HTTPCase(name: "429", method: "POST", path: "/v1/probe", body: .file("gif_static_320x240.gif"), status: 429, code: "busy")
        let answer = try Self.curl(item, server)
        // Then it is refused at once (429 says busy), readiness stays 200 (a load balancer that
        // took a busy instance out would send its share to the others: HTTPOperationsTests), and
        // health answers
        #expect(item.problems(answer).isEmpty, "\(item.problems(answer))")
        let ready = try Self.curl(HTTPCase(name: "readiness", method: "GET", path: "/readyz", body: .none, status: 200, code: nil), server)
        #expect(ready.status == 200 && ready.json?["status"]?.stringValue == "ready", "\(ready.json?.serialized ?? "")")
        let health = try Self.curl(HTTPCase(name: "health", method: "GET", path: "/healthz", body: .none, status: 200, code: nil), server)
        #expect(health.status == 200)
        // And once the work ends (the hung worker is timed out: 504), the slot is free again
        holder.waitUntilExit()
        let held = String(decoding: holderStatus.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(held == "504", "the held request got \(held)")
        let again = try Self.curl(HTTPCase(name: "after", method: "POST", path: "/v1/probe", body: .file("gif_static_320x240.gif"), status: 200, code: nil), server)
        #expect(again.status == 200)
        let readyAgain = try Self.curl(HTTPCase(name: "readiness", method: "GET", path: "/readyz", body: .none, status: 200, code: nil), server)
        #expect(readyAgain.status == 200)
        let (status, log) = server.stop()
        #expect(status == 0, "\(log)")
        #expect(server.spoolLeftovers.isEmpty, "left in the spool: \(server.spoolLeftovers)")
    }

    @Test("slow clients are cut off after --read-timeout (body or headers one byte at a time); others are served meanwhile", .needsPython)
    func slowClients() throws {
        let server = try HTTPServerProcess(["--jobs", "2", "--read-timeout", "2"])
        let plan = [
            HTTPPythonClient.spec(("slow", .string("body")), ("path", .string("/v1/probe")), ("limit", .number(10))),
            HTTPPythonClient.spec(("slow", .string("headers")), ("path", .string("/v1/probe")), ("limit", .number(10))),
            HTTPPythonClient.spec(("method", .string("POST")), ("path", .string("/v1/probe")),
                                  ("file", .string(server.file("gif_static_320x240.gif"))), ("delay", .number(0.5))),
        ]
        let results = try HTTPPythonClient.run(plan, on: server, concurrency: 3)
        for index in 0..<2 {
            let cut = try #require(results[index]?["cut"]?.doubleValue, "not cut off: \(results[index]?.serialized ?? "")")
            #expect(cut >= 1.9 && cut < 4.5, "cut after \(cut) s")
        }
        #expect(results[2]?["status"]?.intValue == 200)
        let (status, log) = server.stop()
        #expect(status == 0, "\(log)")
        #expect(server.spoolLeftovers.isEmpty, "left in the spool: \(server.spoolLeftovers)")
    }

    @Test("a query key given twice is 400 bad-options naming it (a bad first value is never skipped)", .needsCurl)
    func repeatedQueryKeys() throws {
        let server = try HTTPServerProcess(["--jobs", "1"])
        for query in ["maxEdge=abc&maxEdge=200", "maxEdge=100&maxEdge=200", "name=a.gif&name=b.png"] {
            let item = HTTPCase(name: query, method: "POST", path: "/v1/prepare?" + query, body: .file("gif_static_320x240.gif"),
                                status: 400, code: "bad-options")
            let answer = try Self.curl(item, server)
            #expect(item.problems(answer).isEmpty, "\(query): \(item.problems(answer))")
            let key = String(query.prefix { $0 != "=" })
            #expect(answer.json?["message"]?.stringValue?.contains("\"\(key)\" more than once") == true, "\(answer.json?.serialized ?? "")")
        }
        #expect(server.stop().status == 0)
    }

    @Test("nothing of the spool reaches the client: a multipart answer's boundary is random; a /v1/jobs path longer than PATH_MAX is refused at once", .needsCurl)
    func spoolStaysPrivate() throws {
        let server = try HTTPServerProcess(["--jobs", "1"])
        let headers = server.folder.appendingPathComponent("boundary-headers")
        _ = try TestEnvironment.run("curl", ["-s", "-o", "/dev/null", "-D", headers.path, "--data-binary", "@" + server.file("jpeg_named_as.png"),
                                             server.url + "/v1/prepare?name=photo.jpg&thumbnail=1&size=64"])
        let type = try String(contentsOf: headers, encoding: .utf8).split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }
        let boundary = try #require(type?.split(separator: "boundary=").last.map(String.init), "\(String(describing: type))")
        #expect(boundary.wholeMatch(of: /attachkit-[0-9a-f]{32}/) != nil, "\(boundary)")
        // No path longer than PATH_MAX is walked (the spool check goes folder by folder).
        let body = server.folder.appendingPathComponent("long-job.json")
        try Data((#"{"op": "probe", "path": ""# + String(repeating: "a/", count: 300_000) + #"x"}"#).utf8).write(to: body)
        let answer = try TestEnvironment.run("curl", ["-s", "--data-binary", "@" + body.path, server.url + "/v1/jobs"])
        #expect(try JSONValue.parse(answer.stdout)["code"] == .string("malformed-request"), "\(answer.stdout.prefix(300))")
        let (status, log) = server.stop()
        #expect(status == 0, "\(log)")
    }

    // MARK: Clients

    /// Sends a case with `curl`.
    static func curl(_ item: HTTPCase, _ server: HTTPServerProcess) throws -> HTTPCase.Answer {
        let body = server.folder.appendingPathComponent("curl-body"), headers = server.folder.appendingPathComponent("curl-headers")
        var arguments = ["-s", "-X", item.method, "-o", body.path, "-D", headers.path, "-w", "%{http_code}"]
        switch item.body {
        case .none: break
        case .file(let name): arguments += ["--data-binary", "@" + server.file(name)]
        case .zeros(let count):
            let file = server.folder.appendingPathComponent("zeros")
            try Data(count: count).write(to: file)
            arguments += ["--data-binary", "@" + file.path]
        case .text(let text): arguments += ["--data-binary", text]
        }
        if item.expect100 { arguments += ["-H", "Expect: 100-continue"] }
        let result = try TestEnvironment.run("curl", arguments + [server.url + item.path])
        let data = (try? Data(contentsOf: body)) ?? Data()
        let headerLines = (try? String(contentsOf: headers, encoding: .utf8))?.split(separator: "\r\n") ?? []
        func header(_ name: String) -> String? {
            headerLines.last { $0.lowercased().hasPrefix(name.lowercased() + ":") }.map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
        let type = header("Content-Type") ?? ""
        let report = header("AttachKit-Report").flatMap(Self.decodeBase64URL).flatMap { try? JSONValue.parse($0) }
        let json = type.hasPrefix("application/json") ? try? JSONValue.parse(String(decoding: data, as: UTF8.self)) : nil
        return HTTPCase.Answer(status: Int(result.stdout) ?? 0, type: type, json: json, report: report, bodyBytes: data.count,
                               retryAfter: header("Retry-After"))
    }

    static func decodeBase64URL(_ text: String) -> String? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A case as a Python client's plan entry.
    static func spec(_ item: HTTPCase, _ server: HTTPServerProcess) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("method", .string(item.method)), ("path", .string(item.path))]
        switch item.body {
        case .none: break
        case .file(let name): pairs.append(("file", .string(server.file(name))))
        case .zeros(let count): pairs.append(("zeros", .number(Double(count))))
        case .text(let text): pairs.append(("text", .string(text)))
        }
        if item.expect100 { pairs.append(("expect100", .bool(true))) }
        return .object(pairs)
    }
}
