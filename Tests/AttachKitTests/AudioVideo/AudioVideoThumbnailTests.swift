import Foundation
import Testing
@testable import AttachKit

/// Poster frames: the frame on screen at the time asked, upright, clipped and sized; cover art of
/// sound files.
@Suite("Video poster frames and cover art")
struct AudioVideoThumbnailTests {
    static func render(_ path: String, scope: URL, request: ThumbnailRequest) throws -> (report: ThumbnailReport, jpeg: String) {
        let folder = TestEnvironment.temporaryFolder("thumb")
        let ledger = try AccessLedger.forTests([scope, folder])
        let handle = try ledger.acquire(path)
        let target = folder.appendingPathComponent("poster.jpg").path
        let report = Thumbnailer().thumbnail(handle, to: target, request: request, ledger: ledger)
        handle.release()
        #expect(ledger.report.isClean)
        return (report, target)
    }

    @Test("the frame at the time asked (red 0–1 s, green 1–2 s, blue 2–3 s)", arguments: [
        (0.5, "red"), (1.0, "green"), (1.5, "green"), (2.96, "blue"), (0.0, "red"),
    ])
    func timeAccuracy(time: Double, colour: String) throws {
        let folder = TestEnvironment.temporaryFolder()
        let clip = folder.appendingPathComponent("colours.mp4").path
        try AVFiles.colourClip(clip)
        let (report, jpeg) = try Self.render(clip, scope: folder, request: ThumbnailRequest(time: time))
        #expect(report.ok, "\(report.error.map(String.init(describing:)) ?? "")")
        #expect(AVFiles.primary(try AVFiles.meanColour(jpeg)) == colour)
        let shown = try #require(report.time)
        #expect(shown <= time + 0.001 && shown > time - 0.04 - 0.001, "shown \(shown) for \(time)")
        #expect(report.width == 320 && report.height == 240)
        #expect(report.options?.thumbnailTime == shown)
    }

    @Test("default time: 1 s, or the middle of a clip shorter than 2 s")
    func defaultTime() throws {
        let folder = TestEnvironment.temporaryFolder()
        let clip = folder.appendingPathComponent("short.mp4").path
        try AVFiles.colourClip(clip, colours: ["red"])
        let (report, _) = try Self.render(clip, scope: folder, request: ThumbnailRequest())
        #expect(abs((report.time ?? 0) - 0.48) < 0.05, "\(report.time ?? -1)")
        let long = try Self.render(TestEnvironment.fixture("video/mp4_h264_aac_640x360_6s_gop1s.mp4"), scope: TestEnvironment.testMedia,
                                   request: ThumbnailRequest())
        #expect(abs((long.report.time ?? 0) - 1) < 0.001)
    }

    @Test("size and normalized clip")
    func sizeAndClip() throws {
        let folder = TestEnvironment.temporaryFolder()
        let clip = folder.appendingPathComponent("split.mp4").path
        try AVFiles.splitClip(clip)
        let small = try Self.render(clip, scope: folder, request: ThumbnailRequest(size: 100))
        #expect(small.report.width == 100 && small.report.height == 75)
        #expect(AVFiles.primary(try AVFiles.meanColour(small.jpeg, width: 0.4)) == "red")
        #expect(AVFiles.primary(try AVFiles.meanColour(small.jpeg, x: 0.6, width: 0.4)) == "blue")
        let right = try Self.render(clip, scope: folder, request: ThumbnailRequest(clip: try ClippingRect(x: 0.5, y: 0, width: 0.5, height: 1)))
        #expect(right.report.width == 160 && right.report.height == 240)
        #expect(AVFiles.primary(try AVFiles.meanColour(right.jpeg)) == "blue")
        #expect(right.report.options?.clippingRect == (try ClippingRect(x: 0.5, y: 0, width: 0.5, height: 1)))
    }

