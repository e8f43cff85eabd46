import Foundation
import Testing
@testable import AttachKit

/// The parts of `attachkit http` that need no socket: request targets, the report header's
/// encoding, listen addresses, metrics text, the status of every error code, and the bounded
/// client slots (connections, uploads).
@Suite("attachkit http: parts")
struct HTTPUnitTests {
    @Test("request targets: path and parameters, percent-decoded strictly")
    func targets() throws {
        let target = try RequestTarget.parse("/v1/prepare?maxBytes=5MB&name=my+photo%2E.jpg&thumbnail&&clip=0%2C0%2C1%2C1")
        #expect(target.path == "/v1/prepare")
        #expect(target.parameters.map(\.name) == ["maxBytes", "name", "thumbnail", "clip"])
        #expect(target.parameters.map(\.value) == ["5MB", "my photo..jpg", nil, "0,0,1,1"])
        for bad in ["/v1/probe?a=%zz", "/v1/probe?a=%4", "/v1/probe?=1", "/v1/probe?a=%00", "/v1/probe?a=%ff", "v1/probe",
                    "/" + String(repeating: "a", count: 9_000)] {
            do throws(ServiceError) {
                _ = try RequestTarget.parse(bad)
                Issue.record("accepted \(bad.prefix(40))")
            } catch {
                #expect(error.code == .malformedRequest)
            }
        }
    }

    @Test("base64url without padding, as RFC 4648's test vectors")
    func base64URL() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors { #expect(Base64URL.encode(Array(plain.utf8)) == encoded) }
        #expect(Base64URL.encode([0xfb, 0xff, 0xfe]) == "-__-")
    }

    @Test("listen addresses: numeric IPv4 or bracketed IPv6 with a port")
    func addresses() throws {
        #expect(try ListenAddress(parsing: "127.0.0.1:8080").description == "127.0.0.1:8080")
        #expect(try ListenAddress(parsing: "[::1]:0").isIPv6)
        for bad in ["localhost:80", "127.0.0.1", "1.2.3:80", "127.0.0.1:70000", "::1:80", ":80"] {
            #expect(throws: ServiceError.self, "\(bad)") { try ListenAddress(parsing: bad) }
        }
    }

    @Test("metrics: Prometheus text with counters, a cumulative histogram and the gauge")
    func metrics() {
        let metrics = HTTPMetrics()
        metrics.record(op: "prepare", status: 200, code: nil, seconds: 0.3, received: 1_000, sent: 500)
        metrics.record(op: "prepare", status: 422, code: .corrupt, seconds: 0.004, received: 10, sent: 80)
        let text = metrics.render(inFlight: 3, workerRestarts: 1)
        #expect(text.contains(#"attachkit_http_requests_total{op="prepare",outcome="ok",status="200"} 1"#))
        #expect(text.contains(#"attachkit_http_requests_total{op="prepare",outcome="corrupt",status="422"} 1"#))
        #expect(text.contains(#"attachkit_http_request_duration_seconds_bucket{op="prepare",le="0.005"} 1"#))
        #expect(text.contains(#"attachkit_http_request_duration_seconds_bucket{op="prepare",le="0.5"} 2"#))
        #expect(text.contains(#"attachkit_http_request_duration_seconds_bucket{op="prepare",le="+Inf"} 2"#))
        #expect(text.contains(#"attachkit_http_request_duration_seconds_count{op="prepare"} 2"#))
        #expect(text.contains("attachkit_http_received_bytes_total 1010\n"))
        #expect(text.contains("attachkit_http_sent_bytes_total 580\n"))
        #expect(text.contains("attachkit_http_requests_in_flight 3\n"))
        #expect(text.contains("# TYPE attachkit_http_requests_in_flight gauge"))
        #expect(text.contains("attachkit_worker_restarts_total 1\n"))
        #expect(text.contains(#"attachkit_http_refusals_total{code="corrupt"} 1"#))
        // The process metrics Prometheus' client libraries name, each one sample with its TYPE
        for (name, type) in [("process_resident_memory_bytes", "gauge"), ("process_cpu_seconds_total", "counter"),
                             ("process_open_fds", "gauge"), ("process_max_fds", "gauge"), ("process_start_time_seconds", "gauge"),
                             ("attachkit_worker_resident_memory_bytes", "gauge")] {
            #expect(text.contains("# TYPE \(name) \(type)\n"), "\(name)")
            let value = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            #expect(value != nil && value! >= 0, "\(name): \(String(describing: value))")
        }
        let resident = text.split(separator: "\n").first { $0.hasPrefix("process_resident_memory_bytes ") }.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
        #expect(resident > 1_000_000, "\(resident)")
        let started = text.split(separator: "\n").first { $0.hasPrefix("process_start_time_seconds ") }.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
        #expect(abs(started - Date().timeIntervalSince1970) < 24 * 3600, "\(started)")
    }

