import Foundation
import Testing
@testable import AttachKit

/// Video profiles are named as `ffprobe` names them, for every codec (libavcodec's
/// `avcodec_profile_name`), not "profile N" for codecs outside H.264 and HEVC (issue 13).
@Suite("Probe: profile names as ffprobe prints them")
struct ProfileNameTests {
    /// `ffprobe`'s profile of the first video stream of `path`.
    static func ffprobeProfile(_ path: String) throws -> String {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile",
                                                      "-of", "default=noprint_wrappers=1:nokey=1", path])
        guard run.status == 0 else { throw FFprobeReport.ProbeFailure(path: path, message: run.stderr) }
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func expectSameName(_ path: String) throws {
        let info = try PlayabilityTests.probe(path)
        let reference = try Self.ffprobeProfile(path)
        #expect(info.profileName == reference, "\(path): \(info.profileName ?? "nil") vs ffprobe \(reference)")
        #expect(info.profileName.map { !$0.hasPrefix("profile ") } ?? false, "\(path)")
        #expect(info.json["codecProfile"]?.stringValue == reference, "\(path)")
    }

    @Test("AV1, VP9, MPEG-2, MPEG-4 Part 2, H.264 and HEVC fixtures", arguments: [
        "video/mp4_av1_320x240_2s.mp4", "video/webm_vp9_opus_320x240_2s.webm", "video/webm_vp9_profile2_pq_320x180_1s.webm",
        "video/mpg_mpeg2_mp2_320x240_2s.mpg", "video/avi_mpeg4_mp3_320x240_2s.avi", "video/mp4_h264_high10_160x90.mp4",
        "video/mp4_hevc_main10_160x90.mp4",
    ])
    func fixtures(file: String) throws {
        try Self.expectSameName(TestEnvironment.fixture(file))
    }

    @Test("MJPEG in AVI (generated)")
    func mjpeg() throws {
        let folder = TestEnvironment.temporaryFolder("profile-mjpeg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("mjpeg.avi").path
        let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=0.5",
                                                     "-c:v", "mjpeg", "-pix_fmt", "yuvj420p", clip])
        try #require(run.status == 0, "\(run.stderr)")
        try Self.expectSameName(clip)
    }

    @Test("a number libavcodec does not name stays \"profile N\"")
    func unnamed() {
        #expect(CodecProfile.name(77, codec: .vp9) == "profile 77")
        #expect(CodecProfile.name(CodecProfile.h264High422, codec: .h264) == "High 4:2:2")
        #expect(CodecProfile.name(CodecProfile.aacHEv2, codec: .aac) == "HE-AACv2")
    }
}
