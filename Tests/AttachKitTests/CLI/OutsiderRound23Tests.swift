import Foundation
import Testing
@testable import AttachKit

/// What the outside testers of round 23 found (issues 13 and 16), kept as tests: a 4K poster frame
/// refused as over the memory cap (the header-only probe left the pixel format and level unknown,
/// so 16 references of 4 B/px were counted); `validate --deep` passing a video over a safety cap
/// that `prepare` and `thumbnail` refuse; a full disk reported as `processing-failed` for video
/// where images say `write-failed`; a calibration cache with `measuredAt` 1e308 trapping every
/// video prepare.
@Suite("Outside findings, round 23")
struct OutsiderRound23Tests {
    private static func ffmpeg(_ arguments: [String]) throws {
        let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments)
        try #require(run.status == 0, "ffmpeg: \(run.stderr)")
    }

    @Test("a 4K H.264 clip gets its poster frame, from thumbnail and from prepare --thumbnail")
    func fourKPoster() throws {
        let folder = TestEnvironment.temporaryFolder("round23-4k").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clip = folder + "/4k.mp4"
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=3840x2160:r=30:d=0.2", "-c:v", "libx264", "-preset", "ultrafast",
                         "-level", "5.1", "-pix_fmt", "yuv420p", clip])
        let thumbnail = try TestEnvironment.runAttachKit(["thumbnail", clip, "--out", folder + "/poster.jpg"])
        #expect(thumbnail.status == 0, "\(thumbnail.stdout) \(thumbnail.stderr)")
        let size = try TestEnvironment.run("vipsheader", ["-f", "width", folder + "/poster.jpg"])
        #expect(size.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "320")
        let prepared = try TestEnvironment.runAttachKit(["prepare", "--profile", "apple", "--thumbnail", "--json", "--out", folder + "/out", clip])
        #expect(prepared.status == 0, "\(prepared.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/out/4k.thumbnail.jpg"), "\(prepared.stdout)")
    }

    @Test("validate --deep and prepare refuse a video over maxWholeFramePixels without decoding it (as thumbnail does)")
    func deepOverCap() throws {
        let folder = TestEnvironment.temporaryFolder("round23-deep").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clip = folder + "/huge.mp4"
        try Self.ffmpeg(["-f", "lavfi", "-i", "color=c=gray:s=8200x8200:r=24:d=0.05", "-c:v", "libx264", "-preset", "ultrafast",
                         "-pix_fmt", "yuv420p", clip])
        let validated = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", "--profile", "apple", clip])
        #expect(validated.status != 0)
        #expect(validated.stdout.contains("\"over-cap\""), "\(validated.stdout)")
        // Under `apple` the stream would be copied as it is; a copy that cannot be decoded to check it is refused.
        let prepared = try TestEnvironment.runAttachKit(["prepare", "--profile", "apple", "--json", "--out", folder + "/out", clip])
        #expect(prepared.status != 0)
        #expect(prepared.stdout.contains("\"over-cap\""), "\(prepared.stdout)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder + "/out"))?.isEmpty ?? true)
    }

    @Test("a full disk, a quota or an I/O error while writing a clip is write-failed, as for images",
          arguments: [ENOSPC, EDQUOT, EFBIG, EIO])
    func diskErrors(errno: Int32) {
        let error = ClipErrors.processing("writing the output", FFmpegError(operation: .writePacket, code: -errno))
        #expect(error.code == .writeFailed, "\(error.message)")
        let other = ClipErrors.processing("writing the output", FFmpegError(operation: .writePacket, code: -EINVAL))
        #expect(other.code == .processingFailed)
    }

    @Test("a cache measured at an impossible time is ignored, never trapped on", arguments: [1e308, -1e308, 1e19, -1, 0])
    func impossibleTime(measuredAt: Double) throws {
        guard case .object(var pairs) = TranscodeEstimatorTests.calibration.json,
              let index = pairs.firstIndex(where: { $0.0 == "measuredAt" }) else {
            Issue.record("calibration JSON shape"); return
        }
        pairs[index].1 = .number(measuredAt)
        #expect(SpeedCalibration(json: .object(pairs)) == nil)
        let folder = TestEnvironment.temporaryFolder("round23-cache").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = CalibrationStore(folder: folder)
        #expect(store.load(text: JSONValue.object(pairs).serialized, for: TranscodeEstimatorTests.key, now: Calibrator.now) != .fresh(TranscodeEstimatorTests.calibration))
    }
}
