import Foundation
import Testing
@testable import AttachKit

/// `validate --profile apple` and `--profile ios` on fixtures built for each rule.
@Suite("Validation verdicts on TestMedia and the corpus")
struct ValidationFixtureTests {
    static func errorCodes(_ file: String, _ profile: Profile, deep: Bool = false) throws -> [String] {
        try Through.validate(TestEnvironment.fixture(file), scope: TestEnvironment.testMedia, profile: profile, deep: deep)
            .errors.map(\.code.rawValue)
    }

    @Test("verdicts per profile", arguments: [
        // file, apple errors, ios errors
        ("images/jpeg_photo_1600x1200_q90.jpg", [], []),
        ("images/png_rgba_transparency_320x240.png", [], []),
        ("images/gif_animated_320x240_24f.gif", [], []),
        ("images/png_apng_animated_160x120.png", [], []),
        ("images/jpeg_exif_orientation6_600x400.jpg", [], []),
        ("images/jpeg_large_4032x3024.jpg", [], ["dimensions-too-large", "too-many-pixels", "decoded-size-too-large"]),
        ("images/heic_800x600.heic", ["unsupported-type"], []),
        ("images/webp_lossy_800x600.webp", ["unsupported-type"], ["unsupported-type"]),
        ("images/avif_800x600.avif", ["unsupported-type"], ["unsupported-type"]),
        ("images/tiff_lzw_320x240.tif", ["unsupported-type"], ["unsupported-type"]),
        ("images/bmp_24bit_160x120.bmp", ["unsupported-type"], ["unsupported-type"]),
        ("images/jpeg_named_as.png", ["extension-mismatch"], ["extension-mismatch"]),
        ("images/jpeg_no_extension", ["missing-extension"], ["missing-extension"]),
        ("audio/mp3_stereo_44k_5s.mp3", [], []),
        ("audio/m4a_aac_lc_5s.m4a", [], []),
        ("audio/m4a_alac_22k_mono_5s.m4a", [], []),
        ("audio/wav_s16le_16k_mono_5s.wav", [], []),
        ("audio/aiff_s16be_16k_mono_5s.aif", [], []),
        ("audio/wav_s16le_8k_mono_40s.wav", [], ["duration-too-long"]),
        ("audio/aac_adts_5s.aac", ["unsupported-type"], ["unsupported-type"]),
        ("audio/flac_22k_5s.flac", ["unsupported-type"], ["unsupported-type"]),
        ("audio/ogg_opus_5s.opus", ["unsupported-type"], ["unsupported-type"]),
        ("video/mp4_h264_aac_320x240_2s.mp4", [], []),
        ("video/mp4_hevc_aac_320x240_2s.mp4", [], []),
        ("video/mp4_h264_aac_rotation90_320x240.mp4", [], []),
        ("video/mp4_av1_320x240_2s.mp4", ["unsupported-codec"], ["unsupported-codec"]),
        ("video/mov_h264_aac_320x240_2s.mov", ["unsupported-type"], ["unsupported-type"]),
        ("video/mkv_h264_aac_320x240_2s.mkv", ["unsupported-type"], ["unsupported-type"]),
        ("video/webm_vp9_opus_320x240_2s.webm", ["unsupported-type"], ["unsupported-type"]),
        ("video/avi_mpeg4_mp3_320x240_2s.avi", [], ["unsupported-type"]),
        ("video/ts_h264_aac_320x240_2s.ts", ["unsupported-type"], ["unsupported-type"]),
        ("video/mp4_h264_160x90_5fps_35s.mp4", [], ["duration-too-long"]),
        ("video/mp4_h264_2560x1440_1s.mp4", [], ["dimensions-too-large"]),
    ] as [(String, [String], [String])])
    func verdicts(file: String, apple: [String], ios: [String]) throws {
        #expect(try Self.errorCodes(file, .apple) == apple, "apple")
        #expect(try Self.errorCodes(file, .ios) == ios, "ios")
    }

    @Test("over-size: a custom policy's byte limit fails the photo with iOS error 102 and a fix")
    func overSize() throws {
        let policy = try Profile.parse(JSONValue.parse(#"{"extends": "apple", "image": {"maxBytes": 100000}}"#), source: "tiny")
        let report = try Through.validate(TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg"),
                                          scope: TestEnvironment.testMedia, profile: policy)
        let finding = try #require(report.errors.first)
        #expect(finding.code == .fileTooLarge)
        #expect(finding.code.iosErrorCode == 102)
        #expect(finding.fix == "re-encode or downscale to ≤ 100 KB")
    }

    @Test("every malformed fixture fails with corrupt or unrecognized-type (--deep)",
          arguments: CorpusRow.fixtures().filter { $0.expected == "malformed" })
    func malformedFixtures(row: CorpusRow) throws {
        let report = try Through.validate(row.path, scope: TestEnvironment.testMedia, profile: .ios, deep: true)
        #expect(!report.ok)
        #expect(report.errors.contains { $0.code == .corrupt || $0.code == .unrecognizedType }, "\(report.diagnostics.map(\.code))")
    }

    @Test("every malformed corpus row fails with corrupt or unrecognized-type (--deep), under both profiles",
          .needsCorpus, arguments: CorpusRow.all().filter { !$0.isValid })
    func malformedCorpus(row: CorpusRow) throws {
        for profile in [Profile.apple, .ios] {
            let report = try Through.validate(row.path, scope: TestEnvironment.corpus!, profile: profile, deep: true)
            #expect(!report.ok)
            #expect(report.errors.contains { $0.code == .corrupt || $0.code == .unrecognizedType }, "\(profile.name): \(report.diagnostics.map(\.code))")
        }
    }

    @Test("no valid fixture is ever called corrupt (--deep)", arguments: CorpusRow.fixtures().filter(\.isValid))
    func validFixtureNeverCorrupt(row: CorpusRow) throws {
        try Self.expectNeverCorrupt(row)
    }

    @Test("no valid corpus row is ever called corrupt (--deep)", .needsCorpus, arguments: CorpusRow.all().filter(\.isValid))
    func validCorpusNeverCorrupt(row: CorpusRow) throws {
        try Self.expectNeverCorrupt(row)
    }

    static func expectNeverCorrupt(_ row: CorpusRow) throws {
        let report = try Through.validate(row.path, scope: row.root!, profile: .apple, deep: true)
        #expect(!report.diagnostics.contains { $0.code == .corrupt || $0.code == .unrecognizedType }, "\(row.file): \(report.diagnostics.map(\.message))")
    }
}
