import Foundation
import Testing
@testable import AttachKit

/// Photographs saved as PNG (issues 13 item 6 and 14): re-encoded, they become JPEG in one encode
/// (no palette detour) and land under the profile's recommended size; graphics and small PNGs
/// stay PNG. The big PNGs are made here from TestMedia's 12 MP photo with `vips` (TestMedia stays
/// small), and every output is re-read with `vipsheader`.
@Suite("Photo PNG to JPEG")
struct PhotoPNGTests {
    /// A 4838×3629 photographic PNG (13.6 MB): TestMedia's 12 MP photo enlarged 1.2× by `vips resize`.
    static func bigPhotoPNG(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("photo_4838x3629.png").path
        let run = try TestEnvironment.run("vips", ["resize", TestEnvironment.fixture("images/jpeg_large_4032x3024.jpg"), path, "1.2"])
        try #require(run.status == 0, "vips resize: \(run.stderr)")
        return path
    }

    @Test("a 13.6 MB photo PNG prepared for ios is a JPEG under the 1 MB recommendation, and validates without a warning")
    func photoUnderRecommendation() throws {
        let folder = TestEnvironment.temporaryFolder("photo-png")
        let input = try Self.bigPhotoPNG(in: folder)
        let outcome = try ImagePrepare.run(input, scope: folder, profile: .ios)
        let report = outcome.report
        #expect(report.ok, "\(String(describing: report.error))")
        let output = try #require(report.output)
        let header = try VipsHeader.of(output)
        #expect(header.loader == "jpegload")
        #expect(max(header.width, header.height) == 2048)
        #expect((report.after?.bytes ?? .max) < Profile.ios.image.recommendedBytes!, "\(report.notes)")
        #expect(report.attempts == 1, "one encode, no palette detour: \(report.notes)")
        #expect(report.notes.contains { $0.hasPrefix("a photograph (") }, "\(report.notes)")
        let validation = try Through.validate(output, scope: outcome.folder, profile: .ios)
        #expect(validation.diagnostics.isEmpty, "\(validation.diagnostics.map(\.code))")
    }

    @Test("under apple a photo PNG over 10 MB becomes the JPEG `vips copy` writes, in one encode")
    func photoAtVipsCopyCost() throws {
        let folder = TestEnvironment.temporaryFolder("photo-png-apple")
        let input = try Self.bigPhotoPNG(in: folder)
        let outcome = try ImagePrepare.run(input, scope: folder, profile: .apple)
        let report = outcome.report
        let output = try #require(report.output, "\(String(describing: report.error))")
        #expect(report.attempts == 1, "\(report.notes)")
        #expect(try VipsHeader.of(output).loader == "jpegload")
        let reference = folder.appendingPathComponent("reference.jpg").path
        let run = try TestEnvironment.run("vips", ["copy", input, reference + "[Q=80,optimize_coding,strip]"])
        try #require(run.status == 0, "vips copy: \(run.stderr)")
        #expect(try ImagePrepare.sameBytes(output, reference), "not the bytes vips copy writes")
    }

    @Test("a graphic PNG stays PNG: nearest-neighbour enlargement of a palette picture, over the caps")
    func graphicStaysPNG() throws {
        let folder = TestEnvironment.temporaryFolder("graphic-png")
        let input = folder.appendingPathComponent("graphic_2400x1800.png").path
        let run = try TestEnvironment.run("vips", ["resize", TestEnvironment.fixture("images/png_palette_400x300.png"), input, "6",
                                                   "--kernel", "nearest"])
        try #require(run.status == 0, "vips resize: \(run.stderr)")
        let outcome = try ImagePrepare.run(input, scope: folder, profile: .ios)
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        #expect(try VipsHeader.of(output).loader == "pngload", "\(outcome.report.notes)")
        #expect(!outcome.report.notes.contains { $0.hasPrefix("a photograph (") })
        if (outcome.report.after?.bytes ?? 0) > Profile.ios.image.recommendedBytes! {
            #expect(outcome.report.notes.contains { $0.hasPrefix("over the recommended") }, "\(outcome.report.notes)")
        }
    }

    @Test("a small photo PNG that must be re-encoded (16-bit) stays PNG: its PNG is far under the recommendation")
    func smallPhotoStaysPNG() throws {
        let input = TestEnvironment.fixture("images/png_16bit_rgb_320x240.png")
        let outcome = try ImagePrepare.run(input, scope: TestEnvironment.testMedia, profile: .ios)
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        #expect(try VipsHeader.of(output).loader == "pngload", "\(outcome.report.notes)")
    }

    @Test("the estimate: photographs sample as many colours, graphics as few")
    func estimate() throws {
        let photo = try VipsImage.load(path: TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg"), sequential: false,
                                       failOnWarnings: false).copyToMemory()
        let photoVerdict = PhotoEstimate.judge(photo)
        #expect(photoVerdict?.photographic == true, "\(photoVerdict?.evidence ?? "not judged")")
        let graphic = try VipsImage.load(path: TestEnvironment.fixture("images/png_palette_400x300.png"), sequential: false,
                                         failOnWarnings: false).copyToMemory()
        let graphicVerdict = PhotoEstimate.judge(graphic)
        #expect(graphicVerdict?.photographic == false, "\(graphicVerdict?.evidence ?? "not judged")")
    }
}
