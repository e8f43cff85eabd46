import Foundation
import Testing
@testable import AttachKit

/// The one codec at the worker boundary: a ``ServiceCall`` written as a request line and read
/// back is the same call; an answer line read back is the same answer; and `perform` gives the
/// same answer in a worker process as in this one.
@Suite("Service calls and answers cross the worker boundary unchanged")
struct ServiceCallCodecTests {
    /// Writes `call` as a line, parses and decodes it as a worker does.
    private func roundTrip(_ call: ServiceCall, progress: Bool = false) throws -> (call: ServiceCall, progress: Bool, line: String) {
        let line = call.request(progress: progress).line
        let decoded = try ServiceCall.decode(try ServiceRequest.parse(line), defaultProfile: .apple, asWorker: true)
        return (decoded.call, decoded.progress, line)
    }

    @Test("every kind of call reads back equal: operation, path, id, each option, and the worker-only ones")
    func callsRoundTrip() throws {
        var options = PrepareOptions(profile: .ios, outputFolder: "/out/ä folder")
        options.maxBytes = 1_500_000
        options.maxEdge = 1024
        options.trim = .exact
        options.start = 2.5
        options.deadline = 7
        options.thumbnail = true
        options.thumbnailRequest = ThumbnailRequest(size: 200, clip: try ClippingRect(x: 0.1, y: 0.2, width: 0.5, height: 0.5), time: 1.5)
        var prepare = ServiceCall.prepare("/in/photo \"1\".jpg", options: options, id: .string("r-1"))
        prepare.outputStem = "photo-2"
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("codec-\(getpid()).txt")
        try Data("x".utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        prepare.replacing = [try #require(FileVersion(path: input.path))]

        let back = try roundTrip(prepare, progress: true)
        #expect(back.progress)
        #expect(back.call.id == .string("r-1"))
        #expect(back.call.path == prepare.path)
        #expect(back.call.outputStem == "photo-2")
        #expect(back.call.replacing == prepare.replacing)
        guard case .prepare(let read) = back.call.work else { Issue.record("not a prepare: \(back.call.work)"); return }
        #expect(read.outputFolder == options.outputFolder)
        #expect(read.profile == .ios)
        #expect(read.fingerprint == options.fingerprint)
        #expect(read.deadline == 7 && read.start == 2.5 && read.trim == .exact && read.maxEdge == 1024)
        #expect(read.thumbnailRequest == options.thumbnailRequest)
        // Written again, the same text: nothing is lost or added on the way.
        #expect(back.call.request(progress: true).line == back.line)

        let validate = try roundTrip(.validate("/in/a.wav", profile: .standard, deep: true, id: .number(3)))
        guard case .validate(let profile, let deep) = validate.call.work else { Issue.record("not a validate"); return }
        #expect(profile == .standard && deep && validate.call.id == .number(3))

        let request = ThumbnailRequest(size: 96, frame: 4, quality: 60)
        let thumbnail = try roundTrip(.thumbnail("/in/a.gif", output: "/out/a.jpg", request: request))
        guard case .thumbnail(let output, let readRequest) = thumbnail.call.work else { Issue.record("not a thumbnail"); return }
        #expect(output == "/out/a.jpg" && readRequest == request)

        let probe = try roundTrip(.probe("/in/x"))
        #expect(probe.call.operation == .probe && probe.call.path == "/in/x" && !probe.progress)
    }

    @Test("a client cannot send the worker-only options; a worker's parent can")
    func workerOnlyOptionsAreTheParents() throws {
        var call = ServiceCall.prepare("/in/a.jpg", options: PrepareOptions(profile: .ios, outputFolder: "/out"))
        call.outputStem = "b"
        let request = call.request(progress: true)
        #expect(throws: ServiceError.self) { try ServiceCall.decode(request, defaultProfile: .ios) }
        let decoded = try ServiceCall.decode(request, defaultProfile: .ios, asWorker: true)
        #expect(decoded.call.outputStem == "b" && decoded.progress)
    }

    @Test("an answer line reads back equal; an unknown code reads as processing-failed; a line that is no answer is refused")
    func answersRoundTrip() throws {
        let answers = [
            ServiceAnswer(id: .parsedNumber(1.5, text: "1.50"), report: .object([("input", .string("/a")), ("ok", .bool(true))])),
            ServiceAnswer(id: .string("x"), report: .object([("ok", .bool(false))]), error: ServiceError(code: .cannotFit, message: "too big"),
                          sandbox: "landlock"),
            ServiceAnswer(id: .null, error: ServiceError(code: .badOptions, message: "maxBytes: no")),
        ]
        for answer in answers {
            let back = try ServiceAnswer(line: answer.line)
            #expect(back == answer)
            #expect(back.line == answer.line)
        }
        let unknown = try ServiceAnswer(line: #"{"id":1,"ok":false,"error":{"code":"from-the-future","message":"m"}}"#)
        #expect(unknown.error == ServiceError(code: .processingFailed, message: "m"))
        for line in ["", "[1]", #"{"id":1}"#, "not json"] {
            #expect(throws: ServiceError.self) { try ServiceAnswer(line: line) }
        }
    }

    @Test("a server's spool paths leave every text of an answer, however JSON would escape them; keys and other text stay")
    func spoolPathsLeaveTheAnswer() {
        // A folder name JSON must escape (a quote, a backslash, a control character): replacing
        // text in the serialized answer would miss it; the typed answer does not.
        let folder = "/spool/a\"b\\c\u{1}"
        let answer = ServiceAnswer(id: .string("r"), report: .object([
            ("input", .string(folder + "/in/photo.jpg")),
            ("output", .string(folder + "/out/photo.jpg")),
            ("notes", .array([.string("read " + folder + "/in/photo.jpg twice")])),
            (folder + "/in/", .string("a key stays")),
        ]), error: ServiceError(code: .corrupt, message: "cannot read \(folder)/in/photo.jpg"))
        let shown = answer.removing([folder + "/in/", folder + "/out/"])
        #expect(shown.report?["input"] == .string("photo.jpg"))
        #expect(shown.report?["output"] == .string("photo.jpg"))
        #expect(shown.report?["notes"] == .array([.string("read photo.jpg twice")]))
        #expect(shown.report?[folder + "/in/"] == .string("a key stays"))
        #expect(shown.error == ServiceError(code: .corrupt, message: "cannot read photo.jpg"))
        // The files themselves are still found through the answer as the work gave it.
        #expect(answer.output == folder + "/out/photo.jpg")
    }

    /// A new folder holding `photo.jpg` (a TestMedia JPEG); the folder and the photo's path.
    static func folderWithPhoto(_ name: String) throws -> (URL, String) {
        let root = TestEnvironment.temporaryFolder(name)
        let input = root.appendingPathComponent("photo.jpg").path
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_exif_orientation6_600x400.jpg"), toPath: input)
        return (root, input)
    }

    @Test("perform gives the same answer in a worker process as in this process, for every operation")
    func workersAnswerAsInProcess() async throws {
        let (root, input) = try Self.folderWithPhoto("codec-workers")
        defer { try? FileManager.default.removeItem(at: root) }
        let here = try AttachKitService(allow: [root.path], profile: .ios, jobs: 1, isolation: .inProcess)
        let isolated = try AttachKitService(allow: [root.path], profile: .ios, jobs: 1, isolation: .workers(WorkerLimits()))
        defer { isolated.shutDownWorkers() }
        var options = PrepareOptions(profile: .ios, outputFolder: root.path)
        options.maxEdge = 300
        options.thumbnail = true
        func calls(_ tag: String) -> [(String, ServiceCall)] {
            [("probe", .probe(input, id: .number(1))),
             ("validate", .validate(input, profile: .ios, deep: true, id: .number(2))),
             ("prepare", .prepare(input, options: options, id: .number(3))),
             ("thumbnail", .thumbnail(input, output: root.path + "/\(tag).jpg", request: ThumbnailRequest(size: 64, quality: 40), id: .number(4))),
             ("missing", .probe(root.path + "/none.jpg", id: .number(5)))]
        }
        for ((name, call), (_, other)) in zip(calls("here"), calls("isolated")) {
            let a = await here.perform(call)
            let b = await isolated.perform(other)
            #expect(a.id == call.id && b.id == call.id, "\(name)")
            #expect(a.error == b.error, "\(name)")
            #expect(a.sandbox == nil && b.sandbox != nil, "\(name)")
            // The same report but for what differs between any two runs: times and the output's
            // name (the second prepare finds the first's output there and takes another).
            let varying: Set<String> = ["elapsedMs", "output", "thumbnail", "outputName"]
            func steady(_ report: JSONValue?) -> JSONValue? {
                report?.objectValue.map { .object($0.filter { !varying.contains($0.0) }) } ?? report
            }
            #expect(steady(a.report) == steady(b.report), "\(name)")
            if name == "thumbnail" {
                let sizes = [a, b].compactMap { $0.output.flatMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int } }
                #expect(sizes.count == 2 && sizes[0] == sizes[1], "the quality crosses to the worker: \(sizes)")
            }
            if name == "prepare" {
                #expect(a.output != nil && b.output != nil && a.output != b.output)
                #expect(b.thumbnail.map { FileManager.default.fileExists(atPath: $0) } == true)
            }
        }
    }

    @Test("a request line just under the limit is answered by a worker as in-process, though the line the worker gets is longer (the profile's name becomes its policy)")
    func longLinesReachTheWorker() async throws {
        let (root, input) = try Self.folderWithPhoto("codec-long-line")
        defer { try? FileManager.default.removeItem(at: root) }
        let isolated = try AttachKitService(allow: [root.path], profile: .ios, jobs: 1, isolation: .workers(WorkerLimits()))
        defer { isolated.shutDownWorkers() }
        let tail = #"", "op": "validate", "path": "\#(input)", "options": {"profile": "ios"}}"#
        let id = String(repeating: "i", count: ServiceRequest.maxLineBytes - 100 - tail.utf8.count)
        let line = #"{"id": ""# + id + tail
        #expect(line.utf8.count < ServiceRequest.maxLineBytes)
        let answer = try ServiceAnswer(line: await isolated.respond(to: line))
        #expect(answer.error == nil, "\(String(describing: answer.error))")
        #expect(answer.id == .string(id))
    }
}

