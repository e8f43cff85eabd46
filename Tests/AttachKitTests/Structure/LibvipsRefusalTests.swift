import Foundation
import Testing
@testable import AttachKit

/// Issue 13 item 4: `validate --deep` used to pass JPEGs libvips refuses ("two SOF markers") by
/// decoding them through FFmpeg's more forgiving decoder, and `prepare` then copied them through.
/// Where libvips reads every valid file of a format, its refusal is the verdict.
@Suite("Structure: libvips' refusal is the verdict for the formats it owns")
struct LibvipsRefusalTests {
    /// The progressive JPEG fixture with its frame header (`SOF2`) written twice.
    static func jpegWithTwoFrameHeaders(in folder: URL) throws -> URL {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"))))
        let frame = try #require(LengthFieldFinder.fields(in: bytes).first { $0.format == "jpeg FFC2" },
                                 "the fixture's SOF2 segment")
        let segment = bytes[(frame.offset - 2)..<frame.span.upperBound]
        let url = folder.appendingPathComponent("two_sof.jpg")
        try Data(bytes[..<frame.span.upperBound] + segment + bytes[frame.span.upperBound...]).write(to: url)
        return url
    }

    @Test("a JPEG with two frame headers: libvips refuses it, so validate --deep says corrupt and prepare refuses it")
    func twoFrameHeaders() throws {
        // Given: a JPEG libvips refuses ("two SOF markers") but FFmpeg decodes
        let folder = TestEnvironment.temporaryFolder("libvips-refusal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = try Self.jpegWithTwoFrameHeaders(in: folder)
        let vips = try TestEnvironment.run("vipsheader", [input.path])
        #expect(vips.status != 0 && vips.stderr.contains("two SOF markers"), "vipsheader: \(vips.stderr)")

        // When: it is deep-validated and prepared
        let report = try Through.validate(input.path, scope: folder, profile: .ios, deep: true)
        let outcome = try ImagePrepare.run(input.path, scope: folder, profile: .ios)

        // Then: corrupt, with libvips' own words, and no output
        let corrupt = report.diagnostics.filter { $0.code == .corrupt }
        #expect(corrupt.count == 1 && corrupt[0].message.contains("two SOF markers"), "\(report.diagnostics.map(\.message))")
        #expect(outcome.report.output == nil && outcome.report.error?.code == "corrupt", "\(outcome.report.error?.message ?? "ok")")
        #expect(outcome.files.isEmpty)
    }

    @Test("a valid file of each owned format is not called corrupt, and formats libvips does not own are not judged by it",
          arguments: ["images/jpeg_progressive_800x600.jpg", "images/png_palette_400x300.png", "images/gif_animated_320x240_24f.gif",
                      "images/webp_alpha_320x240.webp", "images/tiff_lzw_320x240.tif"])
    func validFiles(_ fixture: String) throws {
        let path = TestEnvironment.fixture(fixture)
        let info = try Prober().probeWithSniff(path: path, displayPath: path).info
        #expect(DeepCheck.libvipsRefusal(path: path, info: info) == nil)
        #expect(DeepCheck.check(path: path, info: info) == .intact)
    }

    @Test("a 12-bit JPEG, which this libvips build cannot read, is decoded by FFmpeg and not called corrupt", .needsCorpus)
    func twelveBitJPEG() throws {
        let path = TestEnvironment.corpus!.appendingPathComponent("images/jpeg_12bit_precision.jpg").path
        let info = try Prober().probeWithSniff(path: path, displayPath: path).info
        #expect(DeepCheck.libvipsRefusal(path: path, info: info) == nil)
        #expect(DeepCheck.check(path: path, info: info) == .intact)
    }

    @Test("libvips' message for a TIFF it cannot read names no descriptor path (/proc/self/fd/N, which differed from verb to verb): probe, validate and prepare say the same")
    func refusalNamesNoDescriptor() throws {
        let folder = TestEnvironment.temporaryFolder("libvips-message")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("garbage.tif").path
        try Data([0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0xFF] + (0..<200).map { UInt8($0) }).write(to: URL(fileURLWithPath: path))
        var messages: [String] = []
        for verb in [["probe"], ["validate"], ["prepare", "--out", folder.appendingPathComponent("out").path]] {
            let run = try TestEnvironment.runAttachKit(verb + ["--json", path])
            let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            let message = report["error"]?["message"]?.stringValue ?? report["diagnostics"]?.arrayValue?.first?["message"]?.stringValue ?? ""
            #expect(!message.contains("/proc/self/fd") && message.contains("cannot be read"), "\(verb[0]): \(run.stdout)")
            messages.append(message)
        }
        #expect(Set(messages).count == 1, "\(messages)")
    }
}
