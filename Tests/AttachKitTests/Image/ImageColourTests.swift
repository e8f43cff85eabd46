import Foundation
import Testing
@testable import AttachKit

/// Orientation, colour and metadata of re-encoded images, checked on pixels and headers.
@Suite("Image orientation, colour and metadata")
struct ImageColourTests {
    /// Orientation fixtures forced through the pipeline (a long-edge cap below their size).
    static let oriented: [(String, String)] = [
        ("media", "images/jpeg_exif_orientation6_600x400.jpg"),
        ("corpus", "images/jpeg_exif_orientation3.jpg"),
        ("corpus", "images/jpeg_exif_orientation5_transpose.jpg"),
        ("corpus", "images/jpeg_exif_orientation6.jpg"),
        ("corpus", "images/jpeg_exif_orientation8_portrait.jpg"),
        ("corpus", "images/png_exif_orientation6.png"),
        ("corpus", "images/webp_exif_orientation6.webp"),
    ]

    @Test("EXIF orientation is applied: upright pixels (vips' autorotated rendering, not a turned one), no tag left", arguments: oriented)
    func orientation(scope: String, file: String) throws {
        guard let (path, root) = ImageFittingTests.locate(file, scope) else { return }
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

    @Test("an ICC-tagged picture (Display P3, CMYK with a profile) is converted into sRGB: 8-bit, 3 bands, close to vips' transform")
    func iccProfiles() throws {
        let corpus = try #require(TestEnvironment.corpus)
        for file in ["images/jpeg_display_p3.jpg", "images/jpeg_cmyk_icc.jpg", "images/png_16bit_rgb_900x600.png"] {
            let path = corpus.appendingPathComponent(file).path
            let outcome = try ImagePrepare.run(path, scope: corpus, profile: .ios, maxEdge: 300)
            var profile = Profile.ios
            profile.image.maxLongEdge = 300
            try ImageChecks.verify(outcome, input: path, scope: corpus, profile: profile)
            let header = try VipsHeader.of(try #require(outcome.report.output))
            #expect(header.bands == 3 && !header.fields.contains("icc-profile-data"), "\(file): \(header)")
        }
    }
}
