import Foundation
import Testing
@testable import AttachKit

@Suite("Profiles and JSON policies")
struct ProfileTests {
    @Test("apple is Apple's table exactly")
    func appleTable() {
        let apple = Profile.apple
        #expect(apple.image.types == ["public.jpeg", "com.compuserve.gif", "public.png"])
        #expect(apple.image.maxBytes == 10_000_000 && apple.audio.maxBytes == 5_000_000 && apple.video.maxBytes == 50_000_000)
        #expect(apple.image.maxLongEdge == nil && apple.video.maxDuration == nil && apple.maxAttachments == nil)
        #expect(Set(apple.video.types) == ["public.mpeg", "public.mpeg-2-video", "public.mpeg-4", "public.avi"])
    }

    @Test("a policy extends a built-in profile; null removes a cap; short type names resolve to UTIs")
    func parsesPolicy() throws {
        let json = try JSONValue.parse("""
            {"name": "newsroom", "extends": "apple", "maxAttachments": 2,
             "image": {"maxBytes": 1000000, "maxLongEdge": 1038, "types": ["jpeg", "png", "public.heic"]},
             "video": {"maxDuration": null, "videoCodecs": ["h264"]}}
            """)
        let profile = try Profile.parse(json, source: "newsroom.json")
        #expect(profile.name == "newsroom")
        #expect(profile.maxAttachments == 2)
        #expect(profile.image.maxBytes == 1_000_000)
        #expect(profile.image.maxLongEdge == 1038)
        #expect(profile.image.types == ["public.jpeg", "public.png", "public.heic"])
        #expect(profile.video.maxDuration == nil)
        #expect(profile.video.videoCodecs == ["h264"])
        #expect(profile.audio == Profile.apple.audio)
    }

    @Test("a typo is an error, not a silently ignored key", arguments: [
        (#"{"image": {"maxbytes": 5}}"#, "image.maxbytes"),
        (#"{"imgae": {}}"#, "imgae"),
        (#"{"extends": "android"}"#, "extends"),
        (#"{"image": {"maxBytes": -1}}"#, "image.maxBytes"),
        (#"{"image": {"maxBytes": null}}"#, "image.maxBytes"),
        (#"{"audio": {"maxDuration": "30"}}"#, "audio.maxDuration"),
        (#"{"image": {"types": ["jpeg", "nonsense"]}}"#, "image.types"),
        (#"[1]"#, ""),
    ])
    func strict(text: String, keyPath: String) throws {
        let json = try JSONValue.parse(text)
        do {
            _ = try Profile.parse(json, source: "p.json")
            Issue.record("expected an invalid-profile error")
        } catch {
            guard case .invalid(_, let at, _) = error else { Issue.record("wrong error \(error)"); return }
            #expect(at == keyPath)
            #expect(error.code == "invalid-profile")
        }
    }

    @Test("a profile printed as JSON parses back to the same profile", arguments: ["apple", "ios"])
    func roundTrip(name: String) throws {
        let profile = try Profile.load(name)
        var json = profile.json
        if case .object(var pairs) = json {
            pairs.insert(("extends", .string(name)), at: 0)
            json = .object(pairs)
        }
        #expect(try Profile.parse(json, source: "x") == profile)
    }

    @Test("load: built-in names, files, and clear errors")
    func load() throws {
        #expect(try Profile.load("ios") == .ios)
        #expect(throws: ProfileError.unknown(name: "android")) { try Profile.load("android") }
        let folder = TestEnvironment.temporaryFolder("profiles")
        let file = folder.appendingPathComponent("tiny.json")
        try Data(#"{"image": {"maxBytes": 50000}}"#.utf8).write(to: file)
        #expect(try Profile.load(file.path).image.maxBytes == 50_000)
        #expect(try Profile.load(file.path).name == "tiny.json")
        try Data("{not json".utf8).write(to: file)
        #expect(throws: ProfileError.self) { try Profile.load(file.path) }
        // A key given twice is refused, not read as its last value (the HTTP query's rule too).
        try Data(#"{"image": {"maxBytes": 50000, "maxBytes": 9000000}}"#.utf8).write(to: file)
        do {
            _ = try Profile.load(file.path)
            Issue.record("a repeated key was accepted")
        } catch {
            #expect(error.code == .invalidProfile)
            #expect(error.message.contains(#"duplicate key "maxBytes""#), "\(error.message)")
        }
        #expect(throws: ProfileError.self) { try Profile.load(folder.appendingPathComponent("missing.json").path) }
    }

    @Test("a policy named as a FIFO is refused at once by budget and prepare (exit 64), not waited on")
    func policyFIFO() throws {
        let folder = TestEnvironment.temporaryFolder("policy-fifo")
        let fifo = folder.appendingPathComponent("policy.json").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let environment = ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": folder.path]) { $1 }
        let started = Date()
        for verb in [["budget", "--quick"], ["prepare", "--out", folder.appendingPathComponent("out").path]] {
            let result = try TestEnvironment.run(TestEnvironment.attachkit, verb + ["--profile", fifo, TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm")],
                                                 environment: environment)
            #expect(result.status == 64, "\(verb[0]): \(result.stderr)")
            #expect(result.stderr.contains("not a regular file"), "\(verb[0]): \(result.stderr)")
        }
        #expect(Date().timeIntervalSince(started) < 20)
    }
}
