import Foundation
import Testing
@testable import AttachKit

/// JPEGs whose damage libvips 8.14 misses with `fail_on=warning` (``JPEGDataCheck``) are corrupt
/// from every verb, never handed back half grey or garbled. The cases came from outside attacks: a
/// wide strip cut to 80 % with its EOI put back (refused before the DCT shrink-on-load reached
/// it, handed back after), a frame header that declares one row of blocks over the data of a
/// small picture, a picture cut to 99 %, and one flipped bit that leaves bytes before the EOI.
@Suite("JPEG data checked by libjpeg-turbo")
struct JPEGDataCheckTests {
    /// A `width`×`height` JPEG of a test pattern (4:2:0, no metadata).
    static func jpeg(width: Int, height: Int, in folder: URL) throws -> URL {
        let png = folder.appendingPathComponent("pattern_\(width)x\(height).png")
        _ = try GeneratedImages.make("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height)",
                                                "-frames:v", "1", png.path], output: png)
        let jpeg = folder.appendingPathComponent("pattern_\(width)x\(height).jpg")
        _ = try GeneratedImages.make("vips", ["jpegsave", png.path, jpeg.path, "--Q", "90", "--subsample-mode", "on", "--strip"],
                                     output: jpeg)
        return jpeg
    }

    /// `source` cut to `fraction` of its bytes with an EOI marker put back.
    static func cut(_ source: URL, to fraction: Double, in folder: URL) throws -> String {
        let bytes = try Data(contentsOf: source)
        let output = folder.appendingPathComponent(source.deletingPathExtension().lastPathComponent + "_cut\(Int(fraction * 100)).jpg")
        try (bytes.prefix(Int(Double(bytes.count) * fraction)) + Data([0xFF, 0xD9])).write(to: output)
        return output.path
    }

    /// `source` with its frame header declaring `width`×`height` (the data stay the source's).
    static func declaring(_ source: URL, width: Int, height: Int, in folder: URL) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: source))
        let sof = try #require((2..<bytes.count - 9).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = UInt8(height >> 8)
        bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8)
        bytes[sof + 8] = UInt8(width & 0xFF)
        let output = folder.appendingPathComponent("declares_\(width)x\(height).jpg")
        try Data(bytes).write(to: output)
        return output.path
    }

    /// `prepare`, `thumbnail` and `validate --deep` on `path`: each error code (`nil` = ok), and
    /// whether prepare left a file in its output folder.
    static func verdicts(_ path: String, in folder: URL) throws -> (prepare: String?, thumbnail: String?, deep: Bool, output: Bool) {
        let out = folder.appendingPathComponent("out-" + URL(fileURLWithPath: path).lastPathComponent)
        let prepare = try TestEnvironment.runAttachKit(["prepare", "--out", out.path, "--json", path])
        let thumbnail = try TestEnvironment.runAttachKit(["thumbnail", "--out", out.path + "-thumb.jpg", "--json", path])
        let deep = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", path])
        let corrupt = deep.stdout.contains("\"code\":\"corrupt\"")
        let written = (try? FileManager.default.contentsOfDirectory(atPath: out.path))?.isEmpty == false
        return (TestEnvironment.errorCode(prepare.stdout), TestEnvironment.errorCode(thumbnail.stdout), corrupt, written)
    }

    @Test("a wide strip cut to 80 % and 99 %, EOI put back: corrupt from prepare (shrunk on load or not), thumbnail and --deep",
          arguments: [(6720, 48), (5736, 48), (6720, 16), (1200, 256)])
    func cutStrip(width: Int, height: Int) throws {
        let folder = TestEnvironment.temporaryFolder("jpeg-last-read-\(width)x\(height)")
        let source = try Self.jpeg(width: width, height: height, in: folder)
        for fraction in [0.8, 0.99] {
            let path = try Self.cut(source, to: fraction, in: folder)
            let verdict = try Self.verdicts(path, in: folder)
            #expect(verdict.prepare == "corrupt", "\(path)")
            #expect(verdict.thumbnail == "corrupt", "\(path)")
            #expect(verdict.deep, "\(path)")
            #expect(!verdict.output, "\(path)")
        }
        // The whole file prepares.
        let whole = try Self.verdicts(source.path, in: folder)
        #expect(whole.prepare == nil && whole.thumbnail == nil && !whole.deep)
    }

    @Test("a frame header declaring one row of blocks over a small picture's data (20000×4, 65500×4): corrupt")
    func oneRowDeclared() throws {
        let folder = TestEnvironment.temporaryFolder("jpeg-last-read-sof")
        let source = try Self.jpeg(width: 100, height: 67, in: folder)
        for (width, height) in [(20000, 4), (65500, 4)] {
            let path = try Self.declaring(source, width: width, height: height, in: folder)
            let verdict = try Self.verdicts(path, in: folder)
            #expect(verdict.prepare == "corrupt", "\(width)×\(height)")
            #expect(verdict.thumbnail == "corrupt", "\(width)×\(height)")
            #expect(verdict.deep, "\(width)×\(height)")
        }
    }

    @Test("one flipped bit that leaves bytes before the EOI (libjpeg: extraneous bytes): corrupt from prepare (no passthrough), thumbnail and --deep, and as cover art it is dropped",
          arguments: ["images/jpeg_exif_orientation6_600x400.jpg", "images/jpeg_cmyk_400x300.jpg"])
    func flippedBit(fixture: String) throws {
        let folder = TestEnvironment.temporaryFolder("jpeg-data-flip-\(URL(fileURLWithPath: fixture).lastPathComponent)")
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(fixture))))
        #expect(try JPEGEntropyScan.scan(original).warnings == 0)
        // The first flip, walking back from the EOI, that libjpeg ends with extraneous bytes (a
        // Huffman decode thrown off that runs out of blocks before the data end).
        var flipped: [UInt8]?
        search: for offset in stride(from: original.count - 3, to: original.count / 2, by: -1) {
            for bit in 0..<8 {
                var bytes = original
                bytes[offset] ^= UInt8(1 << bit)
                if bytes[offset] == 0xFF || original[offset] == 0xFF || original[offset - 1] == 0xFF { continue }
                if let scan = try? JPEGEntropyScan.scan(bytes), scan.firstWarning?.contains("extraneous bytes before marker 0xd9") == true {
                    flipped = bytes
                    break search
                }
            }
        }
        let bytes = try #require(flipped, "no bit flip of \(fixture) ends in extraneous bytes")
        let path = folder.appendingPathComponent("flipped.jpg")
        try Data(bytes).write(to: path)
        let verdict = try Self.verdicts(path.path, in: folder)
        #expect(verdict.prepare == "corrupt")
        #expect(verdict.thumbnail == "corrupt")
        #expect(verdict.deep)
        #expect(!verdict.output)
    }

    @Test("0xFF fill bytes before restart markers (legal, T.81 B.1.1.2) and before the EOI: valid from prepare, thumbnail and --deep")
    func fillBytesBeforeMarkers() throws {
        let folder = TestEnvironment.temporaryFolder("jpeg-data-fill")
        let png = folder.appendingPathComponent("pattern.png")
        _ = try GeneratedImages.make("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "1", png.path], output: png)
        let source = folder.appendingPathComponent("restarts.jpg")
        _ = try GeneratedImages.make("vips", ["jpegsave", png.path, source.path, "--restart-interval", "1", "--strip"], output: source)
        let bytes = [UInt8](try Data(contentsOf: source))
        let scan = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        var filled: [UInt8] = Array(bytes[..<scan])
        var i = scan
        while i < bytes.count {
            // Two fill bytes before every restart marker and before the EOI.
            if bytes[i] == 0xFF, i + 1 < bytes.count, (0xD0...0xD7).contains(bytes[i + 1]) || bytes[i + 1] == 0xD9 { filled += [0xFF, 0xFF] }
            filled.append(bytes[i])
            i += 1
        }
        #expect(filled.count > bytes.count + 4)
        #expect(try JPEGEntropyScan.scan(filled).warnings == 0)
        let path = folder.appendingPathComponent("filled.jpg")
        try Data(filled).write(to: path)
        let verdict = try Self.verdicts(path.path, in: folder)
        #expect(verdict.prepare == nil)
        #expect(verdict.thumbnail == nil)
        #expect(!verdict.deep)
    }

    @Test("a clean JPEG's scan has no warning, a cut one's names libjpeg's")
    func scanWarnings() throws {
        let folder = TestEnvironment.temporaryFolder("jpeg-last-read-scan")
        let source = try Self.jpeg(width: 640, height: 48, in: folder)
        #expect(try JPEGEntropyScan.scan([UInt8](Data(contentsOf: source))).warnings == 0)
        let cut = try JPEGEntropyScan.scan([UInt8](Data(contentsOf: URL(fileURLWithPath: Self.cut(source, to: 0.8, in: folder)))))
        #expect(cut.warnings > 0)
        #expect(cut.firstWarning?.contains("premature end of data segment") == true)
    }
}
