import Foundation
import Testing
@testable import AttachKit

@Suite("Service protocol: request parsing and the line reader")
struct ServiceProtocolTests {
    @Test("a well-formed request parses; options stay raw until the operation reads them")
    func parses() throws {
        let request = try ServiceRequest.parse(#"{"id": 7, "op": "prepare", "path": "/x.jpg", "options": {"out": "/o", "maxBytes": 100000}}"#)
        #expect(request.id == .number(7))
        #expect(request.operation == .prepare)
        #expect(request.options.count == 2)
    }

    @Test("bad lines are rejected with a stable code and the id when readable", arguments: [
        ("not json", "malformed-request", JSONValue.null),
        ("[1,2]", "malformed-request", .null),
        (#"{"id": "a", "op": "explode", "path": "/x"}"#, "unknown-op", .string("a")),
        (#"{"id": 3, "op": "probe"}"#, "malformed-request", .number(3)),
        (#"{"id": 4, "op": "probe", "path": ""}"#, "malformed-request", .number(4)),
        (#"{"id": 5, "op": "probe", "path": "/x", "extra": 1}"#, "malformed-request", .number(5)),
        (#"{"id": 6, "op": "probe", "path": "/x", "options": 3}"#, "malformed-request", .number(6)),
        (#"{"id": 8, "op": 1, "path": "/x"}"#, "malformed-request", .number(8)),
        // Not valid JSON, but the id parses before the problem: the answer carries it.
        (#"{"id": 9, "op": "probe", "op": "validate", "path": "/x"}"#, "malformed-request", .number(9)),
        (#"{"id": "j", "op": "prepare", "path": "/x", "options": {"maxBytes": 1000, "maxBytes": 9000}}"#, "malformed-request", .string("j")),
        (#"{"id": 10, "op": "probe", "path": "/x", oops}"#, "malformed-request", .number(10)),
        (#"{"op": "probe", "id": [1, 2], "path": "/x""#, "malformed-request", .array([.number(1), .number(2)])),
        (#"{"op": "probe", "path": "/x", "options": {"a": tru}, "id": 11}"#, "malformed-request", .null),
        // A value the parser stops inside is no member: `01` is not the id 0.
        (#"{"id":01,"op":"probe","path":"/x"}"#, "malformed-request", .null),
    ])
    func rejects(line: String, code: ErrorCode, id: JSONValue) {
        do {
            _ = try ServiceRequest.parse(line)
            Issue.record("expected a rejection")
        } catch {
            #expect(error.error.code == code)
            #expect(error.id == id)
        }
    }

    @Test("two requests with one output folder and one name each get an output of their own; neither is replaced")
    func requestsNeverShareAnOutput() async throws {
        // Given x.png and x.webp in two folders, prepared one request at a time into one folder
        let root = TestEnvironment.temporaryFolder("one-out")
        for (folder, fixture) in [("in1/x.png", "images/png_rgb_opaque_400x300.png"), ("in2/x.webp", "images/webp_lossy_800x600.webp")] {
            let target = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: TestEnvironment.fixture(fixture), toPath: target.path)
        }
        let service = try AttachKitService(allow: [root.path], jobs: 1, isolation: .inProcess)
        let out = root.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        var outputs: [String] = []
        for input in ["in1/x.png", "in2/x.webp", "in1/x.png"] {
            let line = #"{"id":1,"op":"prepare","path":"\#(root.path)/\#(input)","options":{"out":"\#(out)"}}"#
            let answer = try JSONValue.parse(await service.respond(to: line))
            outputs.append(try #require(answer["result"]?["output"]?.stringValue, "\(answer)"))
        }
        // Then three distinct files (the PNG is handed over as it is), each still what its report
        // says (the first is 400 px wide)
        #expect(Set(outputs).count == 3, "\(outputs)")
        #expect(outputs.map(PathResolver.fileName) == ["x.png", "x-webp.jpg", "x-png.png"])
        #expect(try TestEnvironment.run("vipsheader", ["-f", "width", outputs[0]]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "400")
    }

    @Test("the Swift API and serve make a missing output folder inside an allowed root, as the CLI does; outside the roots nothing is made")
    func missingOutputFolder() async throws {
        let root = TestEnvironment.temporaryFolder("make-out")
        let outside = TestEnvironment.temporaryFolder("make-out-outside")
        let input = root.appendingPathComponent("x.gif").path
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/gif_static_320x240.gif"), toPath: input)
        let service = try AttachKitService(allow: [root.path], jobs: 1, isolation: .inProcess)
        // The typed API
        let report = try await service.prepare(path: input, options: PrepareOptions(outputFolder: root.appendingPathComponent("new/sub").path))
        #expect(report.ok, "\(String(describing: report.error))")
        #expect(FileSystem.isDirectory(root.appendingPathComponent("new/sub").path))
        // The JSON Lines protocol
        let answer = try JSONValue.parse(await service.respond(to: #"{"id":1,"op":"prepare","path":"\#(input)","options":{"out":"\#(root.path)/other"}}"#))
        #expect(answer["ok"]?.boolValue == true, "\(answer)")
        // Outside the roots: refused, and nothing made there
        let refused = try await service.prepare(path: input, options: PrepareOptions(outputFolder: outside.appendingPathComponent("nope").path))
        #expect(!refused.ok && refused.output == nil, "\(String(describing: refused.error))")
        #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("nope").path))
    }

    @Test("concurrent requests for one name into one folder all succeed, each with an output of its own")
    func concurrentRequestsShareNoOutput() async throws {
        let root = TestEnvironment.temporaryFolder("race")
        let photo = root.appendingPathComponent("photo.jpg").path
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg"), toPath: photo)
        let out = root.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let service = try AttachKitService(allow: [root.path], jobs: 4, isolation: .inProcess)
        let line = #"{"id":1,"op":"prepare","path":"\#(photo)","options":{"out":"\#(out)","maxEdge":800}}"#
        let answers = await withTaskGroup(of: String.self) { group in
            for _ in 0..<6 { group.addTask { await service.respond(to: line) } }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        let outputs = try answers.map { try #require(try JSONValue.parse($0)["result"]?["output"]?.stringValue, "\($0)") }
        #expect(Set(outputs).count == 6, "\(outputs)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out).filter { !$0.hasPrefix(".") }
        #expect(written.count == 6, "\(written)")
    }

    @Test("a path holding a NUL is refused as such, not as an empty or missing path")
    func nulInPath() {
        do {
            _ = try ServiceRequest.parse(#"{"id": 1, "op": "probe", "path": "/in/a\u0000b.jpg"}"#)
            Issue.record("expected a rejection")
        } catch {
            #expect(error.error.code == .malformedRequest)
            #expect(error.id == .number(1))
            #expect(error.error.message == #""path" contains a NUL character (\u0000) at character 5: no file path can hold one"#)
        }
    }

    /// Request ids as a client may send them, each the text it must get back: numbers a `Double`
    /// would round or reformat (2^53 + 1 and 2^53 would collide), strings, null, structures.
    static let idTexts = [
        "1", "1.50", "-0", "1e3", "1E+3", "-2.5e-3", "9007199254740993", "9007199254740992", "123456789012345678901234567890",
        #""a""#, #""9007199254740993""#, "null", "[1,2.50]", #"{"k":1.0}"#,
    ]

    /// The id text of a response line: what sits between `{"id":` and `,"ok":`.
    static func idText(_ response: String) -> String? {
        guard response.hasPrefix(#"{"id":"#), let end = response.range(of: #","ok":"#) else { return nil }
        return String(response[response.index(response.startIndex, offsetBy: 6)..<end.lowerBound])
    }

    @Test("respond(to:) echoes the id exactly as sent, answered or refused", arguments: idTexts)
    func idEcho(id: String) async throws {
        let service = try AttachKitService(allow: [TestEnvironment.testMedia.path], jobs: 1)
        let path = TestEnvironment.fixture("images/gif_static_320x240.gif")
        let answered = await service.respond(to: #"{"id": \#(id), "op": "probe", "path": "\#(path)"}"#)
        #expect(Self.idText(answered) == id, "\(answered.prefix(80))")
        #expect(try JSONValue.parse(answered)["ok"] == .bool(true), "\(answered.prefix(200))")
        let refused = await service.respond(to: #"{"id": \#(id), "op": "explode", "path": "\#(path)"}"#)
        #expect(Self.idText(refused) == id, "\(refused.prefix(80))")
        #expect(try JSONValue.parse(refused)["error"]?["code"]?.stringValue == "unknown-op", "\(refused.prefix(200))")
    }

    @Test("the line reader caps line length and keeps going")
    func lineReader() throws {
        let url = TestEnvironment.temporaryFolder("lines").appendingPathComponent("in.txt")
        let long = String(repeating: "x", count: 300_000)
        try Data("first\n\(long)\nthird\nlast-no-newline".utf8).write(to: url)
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        var reader = LineReader(fd: fd, maxBytes: 100_000)
        #expect(reader.next() == .text("first"))
        #expect(reader.next() == .tooLong(bytes: 300_000))
        #expect(reader.next() == .text("third"))
        #expect(reader.next() == .text("last-no-newline"))
        #expect(reader.next() == nil)
    }
}
