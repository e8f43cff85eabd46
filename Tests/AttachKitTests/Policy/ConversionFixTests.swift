import Foundation
import Testing
@testable import AttachKit

/// Issue 13: `validate`'s fix names the format `prepare` writes. An opaque 4-band TIFF used to be
/// told "convert TIFF→PNG" and was written as JPEG; a greyscale TIFF is kept lossless (PNG).
@Suite("Policy: the conversion fix says what prepare writes")
struct ConversionFixTests {
    @Test("TIFF conversions: the fix and prepare's output agree",
          arguments: [("opaque RGBA", ["bandjoin_const", "SRC", "DST", "255"], "convert TIFF→PNG (JPEG if its alpha channel is fully opaque)", "jpegload"),
                      ("greyscale", ["colourspace", "SRC", "DST", "b-w"], "convert TIFF→PNG", "pngload"),
                      ("RGB", ["copy", "SRC", "DST"], "convert TIFF→JPEG", "jpegload")])
    func tiff(name: String, vips: [String], fix: String, loader: String) throws {
        // Given: a TIFF made from the fixture with vips
        let folder = TestEnvironment.temporaryFolder("conversion-fix")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("picture.tif").path
        let arguments = vips.map { $0 == "SRC" ? TestEnvironment.fixture("images/tiff_lzw_320x240.tif") : $0 == "DST" ? input : $0 }
        let made = try TestEnvironment.run("vips", arguments)
        #expect(made.status == 0, "\(made.stderr)")

        // When: validated and prepared for ios
        let report = try Through.validate(input, scope: folder, profile: .ios)
        let outcome = try ImagePrepare.run(input, scope: folder, profile: .ios)

        // Then: the fix names what prepare wrote
        #expect(report.diagnostics.first { $0.code == .unsupportedType }?.fix == fix, "\(name): \(report.diagnostics.map { $0.fix ?? "" })")
        let output = try #require(outcome.report.output, "\(name): \(outcome.report.error?.message ?? "")")
        #expect(try VipsHeader.of(output).loader == loader, "\(name)")
    }
}
