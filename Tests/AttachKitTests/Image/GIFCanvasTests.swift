import Foundation
import Testing
@testable import AttachKit

/// A GIF is decoded on its logical screen, the canvas ImageIO, browsers and FFmpeg allocate. libvips'
/// decoder (libnsgif) takes a screen over 2048 px for a mistake and composes only the first
/// frame's extent, so a 65535² screen with a 100×100 frame read as 100×100 and was handed back.
/// Pixels, caps and memory are now judged by the screen; `prepare` writes what libnsgif composes
/// (the screen cut to the first frame's extent), and says so.
@Suite("GIF canvas: judged by the logical screen")
struct GIFCanvasTests {
    /// A GIF with a 4×4 frame at `left`,`top` on a `width`×`height` screen, written to a fresh folder.
    static func gif(_ width: Int, _ height: Int, left: Int = 0, top: Int = 0) throws -> (path: String, folder: URL) {
        let folder = TestEnvironment.temporaryFolder("gif-canvas")
        let url = folder.appendingPathComponent("screen_\(width)x\(height).gif")
        try Data(SyntheticMedia.gif(screenWidth: width, screenHeight: height, left: left, top: top)).write(to: url)
        return (url.path, folder)
    }

    @Test("the probe reports the logical screen, whatever libvips composes", arguments: [
        (2048, 2048), (2049, 2049), (3000, 100), (65535, 65535),
    ])
    func probeReportsScreen(width: Int, height: Int) throws {
        // Given a 4×4 frame on a large screen
        let (path, folder) = try Self.gif(width, height)
        // When it is probed
        let info = try Through.probe(path, scope: folder)
        // Then its size is the screen, as ffprobe reports it (libvips alone reports the frame past
        // 2048 px; FFmpeg calls a 65535² picture an invalid size and reports none)
        #expect(info.width == width && info.height == height)
        let reference = try FFprobeReport.of(path)
        let ffmpegSize = width == 65535 ? (0, 0) : (width, height)
        #expect(reference.video?.width == ffmpegSize.0 && reference.video?.height == ffmpegSize.1)
        let vips = try VipsHeader.of(path)
        #expect(max(width, height) > DecoderLimits.gifScreenEdge ? vips.width == 4 : vips.width == width)
    }

    @Test("caps and the decode estimate hold the screen: 65535² is over maxPixels, 16000² over the decode budget")
    func capsUseScreen() throws {
        for (side, cap) in [(65535, "maxPixels"), (16000, "maxDecodeBytes")] {
            // Given a 4×4 frame on a huge screen
            let (path, folder) = try Self.gif(side, side)
            let info = try Through.probe(path, scope: folder)
            // Then the caps refuse it from the header, as validate --deep and prepare do
            #expect(SafetyLimits().violation(for: info)?.cap == cap, "\(side)")
            let report = try Through.validate(path, scope: folder, profile: .apple, deep: true)
            #expect(report.errors.contains { $0.code == .overCap }, "\(side): \(report.errors.map(\.message))")
            let outcome = try ImagePrepare.run(path, scope: folder, profile: .apple)
            #expect(outcome.report.error?.code == .overCap, "\(side)")
            #expect(outcome.files.isEmpty)
        }
    }

    @Test("validate judges the screen; prepare writes what libvips composes and says the screen was cut")
    func prepareCutsScreen() throws {
        // Given a 4×4 frame at 20,10 on a 3000×3000 screen
        let (path, folder) = try Self.gif(3000, 3000, left: 20, top: 10)
        // When it is validated for ios, then prepared
        let report = try Through.validate(path, scope: folder, profile: .ios)
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios)
        // Then validate finds it too large, and the output is the 24×14 libnsgif composes: no
        // hidden screen is left (ffprobe sees the same size), and the notes say what was dropped
        #expect(report.errors.contains { $0.code == .dimensionsTooLarge })
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        #expect(outcome.report.after?.width == 24 && outcome.report.after?.height == 14)
        let reference = try FFprobeReport.of(output)
        #expect(reference.video?.width == 24 && reference.video?.height == 14)
        #expect(outcome.report.notes.contains { $0.hasPrefix("the GIF's 3000×3000 logical screen is over 2048 px") }, "\(outcome.report.notes)")
        #expect(try Through.validate(output, scope: outcome.folder, profile: .ios).ok)
    }

    @Test("a screen libvips composes whole (2048²) is handed back as it is")
    func screenAtTheEdge() throws {
        let (path, folder) = try Self.gif(2048, 2048)
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios)
        #expect(outcome.report.action == .passthrough)
    }
}