    @Test("rotation: a 90° display matrix gives an upright portrait; the clip is in upright coordinates")
    func rotation() throws {
        // Given red left | blue right stored 320×240, shown turned 90° clockwise (red on top)
        let folder = TestEnvironment.temporaryFolder()
        let stored = folder.appendingPathComponent("stored.mp4").path
        let rotated = folder.appendingPathComponent("rotated.mp4").path
        try AVFiles.splitClip(stored)
        try AVFiles.rotateNinety(stored, to: rotated)
        #expect(try FFprobeReport.of(rotated).video?.rotation == 90)
        let whole = try Self.render(rotated, scope: folder, request: ThumbnailRequest())
        #expect(whole.report.width == 240 && whole.report.height == 320)
        #expect(AVFiles.primary(try AVFiles.meanColour(whole.jpeg, height: 0.4)) == "red")
        #expect(AVFiles.primary(try AVFiles.meanColour(whole.jpeg, y: 0.6, height: 0.4)) == "blue")
        let bottom = try Self.render(rotated, scope: folder, request: ThumbnailRequest(clip: try ClippingRect(x: 0, y: 0.5, width: 1, height: 0.5)))
        #expect(bottom.report.width == 240 && bottom.report.height == 160)
        #expect(AVFiles.primary(try AVFiles.meanColour(bottom.jpeg)) == "blue")
        // And the prepared movie keeps the matrix: it still displays upright
        let prepared = try AVPrepare.run(rotated, scope: folder, profile: .ios, maxBytes: 20_000, trim: .exact)
        let output = try #require(prepared.report.output, "\(prepared.report.error.map(String.init(describing:)) ?? "")")
        let probe = try FFprobeReport.of(output)
        #expect(probe.video?.rotation == 90)
        #expect(probe.displaySize.map { $0.width < $0.height } == true)
    }

    @Test("sound files with cover art (M4A, FLAC, MP3): the cover", .needsCorpus)
    func coverArt() throws {
        let corpus = TestEnvironment.corpus!
        for file in ["audio/m4a_aac_with_cover.m4a", "audio/flac_with_picture.flac", "audio/mp3_stereo_44k_cover.mp3"] {
            let (report, jpeg) = try Self.render(corpus.appendingPathComponent(file).path, scope: corpus, request: ThumbnailRequest(size: 128))
            #expect(report.ok, "\(file): \(report.error.map(String.init(describing:)) ?? "")")
            #expect(max(report.width ?? 0, report.height ?? 0) <= 128)
            #expect(report.time == nil)
            #expect(FileManager.default.fileExists(atPath: jpeg))
        }
    }

    @Test("a sound file without cover art: a clear refusal")
    func noCoverArt() throws {
        let (report, _) = try Self.render(TestEnvironment.fixture("audio/mp3_stereo_44k_5s.mp3"), scope: TestEnvironment.testMedia,
                                          request: ThumbnailRequest())
        #expect(report.error?.code == "unsupported")
    }

    @Test("FLAC with cover art becomes M4A that keeps the cover, so prepare --thumbnail shows it", .needsCorpus)
    func coverSurvivesTranscode() throws {
        let corpus = TestEnvironment.corpus!
        let outcome = try AVPrepare.run(corpus.appendingPathComponent("audio/flac_with_picture.flac").path, scope: corpus) { folder in
            PrepareOptions(profile: .ios, outputFolder: folder, thumbnail: true)
        }
        let output = try #require(outcome.report.output, "\(outcome.report.error.map(String.init(describing:)) ?? "")")
        #expect(outcome.files == ["flac_with_picture.m4a", "flac_with_picture.thumbnail.jpg"])
        let probe = try FFprobeReport.of(output)
        #expect(probe.streams.contains { $0.attachedPicture && $0.codec == "png" })
        #expect(probe.video == nil)
        #expect(try Through.probe(output, scope: outcome.folder).kind == .audio)
    }

