import Foundation
import Testing
@testable import AttachKit

/// Damage next to a segment cut (outside test, finding M1): the segment-parallel decode names the
/// packet one decoder running through names, though the decoder holds the damaged picture back
/// past the cut (``DeepCheck/decodeSegments(path:demuxer:stream:options:threads:duration:)``).
@Suite struct SegmentBoundaryDamageTests {
    /// A 10 s H.264 clip with an IDR every 50 frames (B-frames, so pictures come out late), in `container`.
    static func clip(in folder: URL, codec: [String], container: String) throws -> String {
        let mp4 = folder.appendingPathComponent("clip-\(codec[1]).mp4").path
        if !FileManager.default.fileExists(atPath: mp4) {
            let make = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=10",
                                                          "-pix_fmt", "yuv420p"] + codec + [mp4])
            #expect(make.status == 0, "\(make.stderr)")
        }
        guard container == "mkv" else { return mp4 }
        let mkv = folder.appendingPathComponent("clip-\(codec[1]).mkv").path
        let copy = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-i", mp4, "-c", "copy", mkv])
        #expect(copy.status == 0, "\(copy.stderr)")
        return mkv
    }

    /// The byte ranges of the video packets, in demuxing order.
    static func packets(of path: String) throws -> [(position: Int64, size: Int)] {
        let input = try AVInput(path: path, demuxer: path.hasSuffix(".mkv") ? "matroska" : "mov")
        let video = try #require(input.streams.first { $0.kind == .video })
        let packet = try AVPacketBuffer()
        var found: [(Int64, Int)] = []
        while try input.read(into: packet) {
            defer { packet.unref() }
            if packet.streamIndex == video.index, let position = packet.position { found.append((position, packet.byteCount)) }
        }
        return found
    }

    /// `path` with 24 bytes of video packet `index` (0-based, demuxing order) XORed with 0x5A: in
    /// its middle, or from its 7th byte (`head`: the first NAL unit's header and slice header, past
    /// a 4-byte length and a 2-byte HEVC NAL header).
    static func damaged(_ path: String, packet index: Int, head: Bool = false, in folder: URL) throws -> String {
        let (position, size) = try packets(of: path)[index]
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let start = Int(position) + (head ? 6 : size / 2)
        for i in start..<min(start + 24, bytes.count) { bytes[i] ^= 0x5A }
        let out = folder.appendingPathComponent("p\(index)\(head ? "h" : "")-" + URL(fileURLWithPath: path).lastPathComponent).path
        try Data(bytes).write(to: URL(fileURLWithPath: out))
        return out
    }

    /// The verdict of `path`'s decode check on `threads` segment threads (1: one decoder running through).
    static func verdict(_ path: String, threads: Int, base: DecoderBudget) throws -> StructureVerdict {
        let info = try Prober().probeWithSniff(path: path, displayPath: path).info
        var decoding = base
        decoding.segmentThreads = threads
        return DeepCheck.verify(path: path, info: info, maxDecodeBytes: SafetyLimits().maxDecodeBytes, videoBudget: nil, decoding: decoding).verdict
    }

    /// Checks `path` with one decoder, then with 2 and 3 segment threads, expecting the same
    /// verdict and reason string; whether one decoder refused it.
    static func expectOneDecoderVerdict(_ path: String, base: DecoderBudget, what: String) throws -> Bool {
        let sequential = try verdict(path, threads: 1, base: base)
        for threads in [2, 3] {
            #expect(try verdict(path, threads: threads, base: base) == sequential, "\(what), \(threads) threads: one decoder says \(sequential)")
        }
        if case .corrupt = sequential { return true }
        return false
    }

    /// Damage (0-based packets) at the last packets before each IDR, at the IDR and right after it.
    static let places = [48, 49, 50, 51, 98, 99, 100, 101, 148, 149, 150, 151, 199, 200]

    @Test("H.264 damaged around each IDR: 2 and 3 segment threads give the one decoder's reason, packet included, fast and full",
          arguments: ["mp4", "mkv"])
    func h264AroundIDR(_ container: String) throws {
        // Given: the clip, damaged at each place around a cut
        let folder = TestEnvironment.temporaryFolder("segment-boundary-\(container)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.clip(in: folder, codec: ["-c:v", "libx264", "-preset", "veryfast", "-x264-params", "keyint=50:min-keyint=50:scenecut=0"],
                                 container: container)
        var refused = 0
        for place in Self.places {
            let path = try Self.damaged(clip, packet: place, in: folder)
            for base in [DeepCheck.fastDecoding, DeepCheck.decoding] {
                // When: checked by one decoder, then by segments; then: the same verdict and reason string
                if try Self.expectOneDecoderVerdict(path, base: base, what: "packet \(place), \(container)") { refused += 1 }
            }
        }
        // The outside tester's cases (the last packet before the IDRs at 100 and 150) are refused at all.
        #expect(try Self.verdict(Self.damaged(clip, packet: 149, in: folder), threads: 1, base: DeepCheck.decoding) != .intact)
        #expect(try Self.verdict(Self.damaged(clip, packet: 98, in: folder), threads: 1, base: DeepCheck.decoding) != .intact)
        #expect(refused > 0)
    }

    @Test("H.264 with an IDR every 10 frames: segments join until 32 packets, and damage around every IDR gets the one decoder's reason")
    func shortGOPs() throws {
        let folder = TestEnvironment.temporaryFolder("segment-boundary-short")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.clip(in: folder, codec: ["-c:v", "libx264", "-preset", "veryfast", "-x264-params", "keyint=10:min-keyint=10:scenecut=0"],
                                 container: "mp4")
        var refused = 0
        for place in [29, 30, 31, 39, 40, 41, 49, 50, 51] {
            let path = try Self.damaged(clip, packet: place, in: folder)
            if try Self.expectOneDecoderVerdict(path, base: DeepCheck.fastDecoding, what: "packet \(place)") { refused += 1 }
        }
        #expect(refused > 0)
    }

    @Test("H.264 without B-frames (no picture held back at a cut): damage around each IDR gets the one decoder's reason")
    func noReordering() throws {
        let folder = TestEnvironment.temporaryFolder("segment-boundary-no-b")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.clip(in: folder, codec: ["-c:v", "libx264", "-preset", "veryfast", "-bf", "0", "-x264-params", "keyint=50:min-keyint=50:scenecut=0"],
                                 container: "mp4")
        var refused = 0
        for place in [48, 49, 50, 51, 99, 100, 101] {
            let path = try Self.damaged(clip, packet: place, in: folder)
            if try Self.expectOneDecoderVerdict(path, base: DeepCheck.fastDecoding, what: "packet \(place)") { refused += 1 }
        }
        #expect(refused > 0)
    }

    @Test("HEVC damaged around each IDR, in the slice data or the headers: the segment threads give the one decoder's verdict and reason")
    func hevcAroundIDR() throws {
        // Given: an HEVC clip cut at each IDR, damaged around the cuts. FFmpeg 5.1 flags no frame
        // whose slice data is damaged (all intact), but refuses damaged slice headers at the packet.
        let folder = TestEnvironment.temporaryFolder("segment-boundary-hevc")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = try Self.clip(in: folder, codec: ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=50:min-keyint=50:scenecut=0:open-gop=0"],
                                 container: "mp4")
        #expect(try SegmentDecodeTests.segmentation(of: clip).cuts >= 3)
        var refused = 0
        for place in [49, 50, 51, 99, 100, 101] {
            for head in [false, true] {
                let path = try Self.damaged(clip, packet: place, head: head, in: folder)
                // When / Then: one decoder, then 2 and 3 segment threads
                if try Self.expectOneDecoderVerdict(path, base: DeepCheck.decoding, what: "packet \(place)\(head ? " header" : "")") { refused += 1 }
            }
        }
        #expect(refused > 0)
    }
}
