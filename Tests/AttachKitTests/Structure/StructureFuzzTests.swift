import Foundation
import Testing
@testable import AttachKit

/// Hostile bytes: random buffers, truncations and mutations of every synthetic sample go through
/// every structural checker (and a sample of them through the deep check). Nothing may crash,
/// hang or allocate by a length field; the verdicts themselves are not judged. Seeded, so every
/// run checks the same buffers.
@Suite("Structure: hostile bytes")
struct StructureFuzzTests {
    static let containers: [Container] = [
        .jpeg, .png, .gif, .webp, .wav, .avi, .rf64, .aiff, .aifc, .mp4, .mov, .m4a, .heic, .avif, .heifSequence,
        .webm, .matroska, .ebml, .mp3, .aacADTS, .flac, .ogg, .mpegTS, .tiff, .bmp,
    ]

    /// Values that length and offset fields love to overflow with.
    static let nastyWords: [UInt32] = [0, 1, 7, 8, 16, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFF0, 0xFFFF_FFFF]

    static func hostileBuffers(seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        var buffers: [[UInt8]] = []
        for _ in 0..<60 {
            let length = Int.random(in: 0...700, using: &rng)
            buffers.append((0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) })
        }
        for sample in SyntheticMedia.all {
            let bytes = sample.bytes
            for _ in 0..<6 {
                buffers.append(Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng))))
            }
            for _ in 0..<10 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    let at = Int.random(in: 0..<mutated.count, using: &rng)
                    if Bool.random(using: &rng), at + 4 <= mutated.count {
                        let word = nastyWords.randomElement(using: &rng)!
                        let fieldBytes = Bool.random(using: &rng) ? SyntheticMedia.be32(Int(word)) : SyntheticMedia.le32(Int(word))
                        mutated.replaceSubrange(at..<(at + 4), with: fieldBytes)
                    } else {
                        mutated[at] = UInt8.random(in: 0...255, using: &rng)
                    }
                }
                buffers.append(mutated)
            }
            // The sample's signature in front of noise.
            let noise = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            buffers.append(Array(bytes.prefix(16)) + noise)
        }
        return buffers
    }

    @Test("random, truncated and mutated bytes never crash a structural checker")
    func structuralCheckersSurvive() throws {
        // Given a few hundred hostile buffers
        let buffers = Self.hostileBuffers(seed: 0xA77A_C4C0_FFEE)
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var checks = 0

        // When each goes through every checker (also at audio offsets past the start or the end)
        for (index, bytes) in buffers.enumerated() {
            let url = folder.appendingPathComponent("hostile-\(index)")
            try Data(bytes).write(to: url)
            for container in Self.containers {
                for offset in [0, Int64(bytes.count / 3), Int64(bytes.count) + 5] {
                    let sniff = FormatSniffer.Result(container: container, family: .video, audioOffset: offset)
                    _ = StructureChecker.check(path: url.path, sniff: sniff)
                    checks += 1
                }
            }
            // And through the real sniffer, as production code calls it
            _ = StructureChecker.check(path: url.path, sniff: FormatSniffer.sniff(try FileReader(path: url.path)))
        }

        // Then every check returned
        #expect(buffers.count >= 300)
        #expect(checks == buffers.count * Self.containers.count * 3)
    }

    @Test("hostile bytes never crash the deep check")
    func deepCheckSurvives() throws {
        // Given a sample of the hostile buffers, labelled as each sample's container
        let buffers = Self.hostileBuffers(seed: 0xDEE9_C4EC)
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var rng = SplitMix64(seed: 7)

        // When they are decoded
        for (index, bytes) in buffers.enumerated() where index % 4 == 0 {
            let url = folder.appendingPathComponent("hostile-\(index)")
            try Data(bytes).write(to: url)
            let sample = SyntheticMedia.all.randomElement(using: &rng)!
            let isImage = [.jpeg, .png, .gif, .webp, .tiff, .bmp, .heic].contains(sample.container)
            var info = MediaInfo(path: url.path, bytes: Int64(bytes.count), kind: isImage ? .image : .video, container: sample.container)
            info.width = 4
            info.height = 4
            info.duration = 1

            // Then each call returns a verdict (anything but a crash)
            _ = DeepCheck.check(path: url.path, info: info)
        }
    }
}
