import Foundation
import Testing
@testable import AttachKit

/// AAC Main and LTP (and SSR, which no encoder here writes) are AAC object types no Apple decoder
/// takes: `validate` says `unsupported-codec` naming the profile, and `prepare` re-encodes the
/// sound to AAC-LC instead of copying it, in a sound file and in a movie.
@Suite("Policy: AAC profiles iOS decodes", .serialized)
struct AACProfileTests {
    static func profile(_ path: String, stream: String) throws -> String {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=profile",
                                                      "-of", "csv=p=0", path])
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("AAC Main and LTP: unsupported-codec naming the profile; prepare re-encodes to AAC-LC (sound file and movie)",
          arguments: [("aac_main", "Main", false), ("aac_ltp", "LTP", false), ("aac_main", "Main", true)])
    func reencoded(encoderProfile: String, name: String, movie: Bool) throws {
        // Given: 2 s of AAC in that profile, alone in an M4A or beside H.264 in an MP4
        let folder = TestEnvironment.temporaryFolder("aac-profile")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent(movie ? "movie.mp4" : "sound.m4a").path
        let picture = movie ? ["-f", "lavfi", "-i", "testsrc2=s=160x90:d=2"] : []
        let make = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y"] + picture + ["-f", "lavfi", "-i", "sine=f=440:d=2"]
            + (movie ? ["-c:v", "libx264", "-preset", "ultrafast"] : []) + ["-c:a", "aac", "-strict", "-2", "-profile:a", encoderProfile, "-shortest", input])
        #expect(make.status == 0, "\(make.stderr)")
        #expect(try Self.profile(input, stream: "a") == name)

        // When
        let report = try Through.validate(input, scope: folder, profile: .ios)
        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)

        // Then
        let findings = report.diagnostics.filter { $0.severity == .error }
        #expect(findings.map(\.code) == [.unsupportedCodec] && findings[0].message.hasPrefix("AAC \(name) profile"),
                "\(report.diagnostics.map(\.message))")
        let output = try #require(outcome.report.output, "\(outcome.report.error?.message ?? "")")
        #expect(try Self.profile(output, stream: "a") == "LC")
        if movie { #expect(try FFprobeReport.of(output).video?.codec == "h264") }
        #expect(try Through.validate(output, scope: outcome.folder, profile: .ios).ok)
    }

    @Test("AAC-LC, HE-AAC, LD and ELD play; Main, SSR and LTP do not, in any container")
    func facts() {
        for profile in [CodecProfile.aacLow, CodecProfile.aacHE, CodecProfile.aacHEv2, CodecProfile.aacLD, CodecProfile.aacELD, nil] {
            #expect(Playability.sound(.aac, profile: profile, in: .m4a) == .plays)
        }
        for profile in [CodecProfile.aacMain, CodecProfile.aacSSR, CodecProfile.aacLTP] {
            for container in [Container.m4a, .mp4, .aacADTS, .mov] {
                guard case .unsupported = Playability.sound(.aac, profile: profile, in: container) else {
                    Issue.record("AAC profile \(profile) in \(container) should not play")
                    continue
                }
            }
        }
    }
}
