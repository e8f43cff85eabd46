import Foundation
import Testing
@testable import AttachKit

/// Every path where pixels (or samples) change hands between FFmpeg, libswscale and libvips keeps
/// its levels: AttachKit's output is compared with the same operation done by the `ffmpeg` CLI
/// (same encoder, preset, bitrate and keyframe interval; same scaler): mean Y, U, V (R, G, B for
/// pictures) within 0.5 level, PSNR at equal bytes no more than 0.2 dB under the reference's, and
/// the same frame count and duration.
@Suite("Fidelity against the reference tools")
struct FidelityTests {
    /// The largest difference in mean level allowed (8-bit levels).
    static let levelTolerance = 0.5
    /// How far under the reference's PSNR (dB, luma) AttachKit's output may fall at equal bytes.
    static let psnrTolerance = 0.2

    /// A re-encoded clip against `ffmpeg` doing the same: `referenceInput` are the ffmpeg input
    /// options (`-ss`, `-t`, `-i`...), `filter` the scale the reference applies.
    static func compareReencode(_ outcome: AVPrepare.Outcome, referenceInput: [String], scale: String?,
                                psnrTolerance: Double = Self.psnrTolerance,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))", sourceLocation: sourceLocation)
        #expect(outcome.report.actions.contains(.reencoded) || outcome.report.actions.contains(.transcoded), "\(outcome.report.actions)",
                sourceLocation: sourceLocation)
        let encoded = try X264Settings.of(output)
        let reference = outcome.folder.appendingPathComponent("reference.mp4").path
        var arguments = referenceInput + ["-map", "0:v:0", "-an"]
        if let scale { arguments += ["-vf", "scale=\(scale)"] }
        // Every decoded frame encoded once (the CLI would duplicate frames for a constant rate in MP4).
        arguments += ["-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "\(encoded.bitrateKbps)k",
                      "-g", "\(encoded.keyint)", "-pix_fmt", "yuv420p", reference]
        try AVFiles.ffmpeg(arguments)

        let ours = try Levels.video(output), theirs = try Levels.video(reference)
        #expect(ours.isWithin(Self.levelTolerance, of: theirs), "levels: AttachKit \(ours), ffmpeg \(theirs)", sourceLocation: sourceLocation)
        let probed = try FFprobeReport.of(output, countFrames: true), referenceProbe = try FFprobeReport.of(reference, countFrames: true)
        #expect(probed.video?.frames == referenceProbe.video?.frames,
                "frames: AttachKit \(String(describing: probed.video?.frames)), ffmpeg \(String(describing: referenceProbe.video?.frames))",
                sourceLocation: sourceLocation)

        // PSNR against the source as the reference saw it (same window, same scaler).
        let source = outcome.folder.appendingPathComponent("source.nut").path
        var sourceArguments = referenceInput + ["-map", "0:v:0", "-an"]
        if let scale { sourceArguments += ["-vf", "scale=\(scale)"] }
        try AVFiles.ffmpeg(sourceArguments + ["-fps_mode", "passthrough", "-c:v", "rawvideo", "-pix_fmt", "yuv420p", source])
        let ourPSNR = try Levels.psnr(output, against: source), theirPSNR = try Levels.psnr(reference, against: source)
        let ourBytes = try Levels.videoBytes(output), theirBytes = try Levels.videoBytes(reference)
        // Equal bytes: the same bitrate gives sizes within a few per cent; PSNR is compared per bit.
        #expect(abs(Double(ourBytes - theirBytes)) <= max(512, 0.05 * Double(theirBytes)), "bytes: AttachKit \(ourBytes), ffmpeg \(theirBytes)",
                sourceLocation: sourceLocation)
        #expect(ourPSNR >= theirPSNR - psnrTolerance, "PSNR: AttachKit \(ourPSNR) dB (\(ourBytes) B), ffmpeg \(theirPSNR) dB (\(theirBytes) B)",
                sourceLocation: sourceLocation)
        let colour = try #require(probed.video.map { try Levels.colourTags(output, stream: $0.index) }, sourceLocation: sourceLocation)
        #expect(colour.range == "tv" && colour.matrix != "unknown" && colour.primaries != "unknown" && colour.transfer != "unknown",
                "the output's colour description is tagged: \(colour)", sourceLocation: sourceLocation)
    }

    @Test("scale and encode (640×360 → 320×180)")
    func scaleAndEncode() throws {
        let path = TestEnvironment.fixture("video/mp4_h264_aac_640x360_6s_gop1s.mp4")
        let outcome = try AVPrepare.run(path, scope: TestEnvironment.testMedia) { folder in
            PrepareOptions(profile: .ios, outputFolder: folder, maxEdge: 320)
        }
        try Self.compareReencode(outcome, referenceInput: ["-i", path], scale: "320:180")
    }

    @Test("exact trim (1 s to 3 s, no scaling)")
    func exactTrim() throws {
        let path = TestEnvironment.fixture("video/mp4_h264_aac_640x360_6s_gop1s.mp4")
        let outcome = try AVPrepare.run(path, scope: TestEnvironment.testMedia, maxDuration: 2, start: 1, trim: .exact)
        try Self.compareReencode(outcome, referenceInput: ["-ss", "1", "-t", "2", "-i", path], scale: nil)
    }

    @Test("an exact trim between two frames starts with the frame on screen at the cut, at time 0")
    func exactTrimBetweenFrames() throws {
        // 25 fps: frames at 0.48 and 0.52; the cut at 0.5 shows the frame of 0.48.
        let path = TestEnvironment.fixture("video/mp4_h264_aac_640x360_6s_gop1s.mp4")
        let outcome = try AVPrepare.run(path, scope: TestEnvironment.testMedia, maxDuration: 2, start: 0.5, trim: .exact)
        let output = try #require(outcome.report.output)
        let probed = try FFprobeReport.of(output, countFrames: true)
        #expect(probed.video?.frames == 50)
        let frames = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
                                                         "-of", "csv=p=0", output])
        let first = frames.stdout.split(separator: "\n").first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ", ")) }
        #expect(first.flatMap(Double.init) == 0, "\(String(describing: first))")
    }

    @Test("transcode to H.264 from another codec", arguments: [
        "video/webm_vp9_opus_320x240_2s.webm", "video/mpg_mpeg2_mp2_320x240_2s.mpg", "video/avi_mpeg4_mp3_320x240_2s.avi",
    ])
    func transcode(fixture: String) throws {
        let path = TestEnvironment.fixture(fixture)
        let outcome = try AVPrepare.run(path, scope: TestEnvironment.testMedia)
        try Self.compareReencode(outcome, referenceInput: ["-i", path], scale: nil)
    }

    @Test("H.264 in AVI, with and without B-frames: every output shows its frames in presentation order (AVI gives no presentation times: the B-frame one is re-encoded, the other copied)",
          arguments: [(3, "transcoded"), (0, "remuxed")])
    func aviFrameOrder(bFrames: Int, action: String) throws {
        let folder = TestEnvironment.temporaryFolder("avi-order")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("clip.avi").path
        let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=320x240:d=3:r=25",
                                                      "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "\(bFrames)", input])
        try #require(made.status == 0, "\(made.stderr)")
        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)
        #expect(outcome.report.action?.rawValue == action, "\(outcome.report.notes)")
        let output = try #require(outcome.report.output)
        // Decoded frames come out in display order: their presentation times must rise.
        let times = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts", "-of", "csv=p=0", output])
            .stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        #expect(times.count >= 74, "\(times.count) frames with a time (75 made)")
        let backwards = zip(times, times.dropFirst()).filter { $0.1 <= $0.0 }.count
        #expect(backwards == 0, "\(backwards) frames shown before the one decoded ahead of them")
    }

    /// The first video stream's stored size and display aspect, as ffprobe gives them: "W,H,DAR".
    static func displayed(_ path: String) throws -> String {
        try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height,display_aspect_ratio", "-of", "csv=p=0", path])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("an MP4 whose pasp (1:1) overrides its H.264 VUI's pixel aspect (4:3) keeps its 4:3 display aspect through the remux")
    func paspOverridesTheBitstream() throws {
        let folder = TestEnvironment.temporaryFolder("pasp")
        defer { try? FileManager.default.removeItem(at: folder) }
        let vui = folder.appendingPathComponent("vui.mp4").path, input = folder.appendingPathComponent("pasp.mp4").path
        for arguments in [["-f", "lavfi", "-i", "testsrc=s=160x120:d=2", "-vf", "setsar=4/3", "-c:v", "libx264", "-pix_fmt", "yuv420p", vui],
                          ["-i", vui, "-c", "copy", "-aspect", "4:3", input]] {
            let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y"] + arguments)
            try #require(made.status == 0, "\(made.stderr)")
        }
        #expect(try Self.displayed(input) == "160,120,4:3")
        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)
        #expect(outcome.report.action == .remuxed, "\(outcome.report.notes)")
        let output = try #require(outcome.report.output)
        #expect(try Self.displayed(output) == "160,120,4:3")
    }

    @Test("non-square pixels (320×240 shown 16:9, or 100:1) are remuxed with their aspect, not re-encoded: an MP4 whose index follows the media, and a Matroska",
          arguments: [("mp4", "16:9"), ("mkv", "16:9"), ("mp4", "100:1")])
    func nonSquarePixelsAreRemuxed(container: String, shown: String) throws {
        let folder = TestEnvironment.temporaryFolder("anamorphic")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("wide.\(container)").path
        let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=2", "-c:v", "libx264",
                                                      "-pix_fmt", "yuv420p", "-aspect", shown, input])
        try #require(made.status == 0, "\(made.stderr)")
        #expect(try Self.displayed(input) == "320,240,\(shown)")
        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)
        #expect(outcome.report.action == .remuxed, "\(outcome.report.action) \(outcome.report.notes)")
        let output = try #require(outcome.report.output)
        #expect(try Self.displayed(output) == "320,240,\(shown)")
    }

    @Test("an H.264 stream of which FFmpeg decodes 1 frame in 50 (its SPS rewritten to a pixel aspect of 255:1) is corrupt from validate --deep and prepare also when a sound track fills the movie's span")
    func picturesHeldToTheirOwnLength() throws {
        let folder = TestEnvironment.temporaryFolder("pictures-stop")
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("plain.mp4").path, input = folder.appendingPathComponent("broken.mp4").path
        for arguments in [["-f", "lavfi", "-i", "testsrc=s=320x240:d=2:r=25", "-f", "lavfi", "-i", "sine=d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                           "-c:a", "aac", "-shortest", "-movflags", "+faststart", plain],
                          ["-i", plain, "-c", "copy", "-movflags", "+faststart", "-bsf:v", "h264_metadata=sample_aspect_ratio=255/1", input]] {
            let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y"] + arguments)
            try #require(made.status == 0, "\(made.stderr)")
        }
        let frames = try TestEnvironment.run("ffmpeg", ["-v", "quiet", "-i", input, "-an", "-f", "framemd5", "-"]).stdout
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        try #require(frames < 25, "FFmpeg decodes \(frames) frames of the rewritten stream: the case no longer applies")
        let deep = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", input])
        #expect(deep.stdout.contains("\"corrupt\"") && deep.stdout.contains("of pictures"), "\(deep.stdout)")
        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)
        #expect(outcome.report.error?.code == "corrupt", "\(outcome.report.action) \(outcome.report.notes)")
    }

    @Test("transcode from HEVC (a profile that does not take HEVC)")
    func transcodeHEVC() throws {
        let path = TestEnvironment.fixture("video/mp4_hevc_aac_320x240_2s.mp4")
        var profile = Profile.ios
        profile.video.videoCodecs.removeAll { $0 == "hevc" }
        let outcome = try AVPrepare.run(path, scope: TestEnvironment.testMedia, profile: profile)
        try Self.compareReencode(outcome, referenceInput: ["-i", path], scale: nil)
    }

    @Test("video only: a 2560×1440 clip with no sound scaled to 640 px")
    func videoOnly() throws {
        let path = TestEnvironment.fixture("video/mp4_h264_2560x1440_1s.mp4")
        let outcome = try AVPrepare.run(path, scope: TestEnvironment.testMedia) { folder in
            PrepareOptions(profile: .ios, outputFolder: folder, maxEdge: 640)
        }
        #expect(try FFprobeReport.of(try #require(outcome.report.output)).audio == nil)
        try Self.compareReencode(outcome, referenceInput: ["-i", path], scale: "640:360")
    }

    @Test("full range that is not a yuvj format (10-bit H.264, 8-bit VP9) becomes limited range, tagged so", arguments: [
        ("full10.mp4", ["-c:v", "libx264", "-preset", "veryfast", "-crf", "12"], "yuv420p10le"),
        ("full8.webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "1M"], "yuv420p"),
    ])
    func fullRange(name: String, encoder: [String], pixelFormat: String) throws {
        let folder = TestEnvironment.temporaryFolder("full-range")
        let path = folder.appendingPathComponent(name).path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "smptehdbars=s=320x240:r=25:d=1", "-vf",
                            "scale=out_range=full:out_color_matrix=bt709,format=\(pixelFormat)"] + encoder
                           + ["-color_range", "pc", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", path])
        let outcome = try AVPrepare.run(path, scope: folder, maxDuration: 0.8, start: 0.1, trim: .exact)
        // The reference converts to limited range too (ffmpeg keeps 8-bit full range as it is unless
        // told). The PSNR yardstick is ffmpeg's own conversion of the source, whose rounding (and
        // 10→8-bit dither) differs from a direct one by about half a level: 0.6 dB at these 44 dB.
        try Self.compareReencode(outcome, referenceInput: ["-ss", "0.1", "-t", "0.8", "-i", path], scale: "320:240:out_range=tv",
                                 psnrTolerance: 0.6)
    }

    @Test("10-bit HEVC to 8-bit H.264 keeps its levels", .needsCorpus)
    func tenBit() throws {
        let corpus = TestEnvironment.corpus!
        let path = corpus.appendingPathComponent("video/mkv_hevc_10bit_176x144.mkv").path
        var profile = Profile.ios
        profile.video.videoCodecs.removeAll { $0 == "hevc" }
        let outcome = try AVPrepare.run(path, scope: corpus, profile: profile)
        try Self.compareReencode(outcome, referenceInput: ["-i", path], scale: nil)
    }

    @Test("audio only: FLAC to AAC keeps its loudness and length")
    func audioOnly() throws {
        let path = TestEnvironment.fixture("audio/flac_22k_5s.flac")
        let outcome = try AVPrepare.run(path, scope: TestEnvironment.testMedia)
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        #expect(!outcome.report.actions.isEmpty && outcome.report.actions != [.passthrough], "\(outcome.report.actions)")
        let reference = outcome.folder.appendingPathComponent("reference.m4a").path
        let bitrate = try #require(try Levels.bitRate(output, stream: "a:0"))
        try AVFiles.ffmpeg(["-i", path, "-c:a", "aac", "-b:a", "\(bitrate)", reference])
        let ours = try Levels.rms(output), theirs = try Levels.rms(reference), source = try Levels.rms(path)
        #expect(abs(ours - theirs) <= 0.1 && abs(ours - source) <= 0.1, "RMS dB: AttachKit \(ours), ffmpeg \(theirs), source \(source)")
        let ourDuration = try #require(try FFprobeReport.of(output).duration)
        let sourceDuration = try #require(try FFprobeReport.of(path).duration)
        #expect(abs(ourDuration - sourceDuration) <= 0.03, "duration: AttachKit \(ourDuration) s, source \(sourceDuration) s")
    }

    @Test("poster frame: the frame at 1 s in RGB, as ffmpeg converts it", arguments: [
        "video/mp4_h264_aac_640x360_6s_gop1s.mp4", "video/webm_vp9_opus_320x240_2s.webm",
    ])
    func posterFrame(fixture: String) throws {
        let path = TestEnvironment.fixture(fixture)
        let (report, jpeg) = try AudioVideoThumbnailTests.render(path, scope: TestEnvironment.testMedia, request: ThumbnailRequest(time: 1))
        #expect(report.ok, "\(String(describing: report.error))")
        try Self.comparePicture(jpeg, referenceInput: ["-ss", "1", "-i", path])
    }

    @Test("FFmpeg-decoded stills keep their levels (thumbnail at the picture's own size)", arguments: [
        "images/bmp_24bit_160x120.bmp", "images/png_apng_animated_160x120.png",
    ])
    func ffmpegStills(fixture: String) throws {
        let path = TestEnvironment.fixture(fixture)
        let (_, jpeg) = try ImageThumbnailTests.thumbnail(path, scope: TestEnvironment.testMedia, request: ThumbnailRequest(size: 160))
        try Self.comparePicture(jpeg, referenceInput: ["-i", path])
    }

    @Test("FFmpeg-decoded stills from the corpus keep their levels (12-bit JPEG, HEIF sequence)", .needsCorpus, arguments: [
        "images/jpeg_12bit_precision.jpg", "images/heic_sequence_msf1.heic",
    ])
    func ffmpegStillsFromCorpus(file: String) throws {
        let corpus = TestEnvironment.corpus!
        let path = corpus.appendingPathComponent(file).path
        let (_, jpeg) = try ImageThumbnailTests.thumbnail(path, scope: corpus, request: ThumbnailRequest(size: 256))
        try Self.comparePicture(jpeg, referenceInput: ["-i", path])
    }

    @Test("an animated WebP made a GIF keeps its levels (first frame, libvips both sides)")
    func animatedWebPToGIF() throws {
        let path = TestEnvironment.fixture("images/webp_animated_320x240.webp")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios)
        let output = try #require(outcome.report.output)
        #expect(outcome.report.after?.container == .gif)
        let ours = try ImagePixels.meanColour(output), theirs = try ImagePixels.meanColour(path)
        #expect(zip(ours, theirs).allSatisfy { abs($0 - $1) <= Self.levelTolerance }, "mean RGB: GIF \(ours), WebP \(theirs)")
    }

    @Test("an APNG with transparency keeps its alpha through FFmpeg (made a GIF: on-off alpha, which GIF can hold)")
    func apngAlpha() throws {
        let folder = TestEnvironment.temporaryFolder("apng-alpha")
        let path = folder.appendingPathComponent("alpha.png").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=96x64:r=10:d=0.6", "-vf",
                            "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,48),255,0)'",
                            "-plays", "0", "-f", "apng", path])
        // Shrunk, so the frames are decoded (through FFmpeg) rather than passed through.
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios, maxEdge: 48)
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        #expect(outcome.report.actions.contains(.downscaled), "\(outcome.report.actions)")
        let header = try VipsHeader.of(output)
        #expect(header.bands == 4, "the output keeps an alpha band: \(header)")
        let reference = folder.appendingPathComponent("first.png").path
        try AVFiles.ffmpeg(["-i", path, "-frames:v", "1", "-pix_fmt", "rgba", reference])
        let ours = try ImagePixels.meanColour(output), theirs = try ImagePixels.meanColour(reference)
        #expect(ours.count == 4 && abs(ours[3] - theirs[3]) <= Self.levelTolerance, "alpha mean: \(ours), reference \(theirs)")
    }

    @Test("an APNG shrunk through FFmpeg becomes a GIF of the same picture (not scrambled)")
    func apngToGIF() throws {
        let path = TestEnvironment.fixture("images/png_apng_animated_160x120.png")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxEdge: 80)
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        #expect(outcome.report.after?.container == .gif)
        let reference = TestEnvironment.temporaryFolder("apng-reference").appendingPathComponent("first.png").path
        try AVFiles.ffmpeg(["-i", path, "-frames:v", "1", "-vf", "scale=80:60:flags=area+accurate_rnd+full_chroma_int,format=rgb24", reference])
        let fidelity = try ImagePixels.psnr(try VipsImage.load(path: output, sequential: false), try VipsImage.load(path: reference, sequential: false))
        #expect(fidelity.luma >= 28, "first frame against ffmpeg's: \(fidelity)")
        let ours = try ImagePixels.meanColour(output), theirs = try ImagePixels.meanColour(reference)
        #expect(zip(ours, theirs).allSatisfy { abs($0 - $1) <= 1 }, "mean RGB: GIF \(ours), ffmpeg \(theirs) (a 256-colour palette: 1 level)")
    }

    @Test("a JPEG XL (decoded by FFmpeg) keeps its levels")
    func jpegXL() throws {
        let folder = TestEnvironment.temporaryFolder("jxl")
        let path = try GeneratedImages.jpegXL(in: folder)
        let (_, jpeg) = try ImageThumbnailTests.thumbnail(path, scope: folder, request: ThumbnailRequest(size: 400))
        try Self.comparePicture(jpeg, referenceInput: ["-i", path])
    }

    /// A thumbnail JPEG AttachKit made against the first frame of `referenceInput` converted to RGB
    /// and scaled by `ffmpeg` (area averaging, accurate rounding, full chroma interpolation), then
    /// JPEG-coded by `vips` at the thumbnail's quality (so both carry the same coding error: on
    /// saturated synthetic colours, 4:2:0 JPEG alone moves a band's mean by 0.6): mean R, G, B within
    /// 0.5 and a luma PSNR of at least 30 dB (the resamplers differ on sharp synthetic edges).
    static func comparePicture(_ jpeg: String, referenceInput: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let header = try VipsHeader.of(jpeg)
        let folder = TestEnvironment.temporaryFolder("picture-reference")
        let decoded = folder.appendingPathComponent("ref.png").path, reference = folder.appendingPathComponent("ref.jpg").path
        try AVFiles.ffmpeg(referenceInput + ["-frames:v", "1", "-vf",
                                             "scale=\(header.width):\(header.height):flags=area+accurate_rnd+full_chroma_int,format=rgb24",
                                             decoded])
        let coded = try TestEnvironment.run("vips", ["copy", decoded, "\(reference)[Q=\(ThumbnailRequest().quality)]"])
        try #require(coded.status == 0, "\(coded.stderr)", sourceLocation: sourceLocation)
        let ours = try ImagePixels.meanColour(jpeg), theirs = try ImagePixels.meanColour(reference)
        let worst = zip(ours, theirs).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst <= levelTolerance, "mean RGB: AttachKit \(ours), reference \(theirs)", sourceLocation: sourceLocation)
        let fidelity = try ImagePixels.psnr(try VipsImage.load(path: jpeg, sequential: false), try VipsImage.load(path: reference, sequential: false))
        #expect(fidelity.luma >= 30, "\(fidelity)", sourceLocation: sourceLocation)
    }
}

