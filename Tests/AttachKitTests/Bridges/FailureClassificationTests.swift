import Foundation
import Testing
@testable import AttachKit

/// Failed libvips and FFmpeg calls are classified by which call failed (a typed operation), the
/// same way for every front end.
@Suite("Bridges: failure classification")
struct FailureClassificationTests {
    @Test("no decoder for the codec is unsupported; a decoder that refuses the picture is damage")
    func decoderCases() {
        // Given the two ways a decoder can be missing from a decode
        let missing = ImageFailure.from(FFmpegError(operation: .findDecoder, message: "FFmpeg has no decoder for x"), step: "load")
        let refused = ImageFailure.from(FFmpegError(operation: .openDecoder, message: "frame over max_pixels"), step: "load")
        // Then they are told apart
        #expect(missing.code == "unsupported")
        #expect(refused.code == "corrupt")
        #expect(ImageFailure.from(FFmpegError(operation: .scale, message: "x"), step: "load").code == "processing-failed")
    }

    @Test("a libvips load or decode failure is damage; any other call is a processing failure")
    func vipsCases() {
        #expect(ImageFailure.from(VipsError(operation: .load, message: ""), step: "s").code == "corrupt")
        #expect(ImageFailure.from(VipsError(operation: .decode, message: ""), step: "s").code == "corrupt")
        #expect(ImageFailure.from(VipsError(operation: .jpegsave, message: ""), step: "s").code == "processing-failed")
    }

    @Test("a 9000×8000 BMP (read through FFmpeg) gets the same code from prepare and thumbnail: over-cap")
    func largeBMP() throws {
        // Given a 9000×8000 BMP (RLE8, so the file is small), over maxWholeFramePixels (64 Mpx)
        let folder = TestEnvironment.temporaryFolder("bmp")
        let path = folder.appendingPathComponent("large.bmp").path
        try Data(Self.blackRLE8BMP(width: 9000, height: 8000)).write(to: URL(fileURLWithPath: path))

        // When it is prepared and thumbnailed
        let prepared = try ImagePrepare.run(path, scope: folder, profile: .ios)
        let ledger = try AccessLedger.forTests([folder])
        let handle = try ledger.acquire(path)
        let thumbnail = Thumbnailer().thumbnail(handle, to: folder.appendingPathComponent("t.jpg").path, request: ThumbnailRequest(), ledger: ledger)
        handle.release()

        // Then both refuse it as over a cap, before decoding
        #expect(prepared.report.error?.code == "over-cap", "\(String(describing: prepared.report.error))")
        #expect(thumbnail.error?.code == prepared.report.error?.code, "\(String(describing: thumbnail.error))")
        #expect(ledger.report.isClean)
    }

    /// An all-black 8-bit BMP, run-length encoded (runs of 255, end of line, end of bitmap).
    static func blackRLE8BMP(width: Int, height: Int) -> [UInt8] {
        var row: [UInt8] = []
        var left = width
        while left > 0 {
            let run = min(255, left)
            row += [UInt8(run), 0]
            left -= run
        }
        row += [0, 0]
        var data: [UInt8] = []
        data.reserveCapacity(row.count * height + 2)
        for _ in 0..<height { data += row }
        data += [0, 1]
        let palette: [UInt8] = (0..<256).flatMap { (level: Int) -> [UInt8] in [UInt8(level), UInt8(level), UInt8(level), 0] }
        let offset = 14 + 40 + palette.count
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        var header: [UInt8] = Array("BM".utf8)
        for field in [le32(offset + data.count), le32(0), le32(offset), le32(40), le32(width), le32(height), le16(1), le16(8),
                      le32(1), le32(data.count), le32(2835), le32(2835), le32(256), le32(0)] {
            header += field
        }
        return header + palette + data
    }
}
