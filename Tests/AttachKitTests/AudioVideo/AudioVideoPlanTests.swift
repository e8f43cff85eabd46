import Foundation
import Testing
@testable import AttachKit

/// The pure parts of the audio/video planner: windows, geometry, sample rates, layout checks,
/// poster-frame coordinates.
@Suite("Audio/video planning arithmetic")
struct AudioVideoPlanTests {
    @Test("duration windows")
    func windows() throws {
        #expect(try ClipWindow.make(start: 0, maxDuration: 30, total: 30.03) == .whole)
        #expect(try ClipWindow.make(start: 0, maxDuration: 30, total: 35) == ClipWindow(start: 0, duration: 30))
        #expect(try ClipWindow.make(start: 10, maxDuration: 20, total: 60) == ClipWindow(start: 10, duration: 20))
        // The budget is kept as asked; the input's end comes first.
        #expect(try ClipWindow.make(start: 50, maxDuration: 20, total: 60) == ClipWindow(start: 50, duration: 20))
        #expect(ClipWindow(start: 50, duration: 20).span(total: 60) == 10)
        #expect(try ClipWindow.make(start: 5, maxDuration: nil, total: 8) == ClipWindow(start: 5, duration: nil))
        #expect(ClipWindow(start: 5, duration: nil).span(total: 8) == 3)
        #expect(throws: PrepareError.self) { try ClipWindow.make(start: 8, maxDuration: nil, total: 8) }
        #expect(throws: PrepareError.self) { try ClipWindow.make(start: -1, maxDuration: nil, total: 8) }
        // A 0 s input is said to last 0 s, not to start at or after its end.
        do {
            _ = try ClipWindow.make(start: 0, maxDuration: 30, total: 0)
            Issue.record("a 0 s input was given a window")
        } catch {
            #expect(error.description.contains("lasts 0 s") && !error.description.contains("at or after"), "\(error)")
        }
    }

    @Test("output sizes: long-edge cap, even sides, square pixels", arguments: [
        (2560, 1440, 1.0, 1920, 1920, 1080),
        (1920, 1080, 1.0, 1920, 1920, 1080),
        (642, 808, 1.0, 1920, 642, 808),
        (640, 480, 16.0 / 9.0, 1920, 1138, 480),
        (352, 288, 63.0 / 44.0, 1920, 504, 288),
        (1080, 1920, 1.0, 1280, 720, 1280),
        (101, 61, 1.0, 1920, 100, 60),
    ] as [(Int, Int, Double, Int, Int, Int)])
    func sizes(width: Int, height: Int, sar: Double, cap: Int, expectedWidth: Int, expectedHeight: Int) {
        let geometry = VideoGeometry(width: width, height: height, sampleAspect: sar, rotation: 0)
        let size = geometry.output(maxLongEdge: cap)
        #expect(size.width == expectedWidth && size.height == expectedHeight, "\(size)")
        #expect(size.width % 2 == 0 && size.height % 2 == 0)
    }

    @Test("AAC sample rates")
    func sampleRates() {
        #expect(EncodeTemplate.sampleRate(for: 44_100) == 44_100)
        #expect(EncodeTemplate.sampleRate(for: 88_200) == 44_100)
        #expect(EncodeTemplate.sampleRate(for: 96_000) == 48_000)
        #expect(EncodeTemplate.sampleRate(for: 8_000) == 8_000)
        #expect(EncodeTemplate.sampleRate(for: 37_800) == 44_100)
        #expect(EncodeTemplate.sampleRate(for: 48_000, bitRate: 128_000, channels: 2) == 48_000)
        #expect(EncodeTemplate.sampleRate(for: 48_000, bitRate: 64_000, channels: 2) == 32_000)
        #expect(EncodeTemplate.sampleRate(for: 44_100, bitRate: 32_000, channels: 2) == 24_000)
        #expect(EncodeTemplate.sampleRate(for: 16_000, bitRate: 24_000, channels: 1) == 16_000)
    }