/// Mean levels, PSNR and loudness as `ffmpeg`'s own filters measure them.
enum Levels {
    struct Means: CustomStringConvertible {
        let y: Double, u: Double, v: Double
        func isWithin(_ tolerance: Double, of other: Means) -> Bool {
            abs(y - other.y) <= tolerance && abs(u - other.u) <= tolerance && abs(v - other.v) <= tolerance
        }
        var description: String { String(format: "Y %.2f U %.2f V %.2f", y, u, v) }
    }

    /// Mean Y, U and V over every frame of the first video stream (`signalstats`).
    static func video(_ path: String) throws -> Means {
        let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v:0", "-vf",
                                                     "signalstats,metadata=print:file=-", "-f", "null", "-"])
        var sums = [String: Double](), frames = 0.0
        for line in run.stdout.split(separator: "\n") {
            for key in ["YAVG", "UAVG", "VAVG"] where line.contains("signalstats.\(key)=") {
                sums[key, default: 0] += Double(line.split(separator: "=").last ?? "") ?? .nan
                if key == "YAVG" { frames += 1 }
            }
        }
        guard run.status == 0, frames > 0 else { throw FFprobeReport.ProbeFailure(path: path, message: run.stderr) }
        return Means(y: sums["YAVG", default: .nan] / frames, u: sums["UAVG", default: .nan] / frames, v: sums["VAVG", default: .nan] / frames)
    }

    /// Luma PSNR (dB, averaged over frames) of `path`'s first video stream against `reference`.
    static func psnr(_ path: String, against reference: String) throws -> Double {
        let run = try TestEnvironment.run("ffmpeg", ["-v", "info", "-nostats", "-i", path, "-i", reference,
                                                     "-lavfi", "[0:v:0][1:v:0]psnr", "-f", "null", "-"])
        guard run.status == 0, let range = run.stderr.range(of: "PSNR y:") else { throw FFprobeReport.ProbeFailure(path: path, message: run.stderr) }
        let value = run.stderr[range.upperBound...].prefix { $0 != " " }
        return Double(value) ?? (value == "inf" ? .infinity : .nan)
    }

    /// Overall RMS level in dB of every channel together (`astats`).
    static func rms(_ path: String) throws -> Double {
        let run = try TestEnvironment.run("ffmpeg", ["-v", "info", "-nostats", "-i", path, "-map", "0:a:0", "-af", "astats",
                                                     "-f", "null", "-"])
        guard run.status == 0, let range = run.stderr.range(of: "RMS level dB: ", options: .backwards) else {
            throw FFprobeReport.ProbeFailure(path: path, message: run.stderr)
        }
        return Double(run.stderr[range.upperBound...].prefix { $0 != "\n" }) ?? .nan
    }

    /// Bytes of the first video stream's packets.
    static func videoBytes(_ path: String) throws -> Int {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size",
                                                      "-of", "csv=p=0", path])
        return run.stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
    }

    /// The bit rate `ffprobe` gives a stream (`a:0`, `v:0`), bits per second.
    static func bitRate(_ path: String, stream: String) throws -> Int? {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=bit_rate",
                                                      "-of", "csv=p=0", path])
        return Int(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The colour description `ffprobe` reads for a stream.
    static func colourTags(_ path: String, stream: Int) throws -> (range: String, matrix: String, primaries: String, transfer: String) {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "\(stream)", "-show_entries",
                                                      "stream=color_range,color_space,color_primaries,color_transfer", "-of", "default=nw=1", path])
        var tags = [String: String]()
        for line in run.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { tags[parts[0]] = parts[1] }
        }
        return (tags["color_range"] ?? "unknown", tags["color_space"] ?? "unknown", tags["color_primaries"] ?? "unknown",
                tags["color_transfer"] ?? "unknown")
    }
}

/// The x264 settings an H.264 stream was encoded with, read from the encoder's SEI text.
struct X264Settings {
    let bitrateKbps: Int
    let keyint: Int

    static func of(_ path: String) throws -> X264Settings {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let start = bytes.range(of: Data("x264 - core".utf8)) else { throw ImageTestFailure("\(path): no x264 SEI") }
        let text = String(decoding: bytes[start.lowerBound...].prefix(4096).prefix { $0 != 0 }, as: UTF8.self)
        var fields = [String: String]()
        for word in text.split(separator: " ") {
            let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let bitrate = fields["bitrate"].flatMap(Int.init), let keyint = fields["keyint"].flatMap(Int.init) else {
            throw ImageTestFailure("\(path): the x264 SEI has no bitrate/keyint: \(text.prefix(200))")
        }
        return X264Settings(bitrateKbps: bitrate, keyint: keyint)
    }
}
