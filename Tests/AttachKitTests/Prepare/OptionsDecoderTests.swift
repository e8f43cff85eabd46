import Foundation
import Testing
@testable import AttachKit

/// One decoder for the command line's text and `serve`'s JSON: the same options, the same ranges,
/// errors naming the library's key for each front end to render.
@Suite("Options decoder")
struct OptionsDecoderTests {
    static func prepare(_ source: any OptionSource) throws(OptionsError) -> PrepareOptions {
        try OptionsDecoder(source).prepareOptions(defaultProfile: .standard)
    }

    @Test("text and JSON of the same options decode to the same options (the same fingerprint)")
    func sameOptions() throws {
        // Given every option, as a command line and as a request would give it
        let text = TextOptions(values: [("out", "/o"), ("profile", "apple"), ("maxBytes", "5MB"), ("maxEdge", "1024"),
                                        ("maxFrames", "20"), ("maxDuration", "2.5"), ("start", "1"), ("deadline", "30"),
                                        ("trim", "exact"), ("qualityFloor", "40"), ("size", "200"), ("clip", "0,0.25,1,0.5"),
                                        ("frame", "3"), ("at", "1.5")],
                               flags: ["thumbnail", "keepMetadata"])
        let json = JSONOptions(try #require(try JSONValue.parse(#"""
            {"out": "/o", "profile": "apple", "maxBytes": "5MB", "maxEdge": 1024, "maxFrames": 20, "maxDuration": 2.5,
             "start": 1, "deadline": 30, "trim": "exact", "qualityFloor": 40, "size": 200, "clip": "0,0.25,1,0.5",
             "frame": 3, "at": 1.5, "thumbnail": true, "keepMetadata": true}
            """#).objectValue))
        // When both are decoded
        let fromText = try Self.prepare(text)
        let fromJSON = try Self.prepare(json)
        // Then they agree, field by field and by fingerprint
        #expect(fromText.maxBytes == 5_000_000 && fromJSON.maxBytes == 5_000_000)
        #expect(fromText.fingerprint == fromJSON.fingerprint)
        #expect(fromText.profile.name == "apple" && fromText.trim == .exact && fromText.keepMetadata && fromText.thumbnail)
        #expect(fromText.thumbnailRequest == ThumbnailRequest(size: 200, clip: try ClippingRect(parsing: "0,0.25,1,0.5"), frame: 3, time: 1.5))
        // And a batch's worker request reads back to the same options
        let request = JSONOptions(fromText.requestOptions + [("out", .string("/o"))])
        #expect(try Self.prepare(request).fingerprint == fromText.fingerprint)
    }

    @Test("every option that changes what prepare produces changes the fingerprint a batch resumes by; out does not")
    func fingerprint() throws {
        let variants: [TextOptions] = [
            ("maxBytes", "5MB"), ("maxEdge", "100"), ("maxFrames", "5"), ("maxDuration", "2"), ("start", "1"), ("deadline", "5"),
            ("trim", "exact"), ("qualityFloor", "60"), ("profile", "apple"),
        ].map { TextOptions(values: [("out", "/o"), $0]) } + ["thumbnail", "keepMetadata"].map { TextOptions(values: [("out", "/o")], flags: [$0]) }
        // A thumbnail's options change the output when a thumbnail is made.
        + [("size", "100"), ("clip", "0,0,0.5,0.5"), ("thumbnailQuality", "50"), ("frame", "2"), ("at", "1")]
            .map { TextOptions(values: [("out", "/o"), $0], flags: ["thumbnail"]) }
        let base = try Self.prepare(TextOptions(values: [("out", "/o")])).fingerprint
        let prints = try variants.map { try Self.prepare($0).fingerprint }
        #expect(Set(prints + [base]).count == variants.count + 1)
        #expect(try Self.prepare(TextOptions(values: [("out", "/elsewhere")])).fingerprint == base)
    }

    @Test("defaults: out is required unless the front end gives one; the rest as PrepareOptions states")
    func defaults() throws {
        #expect(throws: OptionsError.missing(key: "out", expected: "the output folder (inside an allowed root)")) {
            try Self.prepare(JSONOptions([]))
        }
        let options = try OptionsDecoder(TextOptions(values: [])).prepareOptions(defaultProfile: .apple, defaultOutputFolder: "prepared")
        #expect(options.outputFolder == "prepared" && options.profile.name == "apple")
        #expect(options.fingerprint == PrepareOptions(profile: .apple, outputFolder: "prepared").fingerprint)
    }

    @Test("an error names the key; the command line renders the flag, serve the key", arguments: [
        (OptionValue.text("0.05"), JSONValue.number(0.05), "maxDuration", "--max-duration"),
        (.text("5XB"), .string("5XB"), "maxBytes", "--max-bytes"),
        (.text("100.5"), .number(100.5), "maxEdge", "--max-edge"),
        (.text("slow"), .string("slow"), "trim", "--trim"),
        (.text("2,2,1,1"), .string("2,2,1,1"), "clip", "--clip"),
        (.text("101"), .bool(true), "qualityFloor", "--quality-floor"),
    ])
    func errorsNameTheKey(text: OptionValue, json: JSONValue, key: String, flag: String) throws {
        guard case .text(let typed) = text else { return }
        for source in [TextOptions(values: [("out", "/o"), (key, typed)]) as any OptionSource,
                       JSONOptions([("out", .string("/o")), (key, json)])] {
            do throws(OptionsError) {
                _ = try Self.prepare(source)
                Issue.record("\(key) accepted")
            } catch {
                #expect(error.key == key && error.code == .badOptions)
                #expect(error.message.hasPrefix("option \"\(key)\" must be"), "\(error.message)")
                #expect(!error.message.contains("--"), "a library message names a flag: \(error.message)")
                #expect(error.message(naming: { _ in flag }).hasPrefix("\(flag) must be"))
            }
        }
    }

    @Test("unknown keys are refused by name")
    func unknownKeys() throws {
        let decoder = OptionsDecoder(JSONOptions([("out", .string("/o")), ("maxbytes", .number(5))]))
        #expect(throws: OptionsError.self) { try decoder.refuseUnknownKeys(allowed: OptionsDecoder.prepareKeys) }
        do { try decoder.refuseUnknownKeys(allowed: OptionsDecoder.prepareKeys) } catch {
            #expect(error.key == "maxbytes" && error.message.hasPrefix("unknown option \"maxbytes\" (allowed: at, clip"))
        }
    }

    @Test("serve takes a byte count as a number or as text with a unit, within the same range", arguments: [
        (#"5000000"#, Int64?(5_000_000)), (#""5MB""#, 5_000_000), (#""500KB""#, 500_000), (#""1.5M""#, 1_500_000),
        (#""999""#, nil), (#""5 MB""#, nil), (#""nan""#, nil), (#"999"#, nil),
    ])
    func bytesAsText(json: String, expected: Int64?) async throws {
        let folder = TestEnvironment.temporaryFolder("bytes-as-text")
        let service = try AttachKitService(allow: [TestEnvironment.testMedia.path, folder.path], jobs: 1)
        let input = TestEnvironment.fixture("images/gif_static_320x240.gif")
        let line = #"{"id": 1, "op": "prepare", "path": "\#(input)", "options": {"out": "\#(folder.path)", "maxBytes": \#(json)}}"#
        let response = try JSONValue.parse(await service.respond(to: line))
        if expected != nil {
            #expect(response["ok"] == .bool(true), "\(json): \(response.serialized.prefix(300))")
        } else {
            #expect(response["error"]?["code"]?.stringValue == "bad-options", "\(json): \(response.serialized.prefix(300))")
        }
        let decoded = try? OptionsDecoder(JSONOptions([("maxBytes", try JSONValue.parse(json))])).bytes(OptionLimits.maxBytes)
        #expect(decoded == expected)
    }

    // MARK: Numbers, however they are spelled

    @Test("a whole-number option reads the same however it is spelled, from text or JSON", arguments: [
        ("16", 16), ("16.0", 16), ("1.6e1", 16), ("1e3", 1000),
    ])
    func wholeNumberSpellings(text: String, expected: Int) throws {
        #expect(try OptionLimits.maxEdge.check(text: text) == expected)
        #expect(try OptionLimits.maxEdge.check(number: Double(text)!) == expected)
    }

    @Test("a fraction is never a whole number or a byte count, from text or JSON", arguments: [
        "16.5", "999.5", "1000.5", "14400.0001",
    ])
    func fractionsRefused(text: String) {
        #expect(throws: OptionError.self) { try OptionLimits.maxEdge.check(text: text) }
        #expect(throws: OptionError.self) { try OptionLimits.maxBytes.check(bytes: text) }
        #expect(throws: OptionError.self) { try OptionLimits.maxBytes.check(number: Double(text)!) }
    }

    @Test("byte counts with units come out whole: 1.1MB is 1,100,000; 0.9999KB is refused")
    func byteUnits() throws {
        #expect(try OptionLimits.maxBytes.check(bytes: "1.1MB") == 1_100_000)
        #expect(try OptionLimits.maxBytes.check(bytes: "1e3") == 1000)
        #expect(try OptionLimits.maxBytes.check(bytes: "2.5KB") == 2500)
        #expect(throws: OptionError.self) { try OptionLimits.maxBytes.check(bytes: "0.9999KB") }
        #expect(throws: OptionError.self) { try OptionLimits.maxBytes.check(bytes: "1.0000001KB") }
    }

    @Test("the CLI reads --max-edge 16.0 and 1e3 as serve reads 16.0 and 1e3; --max-bytes 999.5 is refused")
    func cliSpellings() throws {
        let out = TestEnvironment.temporaryFolder("spellings").path
        let input = TestEnvironment.fixture("images/gif_static_320x240.gif")
        for value in ["16.0", "1e3"] {
            let run = try TestEnvironment.runAttachKit(["prepare", "--max-edge", value, "--out", out, input])
            #expect(run.status == 0, "--max-edge \(value): \(run.stderr)")
        }
        let refused = try TestEnvironment.runAttachKit(["prepare", "--max-bytes", "999.5", "--out", out, input])
        #expect(refused.status == 64 && refused.stderr.contains("--max-bytes"), "\(refused.stderr)")
    }

    @Test("numbers are read in decimal only: 0x10, nan and inf are refused; byte counts take TB",
          arguments: [("--max-duration", "0x10", false), ("--max-duration", "nan", false), ("--max-duration", "inf", false),
                      ("--max-bytes", "0x10", false), ("--max-bytes", "1TB", true), ("--max-duration", "1.5e1", true)])
    func decimalOnly(option: String, value: String, accepted: Bool) throws {
        let out = TestEnvironment.temporaryFolder("decimal")
        let run = try TestEnvironment.run(TestEnvironment.attachkit,
                                          ["prepare", option, value, "--out", out.path, TestEnvironment.fixture("audio/mp3_stereo_44k_5s.mp3")])
        #expect(accepted ? run.status == 0 : run.status == 64, "\(option) \(value): exit \(run.status) \(run.stderr.prefix(200))")
    }
}
