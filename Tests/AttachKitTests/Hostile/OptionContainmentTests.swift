import Foundation
import Testing
@testable import AttachKit

/// Absurd option values are refused at every edge with the same ranges: the CLI exits 64 naming
/// the flag, `serve` answers `bad-options` naming the key, a policy names its key path. No value
/// reaches the arithmetic that used to trap (SIGILL) or lie (`corrupt` for a tiny budget).
@Suite("Option containment")
struct OptionContainmentTests {
    /// One option under its three names, and values each front end must refuse.
    struct Case: Sendable, CustomStringConvertible {
        let flag: String
        let key: String
        /// The command the flag belongs to.
        let verb: String
        /// Refused as text on the command line.
        let text: [String]
        /// Refused as a JSON value in a `serve` request (written as JSON).
        let json: [String]
        var description: String { key }
    }

    static let tinyNumbers = ["1e-12", "1e-300", "-0", "0"]
    static let absurdNumbers = ["1e308", "-1", "nan", "inf", "-inf", "99999999999999999999999", "1e400", "0x1p70"]
    /// (`1e400` is not here: the service test sends it alone and checks the id is kept.)
    static let absurdJSON = ["1e308", "-1", "99999999999999999999999", "\"nan\"", "\"inf\"", "\"5MB\"", "true", "[1]"]

    static let cases: [Case] = [
        Case(flag: "max-duration", key: "maxDuration", verb: "prepare", text: tinyNumbers + absurdNumbers + ["0.09"],
             json: ["1e-12", "1e-300", "-0", "0", "0.09", "14400.5"] + absurdJSON),
        // (serve reads a byte count written as a string the way the command line reads it: "5MB" is fine.)
        Case(flag: "max-bytes", key: "maxBytes", verb: "prepare", text: tinyNumbers + absurdNumbers + ["999", "2.5TB", "3000GB", "0.5KB"],
             json: ["1e-12", "0", "999", "1000.5", "2000000000001", "\"999\"", "\"2.5TB\"", "\"0.5KB\""] + absurdJSON.filter { $0 != "\"5MB\"" }),
        Case(flag: "max-edge", key: "maxEdge", verb: "prepare", text: tinyNumbers + absurdNumbers + ["15", "65536", "100.5", "1e5"],
             json: ["1e-12", "0", "15", "65536", "100.5"] + absurdJSON),
        Case(flag: "max-frames", key: "maxFrames", verb: "prepare", text: tinyNumbers + absurdNumbers + ["200000", "100001"],
             json: ["0", "200000", "100001", "2.5"] + absurdJSON),
        Case(flag: "start", key: "start", verb: "prepare", text: absurdNumbers + ["14401", "-1e-12"],
             json: ["14401", "-1e-12"] + absurdJSON),
        Case(flag: "deadline", key: "deadline", verb: "prepare", text: tinyNumbers + absurdNumbers + ["86401"],
             json: ["1e-12", "1e-300", "-0", "0", "86401"] + absurdJSON),
        Case(flag: "quality-floor", key: "qualityFloor", verb: "prepare", text: tinyNumbers + absurdNumbers + ["101", "50.5"],
             json: ["0", "101", "50.5"] + absurdJSON),
        Case(flag: "verify-seconds", key: "verifySeconds", verb: "prepare", text: tinyNumbers + absurdNumbers + ["0.5", "14401"],
             json: ["1e-12", "-0", "0", "0.5", "14401"] + absurdJSON),
        Case(flag: "size", key: "size", verb: "thumbnail", text: tinyNumbers + absurdNumbers + ["15", "4097"],
             json: ["0", "15", "4097", "320.5"] + absurdJSON),
        Case(flag: "frame", key: "frame", verb: "thumbnail", text: absurdNumbers + ["1000001", "1.5"],
             json: ["1000001", "1.5"] + absurdJSON),
        Case(flag: "at", key: "at", verb: "thumbnail", text: absurdNumbers + ["14401"],
             json: ["14401", "-1e-12"] + absurdJSON),
    ]