    @Test("a stream copy of HEVC is planned as hvc1, of H.264 with the muxer's own tag", arguments: [(Codec.hevc, "hvc1"), (Codec.h264, nil)] as [(Codec, String?)])
    func copyTag(codec: Codec, tag: String?) throws {
        // Given a 1280×720 source within the ios profile, its video in `codec`
        let job = try AudioVideoFitTests.job(maxBytes: 60_000_000, duration: 10)
        let base = AudioVideoFitTests.source(width: 1280, height: 720, duration: 10)
        let video = try #require(base.video)
        let source = ClipSource(path: base.path, demuxer: base.demuxer, container: base.container, duration: base.duration, bytes: base.bytes,
                                video: .init(index: video.index, codec: codec, pixelFormat: video.pixelFormat, geometry: video.geometry,
                                             frameRate: video.frameRate, decodable: true, tag: "hev1"),
                                audio: base.audio, cover: nil, dropped: [])
        // When it is planned
        let strategy = try ClipPlanner(job: job, source: source).plan()
        // Then the stream copy names the tag the bridge writes
        let light = try #require(strategy.light)
        #expect(light.video?.encode == nil)
        #expect(light.video?.tag == tag)
    }

    @Test("layout: moov after mdat is found; faststart files and other containers pass")
    func layout() throws {
        #expect(LayoutCheck.indexFollowsMedia(path: TestEnvironment.fixture("video/mp4_av1_320x240_2s.mp4")))
        #expect(!LayoutCheck.indexFollowsMedia(path: TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4")))
        let info = try Through.probe(TestEnvironment.fixture("video/mp4_hevc_aac_320x240_2s.mp4"), scope: TestEnvironment.testMedia)
        #expect(LayoutCheck.remuxReason(path: TestEnvironment.fixture("video/mp4_hevc_aac_320x240_2s.mp4"), info: info) == nil)
        // (HEVC tagged hev1 is a validation finding now: SampleEntryTests.)
    }

    @Test("poster layout: the whole frame is converted at the thumbnail's size, turned, not cropped")
    func posterWhole() {
        let layout = PosterLayout(storedWidth: 1920, storedHeight: 1080, sampleAspect: 1, rotation: 90, clip: nil, longEdge: 320)
        #expect(layout.width == 320 && layout.height == 180 && layout.rotation == 90)
        #expect(!layout.crops)
        // Non-square pixels become square; an angle that is not a quarter turn is shown unturned.
        let anamorphic = PosterLayout(storedWidth: 720, storedHeight: 480, sampleAspect: 32.0 / 27.0, rotation: 45, clip: nil, longEdge: 1024)
        #expect(anamorphic.width == 853 && anamorphic.height == 480 && anamorphic.rotation == 0 && !anamorphic.crops)
    }

    @Test("poster layout: a clip in upright coordinates is cut from the turned picture at the asked long edge", arguments: [0, 90, 180, 270])
    func posterClip(rotation: Int) throws {
        // Given a 1000×500 stored frame and the top-left quarter of the upright picture
        let clip = try ClippingRect(x: 0, y: 0, width: 0.5, height: 0.5)
        let layout = PosterLayout(storedWidth: 1000, storedHeight: 500, sampleAspect: 1, rotation: rotation, clip: clip, longEdge: 100)
        // Then the clip (500×250 upright, or 250×500 turned a quarter) comes out with a 100 px long edge
        let quarter = rotation % 180 != 0
        #expect(layout.width == 200 && layout.height == 100)
        #expect(layout.left == 0 && layout.top == 0)
        #expect((layout.cropWidth, layout.cropHeight) == (quarter ? (50, 100) : (100, 50)))
        #expect(layout.crops)
    }

    @Test("poster layout: a small clip of a wide-pixel frame converts no more than the frame's pixels or the long edge squared")
    func posterBound() throws {
        let clip = try ClippingRect(x: 0, y: 0, width: 0.1, height: 0.1)
        let layout = PosterLayout(storedWidth: 1000, storedHeight: 1000, sampleAspect: 4, rotation: 0, clip: clip, longEdge: 320)
        #expect(layout.width * layout.height <= 1_000_000)
        #expect(layout.width == 2000 && layout.height == 500)
        #expect(layout.cropWidth == 200 && layout.cropHeight == 50)
        let hostile = PosterLayout(storedWidth: 100, storedHeight: 100, sampleAspect: 1e6, rotation: 0, clip: clip, longEdge: 320)
        #expect(hostile.width <= PosterLayout.maximumSide && hostile.height >= 1 && hostile.cropWidth <= 320)
    }
}
