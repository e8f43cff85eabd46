import Foundation
import Testing
@testable import AttachKit

/// Too many frames or pages is over a cap, not a broken file: refused before decoding as
/// `over-cap`, naming the cap; one under the cap is prepared.
@Suite("Frame and page count caps")
struct CountCapTests {
    /// A GIF of `frames` 1×1 frames (2-colour palette, 100 ms each, looping).
    static func gif(frames: Int) -> [UInt8] {
        let screen = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        let loop = [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01, 0x00, 0x00, 0x00]
        let frame: [UInt8] = [0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00,
                              0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0x00,
                              0x02, 0x02, 0x44, 0x01, 0x00]
        var bytes = screen + loop
        bytes.reserveCapacity(bytes.count + frames * frame.count + 1)
        for _ in 0..<frames { bytes += frame }
        return bytes + [0x3B]
    }

    /// A little-endian TIFF of `pages` 1×1 8-bit grey pages, one IFD each, chained.
    static func tiff(pages: Int) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
            le16(tag) + le16(type) + le32(1) + (type == 3 ? le16(value) + [0, 0] : le32(value))
        }
        let ifdSize = 2 + 9 * 12 + 4
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8)
        for page in 0..<pages {
            let pixel = bytes.count + ifdSize
            let next = page + 1 < pages ? pixel + 2 : 0
            bytes += le16(9)
            for (tag, type, value) in [(256, 3, 1), (257, 3, 1), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, pixel),
                                       (277, 3, 1), (278, 3, 1), (279, 4, 1)] {
                bytes += entry(tag, type, value)
            }
            bytes += le32(next) + [0x80, 0x00]
        }
        return bytes
    }

    static func write(_ bytes: [UInt8], named name: String) throws -> (folder: URL, path: String) {
        let folder = TestEnvironment.temporaryFolder("count-caps")
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (folder, path)
    }

    @Test("a 9,999-frame GIF is over-cap (libvips' GIF decoder reads 4,097 frames), for prepare and thumbnail")
    func gifOverDecoderLimit() throws {
        // Given
        let (folder, path) = try Self.write(Self.gif(frames: 9_999), named: "frames_9999.gif")
        // When / Then: the probe counts every frame
        let info = try Through.probe(path, scope: folder)
        #expect(info.frames == 9_999)
        // prepare
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios)
        #expect(outcome.report.error?.code == "over-cap", "\(String(describing: outcome.report.error))")
        #expect(outcome.report.error?.message.contains(DecoderLimits.gifFramesCap) == true)
        #expect(outcome.files.isEmpty)
        // thumbnail
        let ledger = try AccessLedger.forTests([folder])
        let handle = try ledger.acquire(path)
        let report = Thumbnailer().thumbnail(handle, to: folder.appendingPathComponent("t.jpg").path, request: ThumbnailRequest(), ledger: ledger)
        handle.release()
        #expect(report.error?.code == "over-cap")
        #expect(ledger.report.isClean)
        // the binary says the same
        let cli = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", folder.appendingPathComponent("out").path, path])
        #expect(cli.status == 1)
        #expect(CLITests.lines(cli.stdout).first?["error"]?["code"]?.stringValue == "over-cap")
    }

    @Test("a GIF at the decoder's limit (4,097 frames) is still prepared")
    func gifAtDecoderLimit() throws {
        let (folder, path) = try Self.write(Self.gif(frames: DecoderLimits.gifFrames), named: "frames_4097.gif")
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios)
        #expect(outcome.report.ok, "\(String(describing: outcome.report.error))")
        #expect(outcome.report.after?.frames == 200)
    }

    @Test("a TIFF with more pages than the frame cap is over-cap naming maxFrames")
    func tiffOverFrameCap() throws {
        // Given: one page more than SafetyLimits.maxFrames
        let cap = SafetyLimits().maxFrames
        let (folder, path) = try Self.write(Self.tiff(pages: cap + 1), named: "pages.tif")
        // When
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios)
        // Then
        #expect(outcome.report.error?.code == "over-cap", "\(String(describing: outcome.report.error))")
        #expect(outcome.report.error?.message.contains("maxFrames") == true)
        #expect(outcome.files.isEmpty)
    }

    @Test("the TIFF walker stops at the frame cap as over-cap, not corrupt (4,097 pages used to be corrupt)")
    func tiffWalker() throws {
        // Given: 4,097 pages, past the walker's old 4,096-IFD limit
        let (_, path) = try Self.write(Self.tiff(pages: 4_097), named: "pages.tif")
        let sniff = FormatSniffer.Result(container: .tiff, family: .image, audioOffset: 0)
        // When / Then: within the default cap the layout is intact...
        #expect(StructureChecker.check(path: path, sniff: sniff) == .intact)
        // ...and a lower cap refuses it as over that cap
        var limits = SafetyLimits()
        limits.maxFrames = 4_000
        guard case .overCap(let violation) = StructureChecker.check(path: path, sniff: sniff, limits: limits) else {
            Issue.record("not over-cap")
            return
        }
        #expect(violation.cap == "maxFrames")
        // Prepared through a Preparer with that cap: over-cap too, nothing written.
        let out = TestEnvironment.temporaryFolder("tiff-walker-out")
        let ledger = try AccessLedger.forTests([URL(fileURLWithPath: path).deletingLastPathComponent(), out])
        let handle = try ledger.acquire(path)
        let report = Preparer(options: PrepareOptions(outputFolder: out.path), safety: limits).prepare(handle, ledger: ledger)
        handle.release()
        #expect(report.error?.code == "over-cap")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }
}
