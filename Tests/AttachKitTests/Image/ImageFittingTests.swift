import Foundation
import Testing
@testable import AttachKit

/// Byte fitting on real photos whose natural encode is over a tighter budget (`--max-bytes`):
/// the output lands in [0.90, 1.0] of the budget, at or above the quality floor, in at most four
/// encodes on average; when the floor cannot fit, the picture shrinks; when nothing fits, nothing
/// is written.
@Suite("Image byte fitting")
struct ImageFittingTests {
    /// (file, budget): budgets between a fifth and four fifths of the quality-80 size at the caps,
    /// so quality alone fits some and others must shrink. TestMedia's photos, then the corpus'.
    static let photos: [(String, Int64)] = [
        ("images/jpeg_large_4032x3024.jpg", 100_000),
        ("images/jpeg_photo_1600x1200_q90.jpg", 150_000),
        ("images/jpeg_photo_1600x1200_q90.jpg", 30_000),
        ("images/webp_lossy_800x600.webp", 25_000),
        ("images/avif_800x600.avif", 20_000),
    ]
    static let corpusPhotos: [(String, Int64)] = [
        ("images/jpeg_photo_2725x2225.jpg", 200_000),
        ("images/jpeg_large_6720x4480.jpg", 30_000),
        ("images/jpeg_large_6720x4480.jpg", 8_000),
        ("images/jpeg_ultrahdr_gainmap_3840x2160.jpg", 80_000),
        ("images/avif_orientation6_3024x4032.avif", 150_000),
        ("images/webp_lossy_1024x772.webp", 120_000),
        ("images/jpeg_exif_orientation6.jpg", 40_000),
    ]

    @Test("TestMedia photos that need fitting: [0.90, 1.0] of the budget, quality ≥ floor, ≤ 4 encodes on average")
    func photosLandInWindow() throws {
        try Self.expectLandInWindow(Self.photos, root: TestEnvironment.testMedia)
    }

    @Test("corpus photos that need fitting: [0.90, 1.0] of the budget, quality ≥ floor, ≤ 4 encodes on average", .needsCorpus)
    func corpusPhotosLandInWindow() throws {
        try Self.expectLandInWindow(Self.corpusPhotos, root: TestEnvironment.corpus!)
    }

