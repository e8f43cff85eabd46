import Foundation
@testable import AttachKit

/// One request to `attachkit http` and what must come back: the same table is sent with `curl`
/// and with Python's `http.client`.
struct HTTPCase: Sendable, CustomStringConvertible {
    enum Body: Sendable {
        case none
        /// A file of the server's allowed root, by name.
        case file(String)
        /// This many zero bytes.
        case zeros(Int)
        case text(String)
    }

    let name: String
    let method: String
    let path: String
    let body: Body
    let status: Int
    /// The error code of an error answer.
    let code: String?
    /// Send `Expect: 100-continue` and expect the answer before the body is sent.
    var expect100 = false
    /// The answer's `Content-Type` must start with this.
    var type: String?

    var description: String { name }

    /// Every endpoint and every error status of a server started with `--max-body 300KB` and the
    /// worker fault `crash:poison` (`HTTPServerProcess`).
    static func table(_ server: HTTPServerProcess) -> [HTTPCase] {
        let job = { (op: String, path: String) in #"{"op": "\#(op)", "path": "\#(path)"}"# }
        return [
            HTTPCase(name: "liveness", method: "GET", path: "/healthz", body: .none, status: 200, code: nil, type: "application/json"),
            HTTPCase(name: "readiness", method: "GET", path: "/readyz", body: .none, status: 200, code: nil, type: "application/json"),
            HTTPCase(name: "metrics", method: "GET", path: "/metrics", body: .none, status: 200, code: nil, type: "text/plain"),
            HTTPCase(name: "probe", method: "POST", path: "/v1/probe", body: .file("gif_static_320x240.gif"), status: 200, code: nil, type: "application/json"),
            HTTPCase(name: "validate", method: "POST", path: "/v1/validate?name=a.gif&profile=apple", body: .file("gif_static_320x240.gif"),
                     status: 200, code: nil, type: "application/json"),
            HTTPCase(name: "prepare", method: "POST", path: "/v1/prepare?name=photo.png&maxBytes=20KB", body: .file("png_palette_400x300.png"),
                     status: 200, code: nil, type: "image/"),
            HTTPCase(name: "prepare with a thumbnail", method: "POST", path: "/v1/prepare?name=photo.jpg&thumbnail=1&size=64",
                     body: .file("jpeg_named_as.png"), status: 200, code: nil, type: "multipart/mixed; boundary="),
            HTTPCase(name: "job", method: "POST", path: "/v1/jobs", body: .text(job("probe", server.file("gif_static_320x240.gif"))),
                     status: 200, code: nil, type: "application/json"),
            HTTPCase(name: "400 unknown option", method: "POST", path: "/v1/prepare?bogus=1", body: .file("gif_static_320x240.gif"),
                     status: 400, code: "bad-options"),
            HTTPCase(name: "400 option out of range", method: "POST", path: "/v1/prepare?maxEdge=3", body: .file("gif_static_320x240.gif"),
                     status: 400, code: "bad-options"),
            HTTPCase(name: "400 malformed query", method: "POST", path: "/v1/probe?name=%zz", body: .file("gif_static_320x240.gif"),
                     status: 400, code: "malformed-request"),
            HTTPCase(name: "400 malformed job", method: "POST", path: "/v1/jobs", body: .text("{not json"), status: 400, code: "malformed-request"),
            HTTPCase(name: "403 outside the roots", method: "POST", path: "/v1/jobs", body: .text(job("probe", "/etc/hostname")),
                     status: 403, code: "access-denied"),
            HTTPCase(name: "403 inside the spool", method: "POST", path: "/v1/jobs", body: .text(job("probe", server.spool.path + "/x")),
                     status: 403, code: "access-denied"),
            HTTPCase(name: "404 no such file", method: "POST", path: "/v1/jobs", body: .text(job("probe", server.file("missing.gif"))),
                     status: 404, code: "not-found"),
            HTTPCase(name: "404 no such endpoint", method: "GET", path: "/v2/nothing", body: .none, status: 404, code: "not-found"),
            HTTPCase(name: "405 wrong method", method: "GET", path: "/v1/prepare", body: .none, status: 405, code: "malformed-request"),
            HTTPCase(name: "413 over the body limit", method: "POST", path: "/v1/probe", body: .zeros(400_000), status: 413, code: "over-cap",
                     expect100: true),
            HTTPCase(name: "415 not media", method: "POST", path: "/v1/prepare", body: .file("json_named_as.webp"), status: 415,
                     code: "unrecognized-type"),
            HTTPCase(name: "415 encrypted", method: "POST", path: "/v1/prepare?name=clip.mp4", body: .file("mp4_encrypted_cenc_160x120.mp4"),
                     status: 415, code: "encrypted"),
            HTTPCase(name: "422 corrupt", method: "POST", path: "/v1/prepare?name=a.jpg", body: .file("jpeg_truncated_half.jpg"),
                     status: 422, code: "corrupt"),
            HTTPCase(name: "422 empty", method: "POST", path: "/v1/prepare", body: .none, status: 422, code: "empty"),
            HTTPCase(name: "500 a worker crashed", method: "POST", path: "/v1/prepare?name=poison.png", body: .file("png_palette_400x300.png"),
                     status: 500, code: "crashed"),
            HTTPCase(name: "504 deadline", method: "POST", path: "/v1/prepare?name=clip.webm&deadline=0.02", body: .file("webm_vp9_opus_320x240_2s.webm"),
                     status: 504, code: "deadline-exceeded"),
        ]
    }

    /// What came back, whichever client sent it.
    struct Answer {
        let status: Int
        let type: String
        let json: JSONValue?
        let report: JSONValue?
        let bodyBytes: Int
        var retryAfter: String?
    }

    /// Checks an answer against the case; the problems, empty when it is right.
    func problems(_ answer: Answer) -> [String] {
        var found: [String] = []
        if answer.status != status { found.append("status \(answer.status), expected \(status) (\(answer.json?.serialized ?? ""))") }
        if let code, answer.json?["code"]?.stringValue != code { found.append("code \(answer.json?["code"]?.serialized ?? "none"), expected \(code)") }
        if let type, !answer.type.hasPrefix(type) { found.append("Content-Type \(answer.type.debugDescription), expected \(type)…") }
        if code == "busy", answer.retryAfter != "1" { found.append("Retry-After \(answer.retryAfter ?? "missing")") }
        if code != nil, answer.json?["message"]?.stringValue?.isEmpty != false { found.append("no message") }
        if path.hasPrefix("/v1/prepare") && status == 200 {
            if answer.report?["ok"] != .bool(true) { found.append("AttachKit-Report: \(answer.report?.serialized ?? "missing")") }
            if answer.bodyBytes == 0 { found.append("empty body") }
            if answer.report?.serialized.contains("/r-") == true { found.append("the report shows spool paths") }
        }
        return found
    }
}