    @Test("prepare --thumbnail writes the poster frame beside the movie with ThumbnailTimeKey")
    func prepareThumbnail() throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("video/mkv_h264_aac_320x240_2s.mkv"), scope: TestEnvironment.testMedia) { folder in
            PrepareOptions(profile: .ios, outputFolder: folder, thumbnail: true, thumbnailRequest: ThumbnailRequest(size: 160, time: 0.5))
        }
        #expect(outcome.report.ok)
        #expect(outcome.files == ["mkv_h264_aac_320x240_2s.mp4", "mkv_h264_aac_320x240_2s.thumbnail.jpg"])
        #expect(abs((outcome.report.options?.thumbnailTime ?? 0) - 0.5) < 0.041)
    }

    /// The header-only probe leaves a 4K clip's pixel format and level unknown; the poster frame's
    /// decode is still sized for one picture, not 16 references of 4 B/px over the memory cap.
    @Test("a 4K H.264 clip gets its poster frame, from thumbnail and from prepare --thumbnail")
    func fourKPoster() throws {
        let folder = TestEnvironment.temporaryFolder("poster-4k").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clip = folder + "/4k.mp4"
        try AVFiles.h264("testsrc2=s=3840x2160:r=30:d=0.2", to: clip, options: ["-level", "5.1"])
        let thumbnail = try TestEnvironment.runAttachKit(["thumbnail", clip, "--out", folder + "/poster.jpg"])
        #expect(thumbnail.status == 0, "\(thumbnail.stdout) \(thumbnail.stderr)")
        let size = try TestEnvironment.run("vipsheader", ["-f", "width", folder + "/poster.jpg"])
        #expect(size.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "320")
        let prepared = try TestEnvironment.runAttachKit(["prepare", "--profile", "apple", "--thumbnail", "--json", "--out", folder + "/out", clip])
        #expect(prepared.status == 0, "\(prepared.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/out/4k.thumbnail.jpg"), "\(prepared.stdout)")
    }

    @Test("prepare --thumbnail of a sound whose cover art is dropped for the budget: no thumbnail, and the notes say why")
    func coverDroppedForBudget() throws {
        // Given an M4A whose 800×800 cover art (about 50 KB) is over a fifth of a 100 KB budget
        let folder = TestEnvironment.temporaryFolder("cover-dropped")
        let input = folder.appendingPathComponent("song.m4a").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "sine=d=3", "-f", "lavfi", "-i", "testsrc=s=800x800:d=1", "-map", "0", "-map", "1",
                            "-c:a", "aac", "-c:v", "mjpeg", "-q:v", "2", "-frames:v", "1", "-disposition:v", "attached_pic", input])
        // When it is prepared with a thumbnail asked for
        let outcome = try AVPrepare.run(input, scope: folder) { out in
            PrepareOptions(profile: .ios, outputFolder: out, maxBytes: 100_000, thumbnail: true)
        }
        // Then the attachment is made without its cover, no thumbnail is written, and both are explained
        #expect(outcome.report.ok)
        #expect(outcome.files == ["song.m4a"])
        #expect(outcome.report.thumbnail == nil)
        let notes = outcome.report.notes
        #expect(notes.contains { $0.hasPrefix("dropped the cover art:") && $0.hasSuffix("so the attachment has no picture to make a thumbnail from") }, "\(notes)")
        #expect(notes.contains { $0.hasPrefix("no thumbnail: ") }, "\(notes)")
    }

    @Test("ADTS whose ID3 cover picture is not a valid JPEG: the cover is dropped with a note, the sound is remuxed into M4A")
    func brokenCoverDropped() throws {
        let folder = TestEnvironment.temporaryFolder("cover-broken")
        let sound = folder.appendingPathComponent("plain.aac").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "sine=d=3", "-c:a", "aac", "-f", "adts", sound])
        // An ID3v2.3 tag whose APIC says image/jpeg: a JPEG start, then bytes that are not a JPEG
        let picture: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<5120).map { UInt8($0 & 0xFF) }
        let input = folder.appendingPathComponent("song.aac").path
        try Self.withCover(picture, mime: "image/jpeg", sound: sound, to: input)

        let outcome = try AVPrepare.run(input, scope: folder) { out in PrepareOptions(profile: .ios, outputFolder: out, thumbnail: true) }

        #expect(outcome.report.ok, "\(outcome.report.error?.message ?? "")")
        #expect(outcome.files.contains("song.m4a"), "\(outcome.files)")
        #expect(outcome.report.notes.contains { $0.hasPrefix("dropped the cover art: it does not decode") }, "\(outcome.report.notes)")
        let output = try #require(outcome.report.output)
        let streams = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", output]).stdout
        #expect(streams.trimmingCharacters(in: .whitespacesAndNewlines) == "aac", "\(streams)")
    }

    /// Writes `sound` behind an ID3v2.3 tag holding `picture` as its front cover (APIC, `mime`).
    static func withCover(_ picture: [UInt8], mime: String, sound: String, to path: String) throws {
        func syncsafe(_ n: Int) -> [UInt8] { [UInt8(n >> 21 & 0x7F), UInt8(n >> 14 & 0x7F), UInt8(n >> 7 & 0x7F), UInt8(n & 0x7F)] }
        let payload: [UInt8] = [0] + Array(mime.utf8) + [0, 3, 0] + picture
        let size = payload.count
        let frame: [UInt8] = Array("APIC".utf8) + [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF), 0, 0] + payload
        try Data(Array("ID3".utf8) + [3, 0, 0] + syncsafe(frame.count) + frame + [UInt8](Data(contentsOf: URL(fileURLWithPath: sound))))
            .write(to: URL(fileURLWithPath: path))
    }

    @Test("an MP3 that would pass through, whose cover does not decode (garbage, cut short, a JPEG called PNG): --deep warns recoverable-damage, prepare copies the sound without it, with a note; a whole cover passes through",
          arguments: ["garbage", "cut", "mislabelled", "whole"])
    func brokenCoverIsNotPassedThrough(kind: String) throws {
        let folder = TestEnvironment.temporaryFolder("cover-mp3")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sound = folder.appendingPathComponent("plain.mp3").path, jpeg = folder.appendingPathComponent("cover.jpg").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "sine=d=2", "-c:a", "libmp3lame", "-b:a", "64k", sound])
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "testsrc=s=200x200:d=1", "-frames:v", "1", jpeg])
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpeg)))
        let (picture, mime): ([UInt8], String) = switch kind {
        case "garbage": ([0xFF, 0xD8, 0xFF, 0xE0] + (0..<2048).map { UInt8($0 & 0xFF) }, "image/jpeg")
        case "cut": (Array(whole.prefix(whole.count / 2)), "image/jpeg")
        case "mislabelled": (whole, "image/png")
        default: (whole, "image/jpeg")
        }
        let input = folder.appendingPathComponent("song.mp3").path
        try Self.withCover(picture, mime: mime, sound: sound, to: input)

        let deep = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", input])
        let outcome = try AVPrepare.run(input, scope: folder) { out in PrepareOptions(profile: .ios, outputFolder: out) }

        let output = try #require(outcome.report.output, "\(outcome.report.error?.message ?? "")")
        let decode = try TestEnvironment.run("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "the output decodes cleanly: \(decode.stderr)")
        let streams = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", output]).stdout
            .split(separator: "\n").map(String.init)
        if kind == "whole" {
            #expect(outcome.report.action == .passthrough, "\(outcome.report.notes)")
            #expect(deep.status == 0 && !deep.stdout.contains("recoverable-damage"), "\(deep.stdout)")
            #expect(streams == ["mp3", "mjpeg"], "\(streams)")
        } else {
            #expect(outcome.report.action == .remuxed, "\(outcome.report.action) \(outcome.report.notes)")
            #expect(deep.stdout.contains("recoverable-damage") && deep.stdout.contains("the cover art"), "\(deep.stdout)")
            #expect(outcome.report.notes.contains { $0.hasPrefix("dropped the cover art: it does not decode") }, "\(outcome.report.notes)")
            #expect(streams == ["mp3"], "\(streams)")
        }
    }
}
