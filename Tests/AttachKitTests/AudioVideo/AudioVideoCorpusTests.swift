import Foundation
import Testing
@testable import AttachKit

/// `prepare --profile apple` and `--profile ios` on every audio/video fixture and every valid
/// audio/video corpus file, each output checked with `ffprobe` and our probe.
@Suite("Audio/video prepare on every fixture and corpus file")
struct AudioVideoCorpusTests {
    static func valid(_ rows: [CorpusRow]) -> [CorpusRow] { rows.filter { ($0.kind == "audio" || $0.kind == "video") && $0.isValid } }
    static func malformed(_ rows: [CorpusRow]) -> [CorpusRow] {
        rows.filter { ["malformed", "refused"].contains($0.expected) && ($0.kind == "audio" || $0.kind == "video" || $0.kind == "other") }
    }

    @Test("the fixtures hold enough audio and video to prepare")
    func enoughFixtures() {
        #expect(Self.valid(CorpusRow.fixtures()).count >= 20)
    }

    @Test("fixtures: allowed container and codecs, within the byte and duration budgets, in sync, upright, faststart, hvc1",
          arguments: valid(CorpusRow.fixtures()))
    func preparesFixture(row: CorpusRow) throws {
        for profile in [Profile.apple, .ios] {
            try Self.check(row, profile: profile)
        }
    }

    @Test("corpus: allowed container and codecs, within the byte and duration budgets, in sync, upright, faststart, hvc1",
          .needsCorpus, arguments: valid(CorpusRow.all()))
    func preparesCorpus(row: CorpusRow) throws {
        for profile in [Profile.apple, .ios] {
            try Self.check(row, profile: profile)
        }
    }

    @Test("truncated, corrupt and lying fixtures are refused with a clear error and no output", arguments: malformed(CorpusRow.fixtures()))
    func refusesMalformedFixture(row: CorpusRow) throws {
        try Self.checkRefused(row)
    }

    @Test("truncated, corrupt and lying corpus files are refused with a clear error and no output", .needsCorpus,
          arguments: malformed(CorpusRow.all()))
    func refusesMalformedCorpus(row: CorpusRow) throws {
        try Self.checkRefused(row)
    }

    static func checkRefused(_ row: CorpusRow) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: row.path))
        let outcome = try AVPrepare.run(row.path, scope: row.root!, profile: .ios)
        let error = try #require(outcome.report.error, "\(row.file) was prepared")
        #expect(["corrupt", "unrecognized-type", "empty", "over-cap", "unsupported", "encrypted"].contains(error.code), "\(row.file): \(error)")
        #expect(!error.message.isEmpty)
        #expect(outcome.report.output == nil)
        #expect(outcome.files.isEmpty, "\(row.file) left \(outcome.files)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: row.path)) == before)
    }

    static func check(_ row: CorpusRow, profile: Profile) throws {
        let label = "\(row.file) [\(profile.name)]"
        let before = try Data(contentsOf: URL(fileURLWithPath: row.path))
        let outcome = try AVPrepare.run(row.path, scope: row.root!, profile: profile)
        #expect(try Data(contentsOf: URL(fileURLWithPath: row.path)) == before, "\(label): input changed")
        let report = outcome.report
        guard let output = report.output else {
            Issue.record("\(label) not prepared: \(report.error.map(String.init(describing:)) ?? "no error")")
            #expect(outcome.files.isEmpty)
            return
        }
        #expect(outcome.files == [PathResolver.fileName(output)], "\(label): folder holds \(outcome.files)")

        let info = try Through.probe(output, scope: outcome.folder)
        let probe = try FFprobeReport.of(output)
        let input = try FFprobeReport.of(row.path)
        let type = try #require(info.uniformType, "\(label): no type")

        // Container and codecs the profile allows, and the extension that names the bytes.
        #expect(profile.allowsContent(info), "\(label): \(type.identifier) not allowed")
        #expect(PathResolver.fileExtension(output) == type.preferredExtension, "\(label)")
        let limit: Int64
        let maxDuration: Double?
        switch info.kind {
        case .video:
            limit = profile.video.maxBytes
            maxDuration = profile.video.maxDuration
            let video = try #require(probe.video, "\(label): no video stream")
            #expect(Profile.allows(profile.video.videoCodecs, codec: Codec(video.codec)), "\(label): \(video.codec)")
            if let audio = probe.audio { #expect(Profile.allows(profile.video.audioCodecs, codec: Codec(audio.codec)), "\(label): \(audio.codec)") }
            if let cap = profile.video.maxLongEdge { #expect(max(video.width, video.height) <= cap, "\(label)") }
        case .audio:
            limit = profile.audio.maxBytes
            maxDuration = profile.audio.maxDuration
            let audio = try #require(probe.audio, "\(label): no audio stream")
            #expect(Profile.allows(profile.audio.codecs, codec: Codec(audio.codec)), "\(label): \(audio.codec)")
            #expect(probe.video == nil, "\(label): sound file with a picture stream")
        default:
            Issue.record("\(label): output kind \(info.kind)")
            return
        }

        // Budgets: bytes, duration (the reported span for a trim).
        #expect(info.bytes <= limit, "\(label): \(info.bytes) > \(limit)")
        let duration = try #require(probe.duration, "\(label): no duration")
        if let maxDuration { #expect(duration <= maxDuration + 0.05, "\(label): \(duration) s") }
        if let reported = report.trimDuration { #expect(abs(duration - reported) <= 0.1, "\(label): \(duration) s vs reported \(reported) s") }

        // Audio in sync: the first-packet offset between sound and picture is the input's, ±40 ms.
        if let v = probe.video?.start, let a = probe.audio?.start, let iv = input.video?.start, let ia = input.audio?.start {
            #expect(abs((a - v) - (ia - iv)) <= 0.040, "\(label): audio-video offset \(a - v) s, input \(ia - iv) s")
        }
        // Rotation honoured: the upright shape is the input's.
        if let shown = probe.displaySize, let original = input.displaySize {
            let ratio = shown.width / shown.height, expected = original.width / original.height
            #expect(abs(ratio - expected) / expected < 0.03, "\(label): displays \(shown) for \(original)")
            #expect((shown.width >= shown.height) == (original.width >= original.height), "\(label): turned")
        }
        // Layout: index first for MPEG-4, HEVC tagged hvc1.
        if [.mp4, .m4a, .m4v].contains(info.container) {
            #expect(try AVFiles.moovBeforeMdat(output), "\(label): moov after mdat")
        }
        for stream in probe.streams where stream.codec == "hevc" { #expect(stream.tag == "hvc1", "\(label): \(stream.tag)") }
    }
}