    static func expectLandInWindow(_ photos: [(String, Int64)], root: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var attempts: [Int] = []
        var ratios: [String] = []
        for (file, budget) in photos {
            let path = root.appendingPathComponent(file).path
            var profile = Profile.ios
            profile.image.maxBytes = min(profile.image.maxBytes, budget)
            let outcome = try ImagePrepare.run(path, scope: root, profile: .ios, maxBytes: budget)
            try ImageChecks.verify(outcome, input: path, scope: root, profile: profile, sourceLocation: sourceLocation)
            let report = outcome.report
            guard report.ok, let after = report.after else { continue }
            // It needed fitting: quality had to go below the ceiling or the picture had to shrink.
            let quality = try #require(report.quality, "\(file): no quality", sourceLocation: sourceLocation)
            #expect(quality < ImageStillFitStep.jpegCeiling || report.notes.contains { $0.contains("shrunk") }, "\(file) did not need fitting",
                    sourceLocation: sourceLocation)
            let ratio = Double(after.bytes) / Double(budget)
            #expect(ratio >= 0.90 && ratio <= 1.0, "\(file) at \(budget): \(after.bytes) bytes, ratio \(ratio); \(report.notes)",
                    sourceLocation: sourceLocation)
            attempts.append(report.attempts)
            ratios.append("\(URL(fileURLWithPath: file).lastPathComponent)@\(budget): \(report.attempts) encodes, \((ratio * 1000).rounded() / 1000)")
        }
        try #require(!attempts.isEmpty, sourceLocation: sourceLocation)
        let average = Double(attempts.reduce(0, +)) / Double(attempts.count)
        #expect(average <= 4, "average \(average) encodes: \(ratios)", sourceLocation: sourceLocation)
        print("byte fitting: \(attempts.count) photos, average \(average) encodes; \(ratios.joined(separator: "; "))")
    }

    @Test("an HEIC stays HEIC under ios and fits: quality in steps of 2, never over budget, never under the floor")
    func heicFits() throws {
        let path = TestEnvironment.fixture("images/heic_800x600.heic")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxBytes: 40_000)
        var profile = Profile.ios
        profile.image.maxBytes = 40_000
        try ImageChecks.verify(outcome, input: path, scope: TestEnvironment.testMedia, profile: profile)
        let report = outcome.report
        #expect(report.after?.container == .heic)
        #expect((report.after?.bytes ?? .max) <= 40_000)
        #expect((report.quality ?? 0) >= 50 && (report.quality ?? 1) % 2 == 0)
        #expect(report.attempts <= 6, "\(report.notes)")
    }

    @Test("a higher quality floor is kept: the picture shrinks instead")
    func qualityFloorKept() throws {
        let path = TestEnvironment.fixture("images/jpeg_large_4032x3024.jpg")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxBytes: 60_000, qualityFloor: 75)
        var profile = Profile.ios
        profile.image.maxBytes = 60_000
        try ImageChecks.verify(outcome, input: path, scope: TestEnvironment.testMedia, profile: profile, qualityFloor: 75)
        let report = outcome.report
        #expect((report.quality ?? 0) >= 75)
        #expect((report.after?.width ?? .max) < 2048, "should have shrunk below the caps: \(report.notes)")
        #expect(report.actions.contains(.downscaled))
    }

    @Test("a quality floor above the encoder's ceiling is honoured: floor 90 is never encoded at 80")
    func floorAboveCeiling() throws {
        let out = TestEnvironment.temporaryFolder("floor90").path
        let input = TestEnvironment.fixture("images/jpeg_large_4032x3024.jpg")
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--max-bytes", "200KB", "--quality-floor", "90", "--out", out, input])
        let report = try JSONValue.parse(run.stdout)
        #expect(report["ok"] == .bool(true), "\(run.stdout)")
        let quality = try #require(report["quality"]?.intValue, "\(run.stdout)")
        #expect(quality >= 90)
        #expect((report["after"]?["bytes"]?.intValue ?? .max) <= 200_000)
    }

    @Test("a PNG over budget becomes a palette PNG when that keeps the picture, else a JPEG when it has no transparency")
    func pngFallbacks() throws {
        // A palette-friendly PNG with real transparency stays PNG.
        let transparent = TestEnvironment.fixture("images/png_rgba_transparency_320x240.png")
        let kept = try ImagePrepare.run(transparent, scope: TestEnvironment.testMedia, profile: .apple, maxBytes: 60_000)
        #expect(kept.report.after?.container == .png)
        #expect((kept.report.after?.bytes ?? .max) <= 60_000)
        #expect(kept.report.after?.hasAlpha == true)
        // An opaque photo-like PNG over a tight budget becomes a JPEG.
        let opaque = TestEnvironment.fixture("images/png_rgb_opaque_400x300.png")
        let converted = try ImagePrepare.run(opaque, scope: TestEnvironment.testMedia, profile: .apple, maxBytes: 20_000)
        var profile = Profile.apple
        profile.image.maxBytes = 20_000
        try ImageChecks.verify(converted, input: opaque, scope: TestEnvironment.testMedia, profile: profile)
        #expect(converted.report.after?.container == .jpeg, "\(converted.report.notes)")
    }

    @Test("a budget nothing can meet fails with cannot-fit and leaves no file")
    func cannotFit() throws {
        let path = TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxBytes: 300)
        #expect(outcome.report.error?.code == "cannot-fit", "\(String(describing: outcome.report.error))")
        #expect(outcome.report.output == nil)
        #expect(outcome.files.isEmpty, "left behind: \(outcome.files)")
        #expect(outcome.report.error?.message.contains("300") == true)
    }
}
