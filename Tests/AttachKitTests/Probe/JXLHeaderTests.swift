import Foundation
import Testing
@testable import AttachKit

/// JPEG XL's size comes from its codestream header (issue 27: FFmpeg 5.1 decoded a whole 16000²
/// picture, 1.5 GB, to learn its size in a probe).
@Suite("JPEG XL header")
struct JXLHeaderTests {
    /// Writes bits least significant first, the way JPEG XL stores them.
    struct BitWriter {
        var bytes: [UInt8] = []
        var count = 0
        mutating func put(_ value: UInt32, _ width: Int) {
            for i in 0..<width {
                if count % 8 == 0 { bytes.append(0) }
                bytes[bytes.count - 1] |= UInt8((value >> UInt32(i)) & 1) << UInt8(count % 8)
                count += 1
            }
        }
    }

    /// A codestream header: signature, a large SizeHeader (height, ratio, width when the ratio is
    /// 0), then ImageMetadata's first fields, with an orientation when one is given.
    static func codestream(height: Int, ratio: UInt32 = 0, width: Int = 0, orientation: UInt32? = nil) -> [UInt8] {
        var w = BitWriter()
        w.put(0x0AFF, 16)
        w.put(0, 1)  // not small
        func large(_ v: Int) { w.put(3, 2); w.put(UInt32(v - 1), 30) }
        large(height)
        w.put(ratio, 3)
        if ratio == 0 { large(width) }
        if let orientation {
            w.put(0, 1); w.put(1, 1); w.put(orientation - 1, 3)  // not all default, extra fields
        } else {
            w.put(1, 1)  // all default
        }
        return w.bytes + [UInt8](repeating: 0x5A, count: 64)
    }

    @Test("sizes, ratios and orientations read from crafted headers; a cut header is no answer")
    func craftedHeaders() {
        #expect(JXLHeader.parse(Self.codestream(height: 1080, ratio: 5)) == JXLHeader(width: 1920, height: 1080))
        #expect(JXLHeader.parse(Self.codestream(height: 300, ratio: 2)) == JXLHeader(width: 360, height: 300))
        #expect(JXLHeader.parse(Self.codestream(height: 7, ratio: 0, width: 1_000_000)) == JXLHeader(width: 1_000_000, height: 7))
        #expect(JXLHeader.parse(Self.codestream(height: 480, ratio: 0, width: 640, orientation: 6)) == JXLHeader(width: 480, height: 640))
        #expect(JXLHeader.parse(Self.codestream(height: 480, ratio: 0, width: 640, orientation: 3)) == JXLHeader(width: 640, height: 480))
        #expect(JXLHeader.parse(Array(Self.codestream(height: 480, ratio: 0, width: 640).prefix(6))) == nil)
        #expect(JXLHeader.parse([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 60)) == nil)
    }

    /// `bytes` in pieces of `size`.
    static func parts(_ bytes: [UInt8], of size: Int) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    /// A `jxlp` part index: big-endian, the top bit set on the last part.
    static func partIndex(_ index: Int, last: Bool) -> [UInt8] {
        let value = UInt32(index) | (last ? 0x8000_0000 : 0)
        return [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The container form: a signature box, `ftyp`, then the codestream in `jxlc`, or split over
    /// `jxlp` boxes of 3 bytes each (each with its 4-byte part index: a header read across a box
    /// header misread a 9000² picture as 449×808).
    static func boxed(_ codestream: [UInt8], partial: Bool) -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + payload
        }
        return box("JXL ", [0x0D, 0x0A, 0x87, 0x0A]) + box("ftyp", Array("jxl ".utf8) + [0, 0, 0, 0] + Array("jxl ".utf8))
            + (partial ? Self.parts(codestream, of: 3).enumerated().flatMap { index, part in box("jxlp", Self.partIndex(index, last: index == (codestream.count + 2) / 3 - 1) + part) }
                       : box("jxlc", codestream))
    }

    @Test("files libjxl wrote (through vips), bare and boxed: probe gives vipsheader's size",
          .enabled(if: TestEnvironment.hasTool("vips"), "needs vips (libvips-tools)"))
    func realFiles() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg")
        for (width, height) in [(333, 211), (64, 48), (320, 180), (17, 1)] {
            let path = folder.appendingPathComponent("p\(width)x\(height).jxl").path
            let made = try TestEnvironment.run("vips", ["thumbnail", source, path, "\(width)", "--height", "\(height)", "--size", "force"])
            #expect(made.status == 0, "\(made.stderr)")
            let header = try TestEnvironment.run("vipsheader", ["-f", "width", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let info = try Prober().probeWithSniff(path: path, displayPath: path).info
            #expect(info.width == width && info.height == height && "\(width)" == header, "\(path): \(info.width ?? 0)x\(info.height ?? 0)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            for partial in [false, true] {
                let boxedPath = folder.appendingPathComponent("b\(partial)\(width)x\(height).jxl").path
                try Data(Self.boxed(bytes, partial: partial)).write(to: URL(fileURLWithPath: boxedPath))
                let boxedInfo = try Prober().probeWithSniff(path: boxedPath, displayPath: boxedPath).info
                #expect(boxedInfo.width == width && boxedInfo.height == height, "\(boxedPath)")
            }
        }
    }

    @Test("a 16000² header over a few bytes is refused over the pixel cap by its header, not decoded")
    func overCapByHeader() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("huge.jxl").path
        try Data(Self.codestream(height: 16000, ratio: 1)).write(to: URL(fileURLWithPath: path))
        let info = try Prober().probeWithSniff(path: path, displayPath: path).info
        #expect(info.width == 16000 && info.height == 16000)
        let run = try TestEnvironment.runAttachKit(["validate", "--deep", "--profile", "apple", path])
        #expect(run.status == 1 && run.stdout.contains("over-cap: not decoded"), "\(run.stdout)\(run.stderr)")
    }
}
