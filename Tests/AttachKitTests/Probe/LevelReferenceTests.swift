import Foundation
import Testing
@testable import AttachKit

/// The decode memory estimate of H.264 and HEVC holds the references the stream's level allows at
/// its size, not 16 whatever the size: a 4K HEVC Main 10 clip at level 5.1 (what an iPhone
/// records) used to be refused as over-cap before its transcode (692 MiB estimated, 512 MiB cap).
@Suite("Probe: decoder references bounded by the level")
struct LevelReferenceTests {
    @Test("H.264 MaxDpbMbs and HEVC maxDpbSize at common sizes", arguments: [
        (Codec.hevc, 153, 3840, 2160, 6), (.hevc, 123, 1920, 1080, 6), (.hevc, 123, 1280, 720, 12), (.hevc, 93, 960, 540, 8), (.hevc, 93, 640, 360, 16),
        (.hevc, 186, 1920, 1080, 16), (.h264, 51, 3840, 2160, 5), (.h264, 40, 1920, 1080, 4), (.h264, 30, 720, 576, 5),
        (.h264, 31, 1280, 720, 5), (.h264, 13, 320, 240, 7),
    ] as [(Codec, Int, Int, Int, Int)])
    func references(codec: Codec, level: Int, width: Int, height: Int, expected: Int) {
        #expect(DecodeMemoryEstimator.levelReferences(of: codec, level: level, width: width, height: height) == expected)
    }

    @Test("a level the picture does not fit in, or an unknown one, is not believed")
    func unbelievable() {
        #expect(DecodeMemoryEstimator.levelReferences(of: .hevc, level: 93, width: 3840, height: 2160) == nil)
        #expect(DecodeMemoryEstimator.levelReferences(of: .h264, level: 77, width: 640, height: 480) == nil)
        #expect(DecodeMemoryEstimator.levelReferences(of: .vp9, level: 51, width: 640, height: 480) == nil)
    }

    @Test("a 4K HEVC Main 10 clip at level 5.1 transcoded to 1080p fits the default 512 MiB decode cap; tone mapping is counted")
    func iPhone4K() {
        var info = MediaInfo(path: "/x.mov", bytes: 1, kind: .video, container: .mov)
        (info.codec, info.width, info.height, info.pixelFormat, info.bitDepth, info.level) = (.hevc, 3840, 2160, "yuv420p10le", 10, 153)
        let plain = DecodeMemoryEstimator.transcode(info, threads: 2, output: (1920, 1080))
        #expect((plain?.fixedBytes ?? .max) < SafetyLimits().maxDecodeBytes, "\(plain?.basis ?? "")")
        info.hdr = HDRInfo(format: .pq)
        let hdr = DecodeMemoryEstimator.transcode(info, threads: 2, output: (1920, 1080))
        #expect((hdr?.fixedBytes ?? 0) - (plain?.fixedBytes ?? 0) == Int64(1920 * 1080 * 24))
    }
}
