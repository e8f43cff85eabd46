import Foundation
import Testing
@testable import AttachKit

/// Every verb and front end plans what it writes against its inputs (``WritePlan``): an output
/// named as the input, as its case twin, or as a hard or symbolic link to it is refused
/// (`output-collision`) or given another name, and the input's bytes are the same afterwards.
@Suite("Inputs are never replaced, by any verb or front end", .serialized)
struct InputsNeverReplacedTests {
    /// A folder holding `a.jpg` (a photo), its hard link `hard.jpg` and a symbolic link `soft.jpg`.
    static func photoFolder(_ name: String = #function) throws -> URL {
        let folder = TestEnvironment.temporaryFolder(name)
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg"), toPath: folder.appendingPathComponent("a.jpg").path)
        #expect(link(folder.appendingPathComponent("a.jpg").path, folder.appendingPathComponent("hard.jpg").path) == 0)
        #expect(symlink("a.jpg", folder.appendingPathComponent("soft.jpg").path) == 0)
        return folder
    }

    /// SHA-256 of every file in `folder` (links followed), by name.
    static func hashes(_ folder: URL) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix(".") {
            hashes[name] = SHA256.hex(try Data(contentsOf: folder.appendingPathComponent(name)))
        }
        return hashes
    }

    static let targets = ["a.jpg", "A.JPG", "hard.jpg", "soft.jpg"]

    @Test("attachkit thumbnail: --out equal to the input, its case twin, a hard link or a symbolic link to it is output-collision; nothing changes")
    func thumbnailCLI() throws {
        let folder = try Self.photoFolder()
        let before = try Self.hashes(folder)
        for target in Self.targets {
            let result = try TestEnvironment.runAttachKit(["thumbnail", folder.appendingPathComponent("a.jpg").path, "--json",
                                                           "--out", folder.appendingPathComponent(target).path])
            #expect(result.status == 1, "\(target): \(result.stderr)")
            let report = try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(report["error"]?["code"]?.stringValue == "output-collision", "\(target): \(result.stdout)")
            #expect(report["output"] == nil)
        }
        #expect(try Self.hashes(folder) == before)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("A.JPG").path))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder.appendingPathComponent("soft.jpg").path)) == "a.jpg")
    }

    @Test("attachkit prepare --thumbnail into the inputs' folder: h.webp's thumbnail never lands on the input h.thumbnail.jpg, nor an output on its input")
    func prepareCLI() throws {
        // Given h.webp and h.thumbnail.jpg in DIR, prepared with --out DIR
        let folder = TestEnvironment.temporaryFolder("prepare-into-inputs")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/webp_lossy_800x600.webp"), toPath: folder.appendingPathComponent("h.webp").path)
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg"), toPath: folder.appendingPathComponent("h.thumbnail.jpg").path)
        let before = try Self.hashes(folder)
        let result = try TestEnvironment.runAttachKit(["prepare", "--thumbnail", "--json", "--out", folder.path,
                                                       folder.appendingPathComponent("h.webp").path, folder.appendingPathComponent("h.thumbnail.jpg").path])
        #expect(result.status == 0, "\(result.stderr)")
        let reports = try result.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }

        // Then both inputs are unchanged, the four files written are distinct and each says why it was renamed
        #expect(try Self.hashes(folder).filter { before.keys.contains($0.key) } == before)
        let written = reports.flatMap { [$0["output"]?.stringValue, $0["thumbnail"]?.stringValue].compactMap { $0 } }
        #expect(written.count == 4 && Set(written).count == 4, "\(written)")
        #expect(!written.contains { before.keys.contains(PathResolver.fileName($0)) }, "\(written)")
        #expect(reports.allSatisfy { $0["outputName"]?["reason"]?.stringValue != nil }, "\(result.stdout)")
        // And the photo was prepared from itself, not from h.webp's thumbnail
        let photo = try #require(reports.first { $0["input"]?.stringValue?.hasSuffix("h.thumbnail.jpg") == true })
        #expect(photo["before"]?["width"]?.intValue == 1600 && photo["before"]?["height"]?.intValue == 1200)
    }

    @Test("attachkit serve: a thumbnail onto its input is output-collision; a prepare into the input's folder gets another name; nothing changes")
    func serve() throws {
        let folder = try Self.photoFolder()
        let before = try Self.hashes(folder)
        let input = folder.appendingPathComponent("a.jpg").path
        var lines = Self.targets.enumerated().map { index, target in
            JSONValue.object([("id", .number(Double(index))), ("op", .string("thumbnail")), ("path", .string(input)),
                              ("options", .object([("out", .string(folder.appendingPathComponent(target).path))]))]).serialized
        }
        lines.append(JSONValue.object([("id", .number(9)), ("op", .string("prepare")), ("path", .string(input)),
                                       ("options", .object([("out", .string(folder.path))]))]).serialized)
        let result = try TestEnvironment.runAttachKit(["serve", "--allow", folder.path, "--jobs", "1"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let answers = try result.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(answers.count == lines.count)
        for answer in answers where answer["id"]?.intValue != 9 {
            #expect(answer["error"]?["code"]?.stringValue == "output-collision", "\(answer.serialized)")
        }
        let prepared = try #require(answers.first { $0["id"]?.intValue == 9 })
        #expect(prepared["ok"]?.boolValue == true, "\(prepared.serialized)")
        #expect(prepared["result"]?["output"]?.stringValue?.hasSuffix("/a-jpg.jpg") == true, "\(prepared.serialized)")
        #expect(try Self.hashes(folder).filter { before.keys.contains($0.key) } == before)
    }

    @Test("attachkit http: POST /v1/jobs with a thumbnail onto its input is 409 output-collision; nothing changes", .needsCurl)
    func httpJobs() throws {
        let server = try HTTPServerProcess(["--jobs", "1"])
        let input = server.file("png_palette_400x300.png")
        let before = SHA256.hex(try Data(contentsOf: URL(fileURLWithPath: input)))
        for target in [input, server.file("PNG_palette_400x300.png")] {
            let body = JSONValue.object([("op", .string("thumbnail")), ("path", .string(input)), ("options", .object([("out", .string(target))]))]).serialized
            let out = server.folder.appendingPathComponent("answer.json")
            let result = try TestEnvironment.run("curl", ["-s", "-o", out.path, "-w", "%{http_code}", "--data-binary", body, server.url + "/v1/jobs"])
            #expect(result.stdout == "409", "\(target): \(result.stdout)")
            let answer = try JSONValue.parse(String(decoding: try Data(contentsOf: out), as: UTF8.self))
            #expect(answer["code"]?.stringValue == "output-collision", "\(answer.serialized)")
        }
        #expect(SHA256.hex(try Data(contentsOf: URL(fileURLWithPath: input))) == before)
        #expect(server.stop().status == 0)
    }

    @Test("attachkit http: POST /v1/prepare of x.thumbnail.jpg with thumbnail=1 answers the photo and its thumbnail as two distinct files", .needsCurl)
    func httpPrepare() throws {
        let server = try HTTPServerProcess(["--jobs", "1"])
        let photo = TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")
        let body = server.folder.appendingPathComponent("answer.multipart"), headers = server.folder.appendingPathComponent("headers")
        let result = try TestEnvironment.run("curl", ["-s", "-o", body.path, "-D", headers.path, "-w", "%{http_code}", "--data-binary", "@" + photo,
                                                      server.url + "/v1/prepare?name=x.thumbnail.jpg&thumbnail=1"])
        #expect(result.stdout == "200")
        let data = try Data(contentsOf: body)
        let type = try String(contentsOf: headers, encoding: .utf8).split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") } ?? ""
        let boundary = "--" + String(try #require(type.split(separator: "=").last))
        // Each part: its headers, a blank line, the file, CRLF before the next boundary.
        let parts = try Self.parts(of: data, boundary: boundary)
        #expect(parts.map(\.name) == ["x.thumbnail.jpg", "x.thumbnail.thumbnail.jpg"], "\(parts.map(\.name))")
        var sizes: [[Int]] = []
        for (index, part) in parts.enumerated() {
            let file = server.folder.appendingPathComponent("part\(index).jpg")
            try part.bytes.write(to: file)
            let width = try TestEnvironment.run("vipsheader", ["-f", "width", file.path]).stdout
            let height = try TestEnvironment.run("vipsheader", ["-f", "height", file.path]).stdout
            sizes.append([width, height].compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        }
        #expect(sizes == [[1600, 1200], [320, 240]], "\(sizes)")
        #expect(server.stop().status == 0)
    }

    /// The parts of a `multipart/mixed` body: each one's file name and bytes.
    static func parts(of data: Data, boundary: String) throws -> [(name: String, bytes: Data)] {
        let bytes = [UInt8](data), marker = Array(boundary.utf8), blank = Array("\r\n\r\n".utf8)
        var starts: [Int] = []
        var index = 0
        while index + marker.count <= bytes.count {
            if bytes[index..<(index + marker.count)].elementsEqual(marker) { starts.append(index); index += marker.count } else { index += 1 }
        }
        var parts: [(name: String, bytes: Data)] = []
        for (start, end) in zip(starts, starts.dropFirst()) {
            let section = Array(bytes[(start + marker.count)..<(end - 2)])
            guard let split = (0...(section.count - blank.count)).first(where: { section[$0..<($0 + blank.count)].elementsEqual(blank) }) else { continue }
            let head = String(decoding: section[..<split], as: UTF8.self)
            let name = head.components(separatedBy: "filename=\"").last?.components(separatedBy: "\"").first ?? ""
            parts.append((name, Data(section[(split + blank.count)...])))
        }
        return parts
    }

    @Test("the Swift API: thumbnail onto the input is refused, prepare into the input's folder is renamed; nothing changes")
    func swiftAPI() async throws {
        let folder = try Self.photoFolder()
        let before = try Self.hashes(folder)
        let service = try AttachKitService(allow: [folder.path], jobs: 1)
        let input = folder.appendingPathComponent("a.jpg").path
        for target in Self.targets {
            let report = try await service.thumbnail(path: input, output: folder.appendingPathComponent(target).path)
            #expect(report.error?.code == .outputCollision, "\(target): \(report.json.serialized)")
        }
        let prepared = try await service.prepare(path: input, options: PrepareOptions(outputFolder: folder.path, thumbnail: true))
        #expect(prepared.ok, "\(prepared.json.serialized)")
        #expect(prepared.output.map(PathResolver.fileName) == "a-jpg.jpg" && prepared.thumbnail.map(PathResolver.fileName) == "a-jpg.thumbnail.jpg")
        #expect(prepared.outputName?.reason == "a.jpg is the input \(input)")
        #expect(try Self.hashes(folder).filter { before.keys.contains($0.key) } == before)
        #expect(service.ledger.report.isClean)
    }
}
