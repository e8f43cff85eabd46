import Foundation
import Testing
@testable import AttachKit

/// The playability model (``Playability``): `validate` flags what iOS does not decode and
/// `prepare` re-encodes exactly that to 8-bit 4:2:0 H.264, under `ios` and `apple`, while what
/// plays is copied. Outputs are re-probed with `ffprobe`.
@Suite("Playability: codec profiles, chroma and bit depth")
struct PlayabilityTests {
    /// The fixtures iOS does not decode, with the profile the probe must name.
    static let undecodable: [(file: String, profile: String)] = [
        ("video/mp4_h264_high422_160x90.mp4", "High 4:2:2"),
        ("video/mp4_h264_high10_160x90.mp4", "High 10"),
        ("video/mp4_h264_high444_160x90.mp4", "High 4:4:4 Predictive"),
        ("video/mp4_hevc_422_10bit_160x90.mp4", "Rext"),
    ]

    /// `ffprobe`'s codec, profile and pixel format of the first video stream.
    static func videoStream(_ path: String) throws -> (codec: String, profile: String, pixelFormat: String, tag: String) {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                      "stream=codec_name,profile,pix_fmt,codec_tag_string", "-of", "csv=p=0", path])
        let fields = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        guard run.status == 0, fields.count == 4 else { throw FFprobeReport.ProbeFailure(path: path, message: run.stderr + run.stdout) }
        return (fields[0], fields[1], fields[3], fields[2])
    }

    static func probe(_ path: String) throws -> MediaInfo { try Prober().probeWithSniff(path: path, displayPath: path).info }

    static func validate(_ relative: String, _ profile: Profile) -> ValidationReport {
        let path = TestEnvironment.fixture(relative)
        return Validator(profile: profile).validate(path: path, displayPath: path)
    }

    @Test("the probe names profile, chroma and bit depth", arguments: undecodable.map(\.file) + ["video/mp4_hevc_main10_160x90.mp4"])
    func probeFields(file: String) throws {
        let info = try Self.probe(TestEnvironment.fixture(file))
        let reference = try Self.videoStream(TestEnvironment.fixture(file))
        #expect(info.profileName == reference.profile)
        #expect(info.pixelFormat == reference.pixelFormat)
        let chroma = reference.pixelFormat.contains("422") ? "4:2:2" : reference.pixelFormat.contains("444") ? "4:4:4" : "4:2:0"
        #expect(info.chroma == chroma)
        #expect(info.bitDepth == (reference.pixelFormat.contains("10le") ? 10 : 8))
    }

    @Test("validate flags what iOS does not decode, under ios and apple", arguments: undecodable.map(\.file))
    func validateFlags(file: String) {
        for profile in [Profile.ios, .apple] {
            let report = Self.validate(file, profile)
            let finding = report.diagnostics.first { $0.code == .unsupportedCodecProfile }
            #expect(!report.ok && finding?.fix == "transcode to 8-bit 4:2:0 H.264", "\(profile.name): \(report.diagnostics)")
        }
    }

    @Test("HEVC Main 10 and 8-bit 4:2:0 H.264 pass")
    func playablePass() {
        for file in ["video/mp4_hevc_main10_160x90.mp4", "video/mp4_h264_aac_320x240_2s.mp4", "video/mp4_hevc_aac_320x240_2s.mp4"] {
            #expect(!Self.validate(file, .ios).diagnostics.contains { $0.code == .unsupportedCodecProfile }, "\(file)")
        }
    }

    @Test("prepare re-encodes what iOS does not decode to 8-bit 4:2:0 H.264, never copies it", arguments: undecodable.map(\.file))
    func prepareReencodes(file: String) throws {
        for profile in [Profile.ios, .apple] {
            let outcome = try AVPrepare.run(TestEnvironment.fixture(file), scope: TestEnvironment.testMedia, profile: profile)
            let output = try #require(outcome.report.output, "\(profile.name): \(String(describing: outcome.report.error))")
            let stream = try Self.videoStream(output)
            #expect(stream.codec == "h264" && stream.pixelFormat == "yuv420p" && stream.profile == "High", "\(profile.name): \(stream)")
            #expect(outcome.report.actions != [.passthrough] && !outcome.report.actions.contains(.remuxed))
            #expect(outcome.report.notes.contains { $0.hasPrefix("re-encoded to 8-bit 4:2:0 H.264") }, "\(outcome.report.notes)")
            // What prepare made validates clean under the same profile.
            #expect(Validator(profile: profile).validate(path: output, displayPath: output).ok)
        }
    }

    @Test("HEVC Main 10 is copied as it is (hvc1), not re-encoded")
    func main10Copied() throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("video/mp4_hevc_main10_160x90.mp4"), scope: TestEnvironment.testMedia)
        let output = try #require(outcome.report.output)
        let stream = try Self.videoStream(output)
        #expect(stream.codec == "hevc" && stream.profile == "Main 10" && stream.pixelFormat == "yuv420p10le" && stream.tag == "hvc1")
        #expect(outcome.report.bitRate == nil, "no encode")
    }

    @Test("the model: H.264 up to High at 8-bit 4:2:0 is copyable, beyond is not; HEVC Main/Main 10 4:2:0 only")
    func model() {
        #expect(Playability.video(codec: .h264, profile: CodecProfile.h264High, chroma: "4:2:0", bitDepth: 8) == .copyable)
        #expect(Playability.video(codec: .h264, profile: CodecProfile.h264ConstrainedBaseline, chroma: "4:2:0", bitDepth: 8) == .copyable)
        #expect(Playability.video(codec: .h264, profile: nil, chroma: nil, bitDepth: nil) == .copyable)
        #expect(Playability.video(codec: .h264, profile: CodecProfile.h264High, chroma: "4:2:2", bitDepth: 8) != .copyable)
        #expect(Playability.video(codec: .h264, profile: CodecProfile.h264High10, chroma: "4:2:0", bitDepth: 8) != .copyable)
        #expect(Playability.video(codec: .h264, profile: nil, chroma: "4:2:0", bitDepth: 10) != .copyable)
        #expect(Playability.video(codec: .hevc, profile: CodecProfile.hevcMain10, chroma: "4:2:0", bitDepth: 10) == .copyable)
        #expect(Playability.video(codec: .hevc, profile: CodecProfile.hevcRangeExtensions, chroma: "4:2:0", bitDepth: 8) != .copyable)
        #expect(Playability.video(codec: .hevc, profile: nil, chroma: "4:4:4", bitDepth: 8) != .copyable)
        #expect(Playability.video(codec: .hevc, profile: nil, chroma: "4:2:0", bitDepth: 12) != .copyable)
        #expect(Playability.video(codec: .mpeg2video, profile: nil, chroma: "4:2:0", bitDepth: 8) == .transcodedWhenRewritten)
        #expect(Playability.sound(.aac, in: .m4a) == .plays && Playability.sound(.eac3, in: .mp4) == .plays)
        #expect(Playability.sound("pcm_s24le", in: .wav) == .plays && Playability.sound("pcm_s16be", in: .aiff) == .plays)
        #expect(Playability.sound(.opus, in: .mp4) != .plays && Playability.sound(.mp3, in: .mp3) == .plays)
    }

    @Test("under apple, an MPEG-2 program stream's fix says the video is transcoded too, as prepare does")
    func mpegPSFix() throws {
        let report = Self.validate("video/mpg_mpeg2_mp2_320x240_2s.mpg", .apple)
        let fix = try #require(report.diagnostics.first { $0.code == .unsupportedCodec }?.fix)
        #expect(fix == "transcode MP2→AAC and MPEG-2 video→H.264 in MP4")
        let outcome = try AVPrepare.run(TestEnvironment.fixture("video/mpg_mpeg2_mp2_320x240_2s.mpg"),
                                        scope: TestEnvironment.testMedia, profile: .apple)
        let output = try #require(outcome.report.output)
        #expect(try Self.videoStream(output).codec == "h264")
    }

    @Test("a 12-bit JPEG is unsupported-codec-profile and re-encoded to an 8-bit JPEG", .needsCorpus)
    func twelveBitJPEG() throws {
        let corpus = TestEnvironment.corpus!
        let path = corpus.appendingPathComponent("images/jpeg_12bit_precision.jpg").path
        let report = Validator(profile: .ios).validate(path: path, displayPath: path)
        #expect(report.diagnostics.map(\.code) == [.unsupportedCodecProfile])
        let outcome = try ImagePrepare.run(path, scope: corpus, profile: .ios)
        let output = try #require(outcome.report.output)
        #expect(outcome.report.actions.contains(.reencoded))
        #expect(try VipsHeader.of(output).loader == "jpegload")
        #expect(try Self.probe(output).bitDepth == 8)
    }
}
