import Foundation
import Testing
@testable import AttachKit

/// The JPEG shrink-on-load AttachKit chooses itself (``ImageLoadStep/jpegShrink(_:box:)``: libjpeg's
/// DCT scaling while ``ImageLoadStep/jpegShrinkHeadroom`` of the output is kept): which pictures
/// take it, that they come out upright and colour-managed, and that the prepared picture stays
/// within 0.001 SSIM of `vipsthumbnail`'s against a full-decode lanczos3 reference.
@Suite("JPEG shrink-on-load")
struct JPEGShrinkTests {
    /// A 3000×2000 photo-like JPEG: the benchmark's recipe (a test pattern with grain), a quarter
    /// of its pixels.
    static func photo(in folder: URL) throws -> String {
        let output = folder.appendingPathComponent("photo_3000x2000.jpg")
        return try GeneratedImages.make("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                                                   "testsrc2=s=3000x2000:d=1,noise=alls=14:allf=u,gblur=sigma=0.6",
                                                   "-frames:v", "1", "-q:v", "3", output.path], output: output)
    }

    /// The shrink chosen for `path` under the ios profile with a long edge of `edge`.
    static func shrink(_ path: String, scope: URL, edge: Int) throws -> Int? {
        var profile = Profile.ios
        profile.image.maxLongEdge = edge
        let job = PrepareJob(inputPath: path, info: try Through.probe(path, scope: scope), findings: [], profile: profile,
                             options: PrepareOptions(outputFolder: scope.path), safety: SafetyLimits(), deadline: Deadline(seconds: 60))
        let plan = try ImagePlan(job: job)
        let work = ImageWork(job: job, plan: plan)
        return ImageLoadStep.jpegShrink(work, box: plan.caps.thumbnailBox(work.loadBox, width: plan.width, height: plan.height))
    }

    /// SSIM of `path` against `reference` as the benchmark measures it (`ffmpeg`'s `ssim` filter in
    /// the format it negotiates: Y, U and V weighted by their sizes).
    static func ssim(_ path: String, against reference: String) throws -> Double {
        let run = try TestEnvironment.run("ffmpeg", ["-v", "info", "-nostats", "-i", path, "-i", reference, "-lavfi",
                                                     "[0:v:0][1:v:0]ssim", "-f", "null", "-"])
        guard run.status == 0, let range = run.stderr.range(of: "All:", options: .backwards) else {
            throw ImageTestFailure("ssim \(path): \(run.stderr)")
        }
        return Double(run.stderr[range.upperBound...].prefix { $0 != " " }) ?? .nan
    }

    @Test("the largest of 8, 4, 2 that keeps 1.4× the output; none under 2 × 1.4 of a shrink, nor for a PNG; the stored axes of a turned JPEG")
    func choice() throws {
        let folder = TestEnvironment.temporaryFolder("jpeg-shrink")
        let path = try Self.photo(in: folder)
        #expect(try Self.shrink(path, scope: folder, edge: 1024) == 2)  // 1500 px ≥ 1.4 × 1024
        #expect(try Self.shrink(path, scope: folder, edge: 1100) == nil)  // 1500 < 1540: vips_thumbnail decides
        #expect(try Self.shrink(path, scope: folder, edge: 260) == 8)  // 375 ≥ 364
        #expect(try Self.shrink(TestEnvironment.fixture("images/png_rgb_opaque_400x300.png"), scope: TestEnvironment.testMedia, edge: 100) == nil)
        // 600×400 stored, 400×600 upright: a 200 px long edge is 133×200 upright, 280×187 stored at 1.4×.
        let turned = TestEnvironment.fixture("images/jpeg_exif_orientation6_600x400.jpg")
        #expect(try Self.shrink(turned, scope: TestEnvironment.testMedia, edge: 200) == 2)
        #expect(try Self.shrink(turned, scope: TestEnvironment.testMedia, edge: 215) == nil)
    }

    @Test("a shrunk JPEG with EXIF orientation 6 comes out upright; with metadata kept, no stale orientation")
    func orientation() throws {
        let path = TestEnvironment.fixture("images/jpeg_exif_orientation6_600x400.jpg")
        var profile = Profile.ios
        profile.image.maxLongEdge = 200
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxEdge: 200)
        try ImageChecks.verify(outcome, input: path, scope: TestEnvironment.testMedia, profile: profile)
        let output = try #require(outcome.report.output)
        let header = try VipsHeader.of(output)
        #expect(header.width == 133 && header.height == 200, "\(header.width)×\(header.height)")
        #expect(outcome.report.actions.contains(.rotated) && outcome.report.actions.contains(.metadataStripped))
        let contrast = try ImageOrientation.contrast(output: output, input: path)
        #expect(contrast.upright.luma >= 30 && contrast.upright.luma >= contrast.turned.luma + 6, "\(contrast)")
        let kept = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .ios, maxEdge: 200, keepMetadata: true)
        let keptHeader = try VipsHeader.of(try #require(kept.report.output))
        #expect(keptHeader.fields.contains("exif-data") && (keptHeader.orientation ?? 1) == 1, "\(keptHeader.fields)")
        #expect(keptHeader.width == 133 && keptHeader.height == 200)
    }

    @Test("a shrunk CMYK JPEG with its profile is converted to sRGB like the unshrunk path")
    func cmyk() throws {
        let folder = TestEnvironment.temporaryFolder("jpeg-shrink-cmyk")
        let path = try GeneratedImages.cmykWithProfileJPEG(in: folder)
        #expect(try Self.shrink(path, scope: folder, edge: 280) == 2)
        var profile = Profile.ios
        profile.image.maxLongEdge = 280
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios, maxEdge: 280)
        try ImageChecks.verify(outcome, input: path, scope: folder, profile: profile)
        let header = try VipsHeader.of(try #require(outcome.report.output))
        #expect(header.width == 280 && header.height == 210 && header.bands == 3, "\(header.width)×\(header.height)×\(header.bands)")
    }

    /// Decoding at half size loses a little before the encode (two resamples, the first a DCT
    /// truncation, instead of one) and little after the q80 encode, whose loss dominates: allowed
    /// 0.001 under `vipsthumbnail`'s SSIM (measured: 0.0007 under on this picture, 0.0004 on the
    /// benchmark's 24 MP one).
    @Test("a 3000×2000 photo at 1024 px: SSIM against a full-decode lanczos3 reference within 0.001 of vipsthumbnail's, same size")
    func quality() throws {
        let folder = TestEnvironment.temporaryFolder("jpeg-shrink-quality")
        let path = try Self.photo(in: folder)
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios, maxEdge: 1024)
        let output = try #require(outcome.report.output, "not prepared: \(String(describing: outcome.report.error))")
        #expect(outcome.report.quality == ImageStillFitStep.jpegCeiling)
        let thumbnail = folder.appendingPathComponent("vipsthumbnail.jpg")
        _ = try GeneratedImages.make("vipsthumbnail", [path, "-s", "1024", "-o", thumbnail.path + "[Q=80,strip,optimize_coding]"],
                                     output: thumbnail)
        let referenceURL = folder.appendingPathComponent("reference.png")
        let reference = try GeneratedImages.make("vips", ["reduce", path, referenceURL.path, "\(3000.0 / 1024)", "\(2000.0 / 683)",
                                                          "--kernel", "lanczos3"], output: referenceURL)
        for picture in [output, thumbnail.path, reference] {
            let header = try VipsHeader.of(picture)
            #expect(header.width == 1024 && header.height == 683, "\(picture): \(header.width)×\(header.height)")
        }
        let ours = try Self.ssim(output, against: reference), theirs = try Self.ssim(thumbnail.path, against: reference)
        #expect(ours >= theirs - 0.001, "SSIM \(ours) against vipsthumbnail's \(theirs)")
        print("JPEG shrink-on-load: SSIM \(ours), vipsthumbnail \(theirs)")
    }
}
