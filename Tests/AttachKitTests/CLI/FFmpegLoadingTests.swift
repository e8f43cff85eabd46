import Foundation
import Testing
@testable import AttachKit

/// FFmpeg is opened on first use (README, "How FFmpeg is loaded"): image-only processes never map
/// it, and a missing FFmpeg is a clear per-file error while images still work. Each case runs the
/// built `attachkit` as a child process, since loading happens once per process.
@Suite("FFmpeg loaded on first use")
struct FFmpegLoadingTests {
    static let libraries = ["libavformat", "libavcodec", "libavutil", "libswscale", "libswresample"]

    /// Runs `attachkit` with `extra` added to this process's environment.
    static func run(_ arguments: [String], environment extra: [String: String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try TestEnvironment.run(TestEnvironment.attachkit, arguments,
                                environment: ProcessInfo.processInfo.environment.merging(extra) { _, new in new })
    }

    /// The FFmpeg libraries the dynamic linker reports opening (`LD_DEBUG=files` lines on stderr).
    static func ffmpegLoaded(_ arguments: [String]) throws -> (status: Int32, libraries: Set<String>) {
        let result = try run(arguments, environment: ["LD_DEBUG": "files"])
        let loaded = result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            let name = line[range.upperBound...].prefix { $0 != " " }
            return Self.libraries.contains { name.hasPrefix($0 + ".") } ? String(name) : nil
        }
        return (result.status, Set(loaded))
    }

    @Test("the attachkit binary does not link FFmpeg", .enabled(if: TestEnvironment.hasTool("readelf"), "needs readelf (binutils)"))
    func notLinked() throws {
        let result = try TestEnvironment.run("readelf", ["-d", TestEnvironment.attachkit])
        try #require(result.status == 0)
        let needed = result.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libvips") }, "readelf output: \(result.stdout)")
        #expect(!needed.contains { line in Self.libraries.contains { line.contains("[\($0).") } }, "\(needed)")
    }

    @Test("image-only processes never map FFmpeg; audio and video load it")
    func imagesNeverMapFFmpeg() throws {
        let out = TestEnvironment.temporaryFolder("ffmpeg-images")
        defer { try? FileManager.default.removeItem(at: out) }
        let images = ["images/jpeg_large_4032x3024.jpg", "images/heic_800x600.heic", "images/png_rgba_transparency_320x240.png",
                      "images/gif_animated_320x240_24f.gif", "images/webp_lossy_800x600.webp", "images/avif_800x600.avif",
                      "images/tiff_lzw_320x240.tif"].map(TestEnvironment.fixture)
        let runs: [[String]] = [
            ["probe", "--json"] + images,
            ["validate", "--deep", "--json"] + images,
            ["prepare", "--json", "--max-edge", "1024", "--out", out.path] + images,
            ["thumbnail", images[0], "--out", out.appendingPathComponent("thumb.jpg").path],
        ]
        for arguments in runs {
            let run = try Self.ffmpegLoaded(arguments)
            #expect(run.libraries.isEmpty, "\(arguments[0]) mapped \(run.libraries.sorted())")
        }
        // The check sees FFmpeg when it is loaded: a video probe opens all five libraries.
        let video = try Self.ffmpegLoaded(["probe", TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4")])
        #expect(video.status == 0)
        #expect(video.libraries.count == 5, "\(video.libraries.sorted())")
    }

    @Test("a missing FFmpeg: audio and video get a clear unreadable error naming the package, images still work")
    func missingFFmpeg() throws {
        let out = TestEnvironment.temporaryFolder("ffmpeg-missing")
        defer { try? FileManager.default.removeItem(at: out) }
        let missing = ["ATTACHKIT_FFMPEG_LIBDIR": out.appendingPathComponent("nonexistent").path]
        let video = TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4")
        let photo = TestEnvironment.fixture("images/jpeg_large_4032x3024.jpg")

        let probe = try Self.run(["probe", "--json", video, photo, TestEnvironment.fixture("audio")], environment: missing)
        #expect(probe.status == 1)
        let lines = CLITests.lines(probe.stdout)
        try #require(lines.count == 2 + InputWalker.files(under: TestEnvironment.fixture("audio")).count, "\(probe.stdout)")
        for line in lines where line["path"]?.stringValue != photo {
            #expect(line["error"]?["code"]?.stringValue == "unreadable")
            let message = line["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("FFmpeg's libavutil (libavutil.so."), "\(message)")
            #expect(message.contains("from Debian's libavutil") && message.contains("cannot be loaded"), "\(message)")
        }
        #expect(lines.first { $0["path"]?.stringValue == photo }?["kind"]?.stringValue == "image")
        #expect(probe.stderr.isEmpty, "logs: \(probe.stderr)")

        let prepared = try Self.run(["prepare", "--json", "--max-edge", "1024", "--out", out.path, photo, video], environment: missing)
        #expect(prepared.status == 1)
        let reports = CLITests.lines(prepared.stdout)
        try #require(reports.count == 2, "\(prepared.stdout)")
        #expect(reports[0]["ok"] == .bool(true))
        #expect(reports[0]["after"]?["width"]?.intValue == 1024)
        #expect(reports[1]["error"]?["code"]?.stringValue == "unreadable")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("jpeg_large_4032x3024.jpg").path))
    }
}
