import Foundation
import Testing
@testable import AttachKit

/// `--verify fast|full` (issue 33): how a copied output is decoded before it is handed back. The
/// fast mode skips reconstruction, never the entropy decoding, so damage in any copied packet,
/// key or not, is refused in both modes.
@Suite struct VerifyModeTests {
    /// A 12 s 320×180 H.264 MP4 as x264 `veryfast` writes it (CABAC, B-frames, a keyframe every
    /// 2 s, faststart), and a copy with 40 bytes of 0xFF in the middle of the first B-frame packet
    /// shown after 6 s.
    static func clips(in folder: URL) throws -> (intact: String, damaged: String) {
        let intact = folder.appendingPathComponent("cabac.mp4").path
        let make = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=12,noise=alls=8:allf=t",
                                                      "-c:v", "libx264", "-preset", "veryfast", "-g", "50", "-pix_fmt", "yuv420p",
                                                      "-movflags", "+faststart", intact])
        #expect(make.status == 0, "\(make.stderr)")
        let frames = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                         "frame=pts_time,pict_type,pkt_pos,pkt_size", "-of", "csv=p=0", intact])
        let position = frames.stdout.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: ",").map(String.init)
            guard fields.count >= 4, let time = Double(fields[0]), time > 6, fields[3] == "B",
                  let start = Int(fields[1]), let size = Int(fields[2]) else { return nil }
            return start + size / 2
        }.first
        let damaged = try CopyVerificationTests.damaged(intact, at: try #require(position, "a B-frame after 6 s"), as: "cabac-damaged.mp4")
        return (intact, damaged)
    }

    @Test("both modes copy an intact clip whole and refuse one damaged in a B-frame, whole or trimmed around the damage",
          arguments: VerifyMode.allCases)
    func damageRefused(_ mode: VerifyMode) throws {
        // Given: an intact CABAC clip with B-frames, and the same clip damaged in a B-frame at ~6 s
        let folder = TestEnvironment.temporaryFolder("verify-mode")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (intact, damaged) = try Self.clips(in: folder)
        #expect(try Through.validate(damaged, scope: folder, profile: .apple, deep: true).diagnostics.contains { $0.code == .corrupt })
        func prepare(_ path: String, start: Double = 0, maxDuration: Double? = nil) throws -> PrepareReport {
            try AVPrepare.run(path, scope: folder) {
                PrepareOptions(profile: .apple, outputFolder: $0, maxDuration: maxDuration, start: start, verify: mode)
            }.report
        }

        // When / Then: the intact clip is handed back, every frame in it
        let copied = try prepare(intact)
        #expect(copied.action == .passthrough, "\(copied.error?.message ?? "")")
        #expect(try FFprobeReport.of(try #require(copied.output), countFrames: true).video?.frames == 300)
        // A keyframe cut from 4 s to 10 s is a stream copy of the intact packets...
        let cut = try prepare(intact, start: 4, maxDuration: 6)
        #expect(cut.action == .trimmed, "\(cut.action?.rawValue ?? "") \(cut.error?.message ?? "")")
        // ...and neither the damaged clip nor a cut holding its damage is handed back.
        #expect(try prepare(damaged).error?.code == "corrupt")
        let damagedCut = try prepare(damaged, start: 4, maxDuration: 6)
        #expect(damagedCut.error?.code == "corrupt" && damagedCut.output == nil, "\(damagedCut.action?.rawValue ?? "") \(damagedCut.notes)")
    }

    @Test("fast verification skips loop filters and the inverse transform on one thread; a still and full verification skip nothing")
    func decoderOptions() {
        let fast = DeepCheck.fastDecoding
        #expect(fast.decoderOptions(for: .h264)["skip_loop_filter"] == "all")
        #expect(fast.decoderOptions(for: .h264)["skip_idct"] == "all")
        // Frame threads make the concealment flag a race (see DeepCheck.fastDecoding).
        #expect(fast.decoderOptions(for: .h264)["threads"] == "1")
        #expect(fast.decoderOptions(for: .mjpeg, still: true)["skip_loop_filter"] == nil)
        #expect(DeepCheck.decoding.decoderOptions(for: .h264)["skip_loop_filter"] == nil)
        #expect(DeepCheck.decoding.decoderOptions(for: .h264)["threads"] == "1")
    }

    @Test("the CLI and serve read verify the same way, a batch's worker gets it, and an unknown mode is refused")
    func optionTravels() throws {
        var options = PrepareOptions(outputFolder: "/tmp/out", verify: .full)
        #expect(options.requestOptions.contains { $0.0 == "verify" && $0.1 == .string("full") })
        let fingerprint = options.fingerprint
        options.verify = .fast
        #expect(!options.requestOptions.contains { $0.0 == "verify" })
        #expect(options.fingerprint != fingerprint)
        let decoded = try OptionsDecoder(TextOptions(values: [("verify", "full"), ("out", "/tmp/out")], flags: []))
            .prepareOptions(defaultProfile: .ios)
        #expect(decoded.verify == .full)
        #expect(throws: OptionsError.self) {
            try OptionsDecoder(TextOptions(values: [("verify", "none"), ("out", "/tmp/out")], flags: [])).prepareOptions(defaultProfile: .ios)
        }
    }
}
