import Foundation
import Testing
@testable import AttachKit

/// The `attachkit` executable as a user runs it: output lines, exit statuses, usage errors.
@Suite("attachkit command line")
struct CLITests {
    static func lines(_ text: String) -> [JSONValue] {
        text.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    }

    @Test("probe --json: one line per file, errors per file, other files still probed, exit 1")
    func probeJSON() throws {
        let files = ["images/gif_animated_320x240_24f.gif", "malformed/json_named_as.webp", "video/mp4_h264_aac_320x240_2s.mp4",
                     "malformed/zero_bytes.jpg", "does/not/exist.jpg"].map(TestEnvironment.fixture)
        let result = try TestEnvironment.runAttachKit(["probe", "--json"] + files)
        #expect(result.status == 1)
        let lines = Self.lines(result.stdout)
        try #require(lines.count == 5)
        #expect(lines[0]["kind"]?.stringValue == "image")
        #expect(lines[0]["frames"]?.intValue == 24)
        #expect(lines[1]["error"]?["code"]?.stringValue == "unrecognized-type")
        #expect(lines[2]["codec"]?.stringValue == "h264" && lines[2]["audioCodec"]?.stringValue == "aac")
        #expect(lines[3]["error"]?["code"]?.stringValue == "empty")
        #expect(lines[4]["error"]?["code"]?.stringValue == "not-found")
        #expect(result.stderr.isEmpty, "logs: \(result.stderr)")
    }

    @Test("help COMMAND prints that command's usage (exit 0); help help lists the commands; an unknown command or a second word is a usage error (exit 64)")
    func helpTopics() throws {
        let known = try TestEnvironment.runAttachKit(["help", "batch"])
        #expect(known.status == 0 && known.stdout.contains("usage: attachkit batch"), "\(known.stdout)")
        #expect(known.stdout.contains("143"), "batch's usage names the SIGTERM status")
        let unknown = try TestEnvironment.runAttachKit(["help", "bacth"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no command \"bacth\""), "\(unknown.stderr)")
        // help help is the command list; a second word is a usage error, not ignored
        let ofHelp = try TestEnvironment.runAttachKit(["help", "help"])
        #expect(ofHelp.status == 0 && ofHelp.stdout.contains("commands:"), "\(ofHelp.stdout)")
        let extra = try TestEnvironment.runAttachKit(["help", "batch", "extra"])
        #expect(extra.status == 64, "\(extra.stdout)")
        #expect(extra.stderr.contains("one command to explain"), "\(extra.stderr)")
    }

    @Test("probe of a folder walks it; all good files exit 0")
    func probeFolder() throws {
        let result = try TestEnvironment.runAttachKit(["probe", "--json", TestEnvironment.fixture("audio")])
        #expect(result.status == 0)
        #expect(Self.lines(result.stdout).count == InputWalker.files(under: TestEnvironment.fixture("audio")).count)
        #expect(Self.lines(result.stdout).allSatisfy { $0["kind"]?.stringValue == "audio" })
    }

    @Test("validate: exit 0 when all pass, 1 when any fails; JSON carries ok and diagnostics")
    func validateStatus() throws {
        let good = try TestEnvironment.runAttachKit(["validate", "--profile", "apple", TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")])
        #expect(good.status == 0)
        #expect(good.stdout.contains("1 pass, 0 fail"))
        let bad = try TestEnvironment.runAttachKit(["validate", "--json", "--profile", "apple",
                                                    TestEnvironment.fixture("images/heic_800x600.heic"),
                                                    TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")])
        #expect(bad.status == 1)
        let lines = Self.lines(bad.stdout)
        #expect(lines.count == 2)
        #expect(lines[0]["ok"] == .bool(false))
        #expect(lines[0]["diagnostics"]?.arrayValue?.first?["code"]?.stringValue == "unsupported-type")
        #expect(lines[0]["diagnostics"]?.arrayValue?.first?["fix"]?.stringValue == "convert HEIC→JPEG")
        #expect(lines[1]["ok"] == .bool(true))
    }

    @Test("validate --request counts attachments against the profile")
    func validateRequest() throws {
        let files = (0..<5).map { _ in TestEnvironment.fixture("images/gif_static_320x240.gif") }
        let result = try TestEnvironment.runAttachKit(["validate", "--request", "--json"] + files)
        #expect(result.status == 1)
        let request = try #require(Self.lines(result.stdout).first { $0["request"] == .bool(true) }, "\(result.stdout)")
        #expect(request["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } == ["too-many-attachments"], "\(request.serialized)")
    }

    @Test("usage errors exit 64 with the line that is wrong", arguments: [
        ["validate", "--profile", "android", "x.jpg"],
        ["validate", "--bogus", "x.jpg"],
        ["probe"],
        ["frobnicate"],
        ["validate", "--profile"],
    ])
    func usageErrors(arguments: [String]) throws {
        let result = try TestEnvironment.runAttachKit(arguments)
        #expect(result.status == 64)
        #expect(!result.stderr.isEmpty)
    }

    @Test("profile prints a policy that validate accepts back")
    func profileRoundTrip() throws {
        let printed = try TestEnvironment.runAttachKit(["profile", "apple"])
        #expect(printed.status == 0)
        let file = TestEnvironment.temporaryFolder("cli").appendingPathComponent("policy.json")
        var json = try JSONValue.parse(printed.stdout)
        if case .object(var pairs) = json { pairs.insert(("extends", .string("apple")), at: 0); json = .object(pairs) }
        try Data(json.serialized.utf8).write(to: file)
        let result = try TestEnvironment.runAttachKit(["validate", "--profile", file.path, TestEnvironment.fixture("images/heic_800x600.heic")])
        #expect(result.status == 1)
        #expect(result.stdout.contains("unsupported-type"))
    }
}
