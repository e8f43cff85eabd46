import Foundation
import Testing
@testable import AttachKit

/// Issue 29: "A Dolby Vision MOV with three `mebx` metadata tracks fails with 'write packet:
/// Invalid argument'; tracks iOS does not need (timed metadata, data, subtitles, chapters) are
/// dropped with a note, never fatal." Fixtures: TestMedia/formats (generate.sh, "issue 29: tracks
/// iOS does not need"): a timecode track, a chapter text track, a mov_text subtitle, and a
/// QuickTime HEVC movie with three `meta`/`mebx` timed-metadata tracks.
@Suite("Tracks iOS does not need are dropped, never fatal")
struct DroppedTracksTests {
    static let folder = FormatIdentificationTests.folder

    /// Fixture, and the notes its drops must give (every stream past the picture and the sound).
    static let cases: [(String, [String])] = [
        ("mp4_h264_timecode_tmcd.mp4", ["dropped the timecode track 2 (tmcd)"]),
        ("mp4_h264_chapters_text.mp4", ["dropped the text track 2 (text: chapters or captions)"]),
        ("mp4_h264_mov_text_subtitles.mp4", ["dropped subtitles 2 (mov_text)"]),
        ("mov_hevc_mebx_metadata_x3.mov", (2...4).map { "dropped timed metadata track \($0) (mebx)" }),
    ]

    /// `ffprobe`'s streams (type and tag) and chapter count of `path`.
    static func probed(_ path: String) throws -> (streams: [String], chapters: Int) {
        let report = try FFprobeReport.of(path)
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_chapters", "-of", "csv=p=0", path])
        let chapters = run.stdout.split(separator: "\n").filter { !$0.isEmpty }.count
        return (report.streams.map { "\($0.type):\($0.codec)" }, chapters)
    }

    @Test("prepare maps only the picture and the sound, by stream copy and by transcode: the output re-probes with one video and one audio stream and no chapters, and the report notes each stream dropped",
          arguments: cases, [[String](), ["--max-bytes", "12KB"]])
    func droppedWithNotes(fixture: (String, [String]), budget: [String]) throws {
        // Given
        let (file, notes) = fixture
        let input = FormatIdentificationTests.path(file)
        let before = try Self.probed(input)
        #expect(before.streams.count == 2 + notes.count, "\(file): \(before.streams)")
        let out = TestEnvironment.temporaryFolder("dropped-tracks")
        defer { try? FileManager.default.removeItem(at: out) }
        // When
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path] + budget + [input])
        // Then
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let output = try #require(report["output"]?.stringValue, "\(file): \(run.stdout) \(run.stderr)")
        let action = report["action"]?.stringValue
        // Copied as they are, or encoded again to fit the budget (H.264 "reencoded", HEVC "transcoded").
        #expect(budget.isEmpty ? action == "remuxed" : ["reencoded", "transcoded"].contains(action), "\(file): \(action ?? "none")")
        let after = try Self.probed(output)
        let expectedVideo = budget.isEmpty && file.contains("hevc") ? "video:hevc" : "video:h264"
        #expect(after.streams == [expectedVideo, "audio:aac"], "\(file) → \(after.streams)")
        #expect(after.chapters == 0, "\(file): the output still has \(after.chapters) chapter(s)")
        let written = report["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(written.filter { $0.hasPrefix("dropped ") } == notes, "\(file): \(written)")
        // The output is what the report says: re-validated for ios.
        let validated = try Through.validate(output, scope: out, profile: .ios)
        #expect(validated.ok, "\(validated.diagnostics.map(\.message))")
    }

    @Test("every kind of stream is named by what it is: timecode, timed metadata, text, telemetry, subtitles, attachments, other data")
    func names() {
        func name(_ kind: AVStreamInfo.Kind, _ index: Int, codec: Codec = .unidentified, tag: String?) -> String {
            DroppedStream.name(kind: kind, index: index, codec: codec, tag: tag)
        }
        #expect(name(.data, 2, tag: "tmcd") == "the timecode track 2 (tmcd)")
        #expect(name(.data, 3, tag: "mebx") == "timed metadata track 3 (mebx)")
        #expect(name(.data, 4, tag: "gpmd") == "telemetry track 4 (gpmd)")
        #expect(name(.data, 5, tag: "abcd") == "data stream 5 (abcd)")
        #expect(name(.data, 6, tag: nil) == "data stream 6")
        #expect(name(.data, 6, tag: "\0\0\0\0") == "data stream 6")
        #expect(name(.subtitle, 7, codec: "subrip", tag: nil) == "subtitles 7 (subrip)")
        #expect(name(.attachment, 8, codec: "ttf", tag: nil) == "attachment 8 (ttf)")
        #expect(name(.audio, 9, codec: .aac, tag: "mp4a") == "audio stream 9 (aac)")
    }
}
