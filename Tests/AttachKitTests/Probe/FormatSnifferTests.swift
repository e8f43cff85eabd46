import Foundation
import Testing
@testable import AttachKit

@Suite("Format sniffing by bytes")
struct FormatSnifferTests {
    static func sniff(_ bytes: [UInt8], name: String = "file.bin") throws -> FormatSniffer.Result {
        let url = TestEnvironment.temporaryFolder("sniff").appendingPathComponent(name)
        try Data(bytes).write(to: url)
        let reader = try FileReader(path: url.path)
        return FormatSniffer.sniff(reader)
    }

    static func ftyp(_ major: String, _ compatible: [String] = []) -> [UInt8] {
        let brands = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
        let size = UInt32(8 + brands.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array("ftyp".utf8) + brands + [0, 0, 0, 8] + Array("free".utf8)
    }

    @Test("signatures map to containers", arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], Container.jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], .png),
        (Array("GIF89a".utf8) + [1, 0, 1, 0], .gif),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webp),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8), .wav),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("AVI LIST".utf8), .avi),
        (Array("FORM".utf8) + [0, 0, 0, 0] + Array("AIFFCOMM".utf8), .aiff),
        (Array("FORM".utf8) + [0, 0, 0, 0] + Array("AIFCFVER".utf8), .aifc),
        (Array("fLaC".utf8) + [0, 0, 0, 34], .flac),
        (Array("OggS".utf8) + [0, 2], .ogg),
        ([0x1A, 0x45, 0xDF, 0xA3, 0x87, 0x42, 0x82, 0x84] + Array("webm".utf8), .webm),
        ([0x1A, 0x45, 0xDF, 0xA3, 0x8B, 0x42, 0x82, 0x88] + Array("matroska".utf8), .matroska),
        ([0x00, 0x00, 0x01, 0xBA, 0x44], .mpegPS),
        ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], .tiff),
        (ftyp("isom", ["isom", "avc1"]), .mp4),
        (ftyp("qt  "), .mov),
        (ftyp("M4A ", ["M4A "]), .m4a),
        (ftyp("heic", ["mif1", "heic"]), .heic),
        (ftyp("mif1", ["mif1", "heic"]), .heif),
        (ftyp("avif", ["mif1", "avif"]), .avif),
        (ftyp("msf1", ["msf1", "hevc"]), .heifSequence),
        (Array("{\"a\": 1}".utf8), .json),
        (Array("hello world\n".utf8), .text),
        ([UInt8](), .empty),
    ] as [([UInt8], Container)])
    func signature(bytes: [UInt8], expected: Container) throws {
        #expect(try Self.sniff(bytes).container == expected)
    }

    @Test("the file name never changes the answer")
    func nameIgnored() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]
        #expect(try Self.sniff(jpeg, name: "photo.png").container == .jpeg)
        #expect(try Self.sniff(Array("{}".utf8), name: "x.webp").container == .json)
    }

    @Test("MP3 behind an ID3v2 tag is found after the tag")
    func mp3AfterID3() throws {
        // ID3v2.3 header, tag size 20 (syncsafe), 20 bytes of tag, then two MPEG-1 Layer III frames
        // (128 kb/s, 44.1 kHz: 417 bytes each).
        var bytes: [UInt8] = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0, 20] + [UInt8](repeating: 0, count: 20)
        let frame: [UInt8] = [0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0, count: 413)
        bytes += frame + frame
        let result = try Self.sniff(bytes)
        #expect(result.container == .mp3)
        #expect(result.audioOffset == 30)
    }

    @Test("a lone frame-sync pair not followed by a second frame is not MP3")
    func weakSyncRejected() throws {
        let bytes: [UInt8] = [0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0x41, count: 2000)
        #expect(try Self.sniff(bytes).container != .mp3)
    }

    @Test("random bytes never crash the sniffer")
    func randomBytes() throws {
        var generator = SplitMix64(seed: 7)
        for length in [1, 2, 3, 4, 7, 8, 11, 12, 16, 31, 188, 400, 4096] {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                _ = try Self.sniff(bytes)
            }
        }
    }
}