    @Test("the CLI exits 64 naming the flag and its range, and writes nothing", arguments: cases)
    func commandLine(option: Case) throws {
        // Given
        let folder = TestEnvironment.temporaryFolder("cli-options")
        let input = TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4")
        for value in option.text {
            let out = folder.appendingPathComponent("out-\(option.key)")
            let target = option.verb == "thumbnail" ? ["--out", folder.appendingPathComponent("t.jpg").path] : ["--out", out.path]
            // When
            let result = try TestEnvironment.runAttachKit([option.verb, "--\(option.flag)=\(value)"] + target + [input])
            // Then
            #expect(result.status == 64, "--\(option.flag) \(value): exit \(result.status) \(result.stderr.suffix(300))")
            #expect(result.stderr.contains("--\(option.flag) must be"), "--\(option.flag) \(value): \(result.stderr)")
            #expect(result.stderr.contains("..."), "no range in: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path), "--\(option.flag) \(value) created the output folder")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("--thumbnail's options are checked by prepare with the same ranges", arguments: ["size", "frame", "at"])
    func prepareThumbnailOptions(flag: String) throws {
        let option = try #require(Self.cases.first { $0.flag == flag })
        let out = TestEnvironment.temporaryFolder("prepare-thumbnail-options")
        for value in option.text {
            let result = try TestEnvironment.runAttachKit(["prepare", "--thumbnail", "--out", out.path, "--\(flag)", value,
                                                           TestEnvironment.fixture("images/gif_static_320x240.gif")])
            #expect(result.status == 64, "--\(flag) \(value): exit \(result.status)")
            #expect(result.stderr.contains("--\(flag) must be"))
        }
    }

    @Test("serve answers bad-options naming the key and its range", arguments: cases)
    func service(option: Case) async throws {
        // Given
        let folder = TestEnvironment.temporaryFolder("serve-options")
        let service = try AttachKitService(allow: [TestEnvironment.testMedia.path, folder.path], jobs: 1)
        let input = TestEnvironment.fixture("images/gif_static_320x240.gif")
        for value in option.json {
            let op = option.verb == "thumbnail" ? "thumbnail" : "prepare"
            let out = op == "thumbnail" ? folder.appendingPathComponent("t.jpg").path : folder.path
            let line = #"{"id": 1, "op": "\#(op)", "path": "\#(input)", "options": {"out": "\#(out)", "\#(option.key)": \#(value)}}"#
            // When
            let response = try JSONValue.parse(await service.respond(to: line))
            // Then
            #expect(response["ok"] == .bool(false), "\(option.key): \(value)")
            #expect(response["error"]?["code"]?.stringValue == "bad-options", "\(option.key): \(value): \(response.serialized)")
            let message = response["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("\"\(option.key)\" must be") && message.contains("..."), "\(message)")
            #expect(!message.contains("--"), "a library message names a CLI flag: \(message)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        // A number no double holds is out of every range: refused by name, as written, and the
        // answer keeps the request's id (a pipeline can match it).
        let huge = #"{"id": 2, "op": "prepare", "path": "\#(input)", "options": {"out": "\#(folder.path)", "\#(option.key)": 1e400}}"#
        let refused = try JSONValue.parse(await service.respond(to: huge))
        #expect(refused["id"] == .parsedNumber(2, text: "2") || refused["id"]?.doubleValue == 2, "\(refused.serialized)")
        #expect(refused["error"]?["code"]?.stringValue == "bad-options", "\(refused.serialized)")
        #expect(refused["error"]?["message"]?.stringValue?.contains("1e400") == true, "\(refused.serialized)")
    }

    @Test("the CLI and serve accept and refuse at the same bounds", arguments: [
        ("max-frames", "maxFrames", "100000", "100001"), ("frame", "frame", "1000000", "1000001"),
        ("max-duration", "maxDuration", "0.1", "0.09"), ("max-edge", "maxEdge", "65535", "65536"),
    ])
    func sameBounds(flag: String, key: String, inside: String, outside: String) async throws {
        let folder = TestEnvironment.temporaryFolder("same-bounds")
        let service = try AttachKitService(allow: [TestEnvironment.testMedia.path, folder.path], jobs: 1)
        let input = TestEnvironment.fixture("images/gif_static_320x240.gif")
        for (value, accepted) in [(inside, true), (outside, false)] {
            let cli = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", folder.path, "--\(flag)", value, input])
            #expect((cli.status != 64) == accepted, "--\(flag) \(value): exit \(cli.status) \(cli.stderr)")
            let line = #"{"id": 1, "op": "prepare", "path": "\#(input)", "options": {"out": "\#(folder.path)", "\#(key)": \#(value)}}"#
            let response = try JSONValue.parse(await service.respond(to: line))
            #expect((response["error"]?["code"]?.stringValue != "bad-options") == accepted, "\(key) \(value): \(response.serialized)")
        }
    }

    @Test("a JSON policy with an absurd number is refused naming its key path", arguments: [
        (#"{"video": {"maxDuration": 1e-300}}"#, "video.maxDuration"),
        (#"{"audio": {"maxDuration": 1e-12}}"#, "audio.maxDuration"),
        (#"{"audio": {"maxDuration": 1e308}}"#, "audio.maxDuration"),
        (#"{"video": {"maxDuration": -0}}"#, "video.maxDuration"),
        (#"{"image": {"maxBytes": 1e308}}"#, "image.maxBytes"),
        (#"{"image": {"maxBytes": 10}}"#, "image.maxBytes"),
        (#"{"video": {"maxBytes": 99999999999999999999}}"#, "video.maxBytes"),
        (#"{"audio": {"recommendedBytes": 0.5}}"#, "audio.recommendedBytes"),
        (#"{"image": {"maxLongEdge": 1}}"#, "image.maxLongEdge"),
        (#"{"video": {"maxLongEdge": 1e9}}"#, "video.maxLongEdge"),
        (#"{"image": {"maxFrames": 0}}"#, "image.maxFrames"),
        (#"{"image": {"maxFrames": 200000}}"#, "image.maxFrames"),
        (#"{"image": {"maxFrames": "200"}}"#, "image.maxFrames"),
    ])
    func policy(json: String, key: String) async throws {
        // Given / When: the library
        do {
            _ = try Profile.parse(JSONValue.parse(json), source: "absurd.json")
            Issue.record("\(json) was accepted")
        } catch let error as ProfileError {
            guard case .invalid(_, let at, let reason) = error else { Issue.record("\(error)"); return }
            #expect(at == key)
            #expect(reason.contains("must be") && reason.contains("..."), "\(reason)")
        }
        // The CLI: a usage error
        let file = TestEnvironment.temporaryFolder("absurd-policy").appendingPathComponent("absurd.json")
        try Data(json.utf8).write(to: file)
        let result = try TestEnvironment.runAttachKit(["validate", "--profile", file.path, TestEnvironment.fixture("images/gif_static_320x240.gif")])
        #expect(result.status == 64)
        #expect(result.stderr.contains(key))
        // serve: an inline policy is a bad option
        let service = try AttachKitService(allow: [TestEnvironment.testMedia.path], jobs: 1)
        let line = #"{"id": 2, "op": "validate", "path": "\#(TestEnvironment.fixture("images/gif_static_320x240.gif"))", "options": {"profile": \#(json)}}"#
        let response = try JSONValue.parse(await service.respond(to: line))
        #expect(response["error"]?["code"]?.stringValue == "bad-options")
        #expect(response["error"]?["message"]?.stringValue?.contains(key) == true)
    }

    @Test("the library alone: a duration budget under 0.1 s is cannot-fit, nothing written", arguments: [1e-12, 1e-300, 0.01])
    func tinyDurationInLibrary(maxDuration: Double) throws {
        for fixture in ["audio/wav_s16le_16k_mono_5s.wav", "video/webm_vp9_opus_320x240_2s.webm", "video/mp4_h264_aac_320x240_2s.mp4"] {
            let outcome = try AVPrepare.run(TestEnvironment.fixture(fixture), scope: TestEnvironment.testMedia, maxDuration: maxDuration)
            #expect(outcome.report.error?.code == "cannot-fit", "\(fixture): \(String(describing: outcome.report.error))")
            #expect(outcome.files.isEmpty, "\(fixture) left \(outcome.files)")
        }
    }

    @Test("bitrate arithmetic survives durations and budgets no option allows")
    func budgetArithmetic() throws {
        // Given: the audio-only template used to trap converting bits per second to Int
        let job = try AudioVideoFitTests.job(maxBytes: 5_000_000, duration: 30)
        let source = AudioVideoFitTests.source(width: 1920, height: 1080, duration: 30)
        for video in [source.video, nil] {
            for budget in [Int64(1), 5_000_000, Int64.max / 4] {
                let template = EncodeTemplate(container: video == nil ? .m4a : .mp4, video: video, audio: source.audio, window: .whole,
                                              maxLongEdge: 1920, budget: budget)
                let fitter = BudgetFitter(job: job, source: source, template: template)
                // When / Then: no trap, and nothing nonsensical comes back
                for duration in [1e-300, 1e-12, 0.1, 30, 1e12, 1e300, .infinity, .nan] {
                    if let sized = fitter.sizing(duration: duration) {
                        #expect(sized.videoBitRate >= 0 && sized.audioBitRate > 0, "\(duration) s, \(budget) B")
                    }
                    _ = fitter.shortenedDuration(from: duration)
                }
            }
        }
        #expect(BitrateBudget.containerOverhead(duration: .infinity, frameRate: 240, audioSampleRate: 48_000) > 0)
        #expect(BitrateBudget.comfortableAudioBitRate(channels: 2, sourceBitRate: Int.max) == 128_000)
        #expect(VideoGeometry(width: 65_535, height: 2, sampleAspect: 2_147_483_647, rotation: 0).output(maxLongEdge: nil).width == 65_534)
    }
}
