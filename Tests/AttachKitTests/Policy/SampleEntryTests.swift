import Foundation
import Testing
@testable import AttachKit

/// AVFoundation reads an MP4 track's codec from its sample entry type, not from the bitstream:
/// HEVC under `hev1`, or AAC under a FourCC it does not know, does not play although FFmpeg
/// decodes it. `validate` says so (`unsupported-codec`, fix "remux") and `prepare` remuxes it with
/// the right type, from the same fact (``Playability/sampleEntry(codec:tag:in:)``). It plays no
/// disabled track either (`disabled-track`).
@Suite("Policy: sample entry types iOS reads the codec from")
struct SampleEntryTests {
    /// `fixture` with the first `from` FourCC after its `stsd` box replaced by `to`.
    static func retyped(_ fixture: String, from: String, to: String, in folder: URL, name: String) throws -> String {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(fixture))))
        let stsd = try #require(Self.find(Array("stsd".utf8), in: bytes, from: 0))
        let at = try #require(Self.find(Array(from.utf8), in: bytes, from: stsd))
        bytes.replaceSubrange(at..<at + 4, with: Array(to.utf8))
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { Array(bytes[$0..<$0 + needle.count]) == needle }
    }

    static func tags(_ path: String) throws -> [String] {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_tag_string", "-of", "csv=p=0", path])
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test("HEVC tagged hev1, and AAC under an unknown FourCC, are unsupported-codec with fix remux; prepare remuxes them to hvc1/mp4a",
          arguments: [("video/mp4_hevc_aac_320x240_2s.mp4", "hvc1", "hev1", "hvc1"), ("audio/m4a_aac_lc_5s.m4a", "mp4a", "qqqq", "mp4a")])
    func remuxedWithTheRightType(fixture: String, from: String, to: String, expected: String) throws {
        // Given: the fixture with its sample entry renamed
        let folder = TestEnvironment.temporaryFolder("sample-entry")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.retyped(fixture, from: from, to: to, in: folder, name: "retyped." + (fixture as NSString).pathExtension)
        #expect(try Self.tags(input).contains(to))

        // When: validated and prepared for ios
        let report = try Through.validate(input, scope: folder, profile: .ios)
        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)

        // Then: one finding naming the type, and a remux (no re-encode) to the type iOS reads
        let findings = report.diagnostics.filter { $0.severity == .error }
        #expect(findings.map(\.code) == [.unsupportedCodec], "\(report.diagnostics.map(\.message))")
        #expect(findings.first?.message.contains("'\(to)' sample entry") == true && findings.first?.fix?.hasPrefix("remux") == true)
        #expect(outcome.report.action == .remuxed, "\(outcome.report.error?.message ?? "")")
        let output = try #require(outcome.report.output)
        #expect(try Self.tags(output).contains(expected))
        #expect(try Through.validate(output, scope: outcome.folder, profile: .ios).ok)
    }

    @Test("a video in a sample entry FFmpeg does not identify: one finding naming the FourCC, and prepare refuses it as unsupported")
    func unidentifiedVideo() throws {
        let folder = TestEnvironment.temporaryFolder("sample-entry")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.retyped("video/mp4_h264_aac_320x240_2s.mp4", from: "avc1", to: "qqqq", in: folder, name: "unknown.mp4")

        let report = try Through.validate(input, scope: folder, profile: .ios)
        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)

        let findings = report.diagnostics.filter { $0.severity == .error }
        #expect(findings.count == 1 && findings[0].code == .unsupportedCodec && findings[0].message.contains("FourCC 'qqqq'"),
                "\(report.diagnostics.map(\.message))")
        #expect(outcome.report.error?.code == "unsupported" && outcome.files.isEmpty)
    }

    /// `fixture` with the `track_enabled` flag of its `tkhd` boxes cleared: all of them, or the
    /// `which`th only.
    static func disabled(_ fixture: String, which: Int? = nil, in folder: URL, name: String) throws -> String {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(fixture))))
        var at = 0, index = 0
        while let found = Self.find(Array("tkhd".utf8), in: bytes, from: at) {
            if which == nil || which == index { bytes[found + 7] &= 0xFE }
            (at, index) = (found + 4, index + 1)
        }
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func defaults(_ path: String) throws -> [String] {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "stream_disposition=default", "-of", "csv=p=0", path])
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test("an MP4 whose tracks are all disabled (tkhd) is disabled-track; prepare remuxes it with its tracks enabled; a disabled picture alone is named")
    func disabledTracks() throws {
        let folder = TestEnvironment.temporaryFolder("disabled-track")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.disabled("video/mp4_h264_aac_320x240_2s.mp4", in: folder, name: "disabled.mp4")
        #expect(try Self.defaults(input) == ["0", "0"])

        let report = try Through.validate(input, scope: folder, profile: .ios)
        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)

        let findings = report.diagnostics.filter { $0.severity == .error }
        #expect(findings.map(\.code) == [.disabledTrack] && findings[0].message.contains("every video and audio track"),
                "\(report.diagnostics.map(\.message))")
        #expect(outcome.report.action == .remuxed, "\(outcome.report.error?.message ?? "")")
        let output = try #require(outcome.report.output)
        #expect(try Self.defaults(output) == ["1", "1"])
        #expect(try Through.validate(output, scope: outcome.folder, profile: .ios).ok)

        let picture = try Self.disabled("video/mp4_h264_aac_320x240_2s.mp4", which: 0, in: folder, name: "no-picture.mp4")
        #expect(try Through.validate(picture, scope: folder, profile: .ios).diagnostics.map(\.message).contains { $0.hasPrefix("every video track") })
    }

    @Test("MPEG audio layer II in MP4 (one object type with MP3) is named mp2 by probe, validate and the re-check, and transcoded to AAC; layer III stays mp3 and is copied",
          arguments: [("mp2", "mp2", true), ("libmp3lame", "mp3", false)])
    func mpegAudioLayerInMP4(encoder: String, codec: String, transcoded: Bool) throws {
        let folder = TestEnvironment.temporaryFolder("mpeg-layer")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sound = folder.appendingPathComponent("sound.mp4").path, movie = folder.appendingPathComponent("movie.mp4").path
        for (path, inputs) in [(sound, ["-f", "lavfi", "-i", "sine=d=2"]),
                               (movie, ["-f", "lavfi", "-i", "testsrc=s=160x120:d=2", "-f", "lavfi", "-i", "sine=d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p"])] {
            let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y"] + inputs + ["-c:a", encoder, "-movflags", "+faststart", path])
            try #require(made.status == 0, "\(made.stderr)")
        }
        let soundInfo = try Through.probe(sound, scope: folder), movieInfo = try Through.probe(movie, scope: folder)
        #expect(soundInfo.codec?.rawValue == codec && movieInfo.audioCodec?.rawValue == codec, "\(soundInfo.codec?.rawValue ?? "") \(movieInfo.audioCodec?.rawValue ?? "")")
        #expect(try Through.validate(sound, scope: folder, profile: .ios).ok == !transcoded)
        for input in [sound, movie] {
            let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)
            let output = try #require(outcome.report.output, "\(outcome.report.error?.message ?? "")")
            let codecs = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name", "-of", "csv=p=0", output]).stdout
            #expect(codecs.trimmingCharacters(in: .whitespacesAndNewlines) == (transcoded ? "aac" : "mp3"), "\(input): \(codecs)")
            #expect(try Through.validate(output, scope: outcome.folder, profile: .ios).ok)
        }
    }

    @Test("the types iOS reads are accepted, and only ISO base media is judged")
    func facts() {
        #expect(Playability.sampleEntry(codec: .h264, tag: "avc1", in: .mp4) == nil)
        #expect(Playability.sampleEntry(codec: .h264, tag: "avc3", in: .mp4) == nil)
        #expect(Playability.sampleEntry(codec: .hevc, tag: "hvc1", in: .mov) == nil)
        #expect(Playability.sampleEntry(codec: .ac3, tag: "ac-3", in: .m4a) == nil)
        #expect(Playability.sampleEntry(codec: .hevc, tag: "hev1", in: .mp4) != nil)
        #expect(Playability.sampleEntry(codec: .h264, tag: "H264", in: .avi) == nil)
        #expect(Playability.sampleEntry(codec: .vp9, tag: "vp09", in: .mp4) == nil)
    }
}
