import Foundation
import Testing
@testable import AttachKit

/// Pictures libvips cannot read in this build go through FFmpeg: BMP (libvips has only the
/// blocked ImageMagick loader), 12-bit JPEG, JPEG XL (libvips' loader is untrusted, blocked).
@Suite("Image decoding through FFmpeg")
struct ImageDecoderTests {
    /// PSNR of `output` against `input` decoded and scaled to the output's size by the `ffmpeg` CLI.
    static func psnrAgainstFFmpeg(output: String, input: String) throws -> ImagePixels.Fidelity {
        let out = try VipsImage.load(path: output, sequential: false)
        let reference = TestEnvironment.temporaryFolder("ffmpeg-reference").appendingPathComponent("ref.png").path
        let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-i", input, "-vf", "scale=\(out.width):\(out.height):flags=area",
                                                     "-pix_fmt", "rgb24", reference])
        guard run.status == 0 else { throw ImageTestFailure("ffmpeg: \(run.stderr)") }
        return try ImagePixels.psnr(out, try VipsImage.load(path: reference, sequential: false))
    }

    @Test("a 12-bit JPEG that must shrink is decoded by FFmpeg into an 8-bit JPEG of the same picture", .needsCorpus)
    func twelveBitJPEG() throws {
        let corpus = TestEnvironment.corpus!
        let path = corpus.appendingPathComponent("images/jpeg_12bit_precision.jpg").path
        let outcome = try ImagePrepare.run(path, scope: corpus, profile: .ios, maxEdge: 100)
        var profile = Profile.ios
        profile.image.maxLongEdge = 100
        try ImageChecks.verify(outcome, input: path, scope: corpus, profile: profile, checkPixels: false)
        let output = try #require(outcome.report.output)
        #expect(try VipsHeader.of(output).loader == "jpegload")
        let fidelity = try Self.psnrAgainstFFmpeg(output: output, input: path)
        #expect(fidelity.luma >= 30, "\(fidelity)")
    }

    @Test("a JPEG XL is converted to JPEG through FFmpeg, and thumbnailed")
    func jpegXL() throws {
        let folder = TestEnvironment.temporaryFolder("jxl")
        let path = try GeneratedImages.jpegXL(in: folder)
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .apple)
        try ImageChecks.verify(outcome, input: path, scope: folder, profile: .apple, checkPixels: false)
        let output = try #require(outcome.report.output)
        #expect(outcome.report.after?.container == .jpeg && outcome.report.actions.contains(.converted))
        let fidelity = try Self.psnrAgainstFFmpeg(output: output, input: path)
        #expect(fidelity.luma >= 30, "\(fidelity)")
        let (thumbnail, _) = try ImageThumbnailTests.thumbnail(path, scope: folder, request: ThumbnailRequest(size: 200))
        #expect(thumbnail.width == 200 && thumbnail.height == 150)
    }

    @Test("a BMP over budget is decoded by FFmpeg and fitted like any photo")
    func bmpFits() throws {
        let path = TestEnvironment.fixture("images/bmp_24bit_160x120.bmp")
        let outcome = try ImagePrepare.run(path, scope: TestEnvironment.testMedia, profile: .apple, maxBytes: 3_000)
        var profile = Profile.apple
        profile.image.maxBytes = 3_000
        try ImageChecks.verify(outcome, input: path, scope: TestEnvironment.testMedia, profile: profile)
        #expect(outcome.report.after?.container == .jpeg)
        let fidelity = try Self.psnrAgainstFFmpeg(output: try #require(outcome.report.output), input: path)
        #expect(fidelity.luma >= 26, "\(fidelity)")
    }
}