    @Test("X-Request-Id: a sane one is kept (1 to 128 visible ASCII, no quote or backslash); anything else is replaced")
    func requestIDs() throws {
        #expect(RequestHead.saneRequestID("abc-123_ABC.x") == "abc-123_ABC.x")
        for bad in ["", "a b", "a\"b", "a\\b", String(repeating: "x", count: 129), "é"] {
            #expect(RequestHead.saneRequestID(bad) == nil, "\(bad.debugDescription)")
        }
        let head = try RequestHead.parse(ArraySlice(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: job-7\r\n\r\n".utf8)))
        #expect(head.requestID == "job-7")
        let twice = try RequestHead.parse(ArraySlice(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\r\nX-Request-Id: b\r\n\r\n".utf8)))
        #expect(twice.requestID == nil)
    }

    @Test("metrics: an ending other than delivered counts its own outcome and status, and no refusal")
    func endingsRecorded() {
        let metrics = HTTPMetrics()
        metrics.record(op: "prepare", status: 200, code: nil, ending: .clientGone, seconds: 0.1, received: 10, sent: 0)
        metrics.record(op: "probe", status: 422, code: .corrupt, ending: .timedOut, seconds: 0.1, received: 10, sent: 0)
        let text = metrics.render(inFlight: 0, workerRestarts: 0)
        #expect(text.contains(#"attachkit_http_requests_total{op="prepare",outcome="client-gone",status="499"} 1"#), "\(text)")
        #expect(text.contains(#"attachkit_http_requests_total{op="probe",outcome="timed-out",status="408"} 1"#), "\(text)")
        #expect(!text.contains("attachkit_http_refusals_total{"), "\(text)")
    }

    @Test("the statuses issue 15 and issue 27 name, from the one table in ErrorCode")
    func statuses() {
        let expected: [ErrorCode: Int] = [.badOptions: 400, .malformedRequest: 400, .overCap: 413, .unrecognizedType: 415,
                                          .unsupported: 415, .corrupt: 422, .cannotFit: 422, .busy: 429,
                                          .processingFailed: 500, .crashed: 500, .unavailable: 503,
                                          .headerTooLarge: 431, .unsupportedCoding: 501, .unsupportedVersion: 505]
        for (code, status) in expected { #expect(code.httpStatus == status, "\(code)") }
    }

    @Test("ClientSlots: a total bound and a per-client bound, given back on release")
    func clientSlots() {
        let slots = ClientSlots(total: 3, perClient: 2)
        #expect(slots.take("a") == nil && slots.take("a") == nil)
        #expect(slots.take("a") == .clientFull)
        #expect(slots.take("b") == nil)
        #expect(slots.take("c") == .full && slots.isFull)
        slots.release("a")
        #expect(slots.take("c") == nil && slots.inUse == 3)
        slots.release("a"); slots.release("b"); slots.release("c")
        #expect(slots.inUse == 0 && slots.take("a") == nil && slots.take("a") == nil)
    }
}
