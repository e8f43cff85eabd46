import Foundation
import Testing
@testable import AttachKit

/// Orientation, colour and metadata of re-encoded images, checked on pixels and headers.
@Suite("Image orientation, colour and metadata")
struct ImageColourTests {
    /// Corpus pictures with an EXIF orientation, forced through the pipeline like the fixture.
    static let orientedCorpus = [
        "images/jpeg_exif_orientation3.jpg", "images/jpeg_exif_orientation5_transpose.jpg", "images/jpeg_exif_orientation6.jpg",
        "images/jpeg_exif_orientation8_portrait.jpg", "images/png_exif_orientation6.png", "images/webp_exif_orientation6.webp",
    ]

    @Test("EXIF orientation is applied: upright pixels (vips' autorotated rendering, not a turned one), no tag left")
    func orientation() throws {
        try Self.expectUpright(TestEnvironment.fixture("images/jpeg_exif_orientation6_600x400.jpg"), root: TestEnvironment.testMedia)
    }

    @Test("EXIF orientation is applied to the corpus' oriented JPEG, PNG and WebP", .needsCorpus, arguments: orientedCorpus)
    func orientationCorpus(file: String) throws {
        try Self.expectUpright(TestEnvironment.corpus!.appendingPathComponent(file).path, root: TestEnvironment.corpus!)
    }

    /// Prepares `path` under a long-edge cap just below its size and checks the output is upright.
    static func expectUpright(_ path: String, root: URL) throws {
        let file = URL(fileURLWithPath: path).lastPathComponent
        let input = try Through.probe(path, scope: root)
        let cap = max(input.displayWidth ?? 2, input.displayHeight ?? 2) - 40
        let outcome = try ImagePrepare.run(path, scope: root, profile: .ios, maxEdge: cap)
        var profile = Profile.ios
        profile.image.maxLongEdge = cap
        try ImageChecks.verify(outcome, input: path, scope: root, profile: profile)
        let output = try #require(outcome.report.output)
        let after = try Through.probe(output, scope: outcome.folder)
        #expect(after.orientation ?? 1 == 1)
        #expect((after.width! > after.height!) == (input.displayWidth! > input.displayHeight!))
        #expect(outcome.report.actions.contains(.rotated))
        let contrast = try ImageOrientation.contrast(output: output, input: path, colourManaged: input.hasICCProfile == true)
        #expect(contrast.upright.luma >= 30 && contrast.upright.luma >= contrast.turned.luma + 6, "\(file): \(contrast)")
    }

    @Test("metadata is stripped by default; kept on request, with no stale orientation")
    func metadata() throws {
        let path = TestEnvironment.fixture("images/jpeg_exif_orientation6_600x400.jpg")
        let stripped = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxEdge: 300)
        let plain = try VipsHeader.of(try #require(stripped.report.output))
        #expect(!plain.fields.contains("exif-data") && !plain.fields.contains("icc-profile-data"), "\(plain.fields)")
        #expect(stripped.report.actions.contains(.metadataStripped))

        let kept = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxEdge: 300, keepMetadata: true)
        let output = try #require(kept.report.output)
        let header = try VipsHeader.of(output)
        #expect(header.fields.contains("exif-data"), "\(header.fields)")
        #expect((header.orientation ?? 1) == 1, "orientation \(String(describing: header.orientation)) kept")
        let exifOrientation = try TestEnvironment.run("vipsheader", ["-f", "exif-ifd0-Orientation", output]).stdout
        #expect(exifOrientation.isEmpty || exifOrientation.hasPrefix("1"), "EXIF says \(exifOrientation)")
        #expect(!kept.report.actions.contains(.metadataStripped))
        // Upright either way: the picture is portrait.
        #expect(header.width < header.height)
    }

    @Test("CMYK without a profile becomes sRGB: libvips' CMYK conversion, and not far from FFmpeg's naive one (not inverted, bands in order)")
    func cmyk() throws {
        let path = TestEnvironment.fixture("images/jpeg_cmyk_400x300.jpg")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxEdge: 200)
        var profile = Profile.ios
        profile.image.maxLongEdge = 200
        try ImageChecks.verify(outcome, input: path, scope: TestEnvironment.testMedia, profile: profile)
        let output = try #require(outcome.report.output)
        let header = try VipsHeader.of(output)
        #expect(header.bands == 3)
        let ours = try ImagePixels.meanColour(output)
        let folder = TestEnvironment.temporaryFolder("cmyk")
        let vips = folder.appendingPathComponent("vips.png").path
        try #require(try TestEnvironment.run("vips", ["colourspace", path, vips, "srgb"]).status == 0)
        let converted = try ImagePixels.meanColour(vips)
        let naive = folder.appendingPathComponent("ffmpeg.png").path
        let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-i", path, "-pix_fmt", "rgb24", naive])
        try #require(run.status == 0, "\(run.stderr)")
        let theirs = try ImagePixels.meanColour(naive)
        for band in 0..<3 {
            #expect(abs(ours[band] - converted[band]) < 3, "band \(band): \(ours) vs vips colourspace \(converted)")
            #expect(abs(ours[band] - theirs[band]) < 20, "band \(band): \(ours) vs FFmpeg \(theirs)")
        }
    }

    @Test("an ICC-tagged picture (Display P3, CMYK with a profile; generated) or a 16-bit one is converted into sRGB: 8-bit, 3 bands, close to vips' transform")
    func iccProfiles() throws {
        let folder = TestEnvironment.temporaryFolder("icc")
        let p3 = try GeneratedImages.displayP3JPEG(in: folder)
        let cmyk = try GeneratedImages.cmykWithProfileJPEG(in: folder)
        let sixteen = folder.appendingPathComponent("png_16bit_rgb_320x240.png").path
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("images/png_16bit_rgb_320x240.png"), toPath: sixteen)
        #expect(try VipsHeader.of(p3).fields.contains("icc-profile-data"))
        #expect(try VipsHeader.of(cmyk).bands == 4)
        for path in [p3, cmyk, sixteen] {
            try Self.expectSRGB(path, scope: folder)
        }
    }

    @Test("the corpus' Display P3 photo, CMYK JPEG with a profile and 16-bit PNG are converted into sRGB", .needsCorpus,
          arguments: ["images/jpeg_display_p3.jpg", "images/jpeg_cmyk_icc.jpg", "images/png_16bit_rgb_900x600.png"])
    func iccProfilesCorpus(file: String) throws {
        try Self.expectSRGB(TestEnvironment.corpus!.appendingPathComponent(file).path, scope: TestEnvironment.corpus!)
    }

    /// Prepares `path` under a 300 px cap: the output is 8-bit sRGB with 3 bands and no profile,
    /// and its pixels match vips' own colour-managed rendering (``ImageChecks/verify``).
    static func expectSRGB(_ path: String, scope: URL) throws {
        let file = URL(fileURLWithPath: path).lastPathComponent
        let outcome = try ImagePrepare.run(path, scope: scope, profile: .ios, maxEdge: 300)
        var profile = Profile.ios
        profile.image.maxLongEdge = 300
        try ImageChecks.verify(outcome, input: path, scope: scope, profile: profile)
        let header = try VipsHeader.of(try #require(outcome.report.output))
        #expect(header.bands == 3 && !header.fields.contains("icc-profile-data"), "\(file): \(header)")
    }
}
