import Foundation
import Testing
@testable import AttachKit

/// `attachkit thumbnail` on images: a JPEG of the requested size, upright, the clip region only,
/// the requested frame of an animation; checked on the pixels.
@Suite("Image thumbnails")
struct ImageThumbnailTests {
    /// Renders a thumbnail through the public API with a ledger, as the CLI does.
    static func thumbnail(_ path: String, scope: URL, request: ThumbnailRequest,
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> (report: ThumbnailReport, output: String) {
        let folder = TestEnvironment.temporaryFolder("image-thumbnail")
        let ledger = try AccessLedger.forTests([scope, folder])
        let handle = try ledger.acquire(path)
        let output = folder.appendingPathComponent("thumb.jpg").path
        let report = Thumbnailer().thumbnail(handle, to: output, request: request, ledger: ledger)
        handle.release()
        #expect(ledger.report.isClean, "access ledger: \(ledger.report.problems)", sourceLocation: sourceLocation)
        #expect(report.ok, "\(String(describing: report.error))", sourceLocation: sourceLocation)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files == ["thumb.jpg"], "\(files)", sourceLocation: sourceLocation)
        return (report, output)
    }

    /// A PNG whose left half is pure red and right half pure blue.
    static func twoColourPNG(width: Int = 400, height: Int = 200) throws -> (path: String, folder: URL) {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                if x < width / 2 { pixels[i] = 255 } else { pixels[i + 2] = 255 }
            }
        }
        let image = try VipsImage.fromPixels(pixels, width: width, height: height, bands: 3)
        let folder = TestEnvironment.temporaryFolder("two-colour")
        let path = folder.appendingPathComponent("halves.png").path
        try Data(try image.pngData()).write(to: URL(fileURLWithPath: path))
        return (path, folder)
    }

    @Test("the long edge is the requested size, the output a JPEG, never enlarged")
    func size() throws {
        let path = TestEnvironment.fixture("images/jpeg_large_4032x3024.jpg")
        let (report, output) = try Self.thumbnail(path, scope: TestEnvironment.testMedia, request: ThumbnailRequest(size: 320))
        let header = try VipsHeader.of(output)
        #expect(header.loader == "jpegload" && header.width == 320 && header.height == 240)
        #expect(report.width == 320 && report.height == 240)
        let small = TestEnvironment.fixture("images/bmp_24bit_160x120.bmp")
        let (_, smallOutput) = try Self.thumbnail(small, scope: TestEnvironment.testMedia, request: ThumbnailRequest(size: 320))
        let smallHeader = try VipsHeader.of(smallOutput)
        #expect(smallHeader.width == 160 && smallHeader.height == 120)
    }

    @Test("a clip of the left half shows only the left half's colour, the right half only the right's")
    func clip() throws {
        let (path, folder) = try Self.twoColourPNG()
        let left = try ClippingRect(x: 0, y: 0, width: 0.5, height: 1)
        let (report, output) = try Self.thumbnail(path, scope: folder, request: ThumbnailRequest(size: 100, clip: left))
        #expect(report.width == 100 && report.height == 100)
        let red = try ImagePixels.meanColour(output)
        #expect(red[0] > 240 && red[1] < 15 && red[2] < 15, "left half: \(red)")
        // Every pixel, not just the mean: the darkest red and the brightest blue.
        let image = try VipsImage.load(path: output, sequential: false)
        #expect(try image.bands(from: 0).minimum() > 200)
        #expect(try image.bands(from: 2).maximum() < 60)
        let right = try ClippingRect(x: 0.5, y: 0, width: 0.5, height: 1)
        let (_, rightOutput) = try Self.thumbnail(path, scope: folder, request: ThumbnailRequest(size: 100, clip: right))
        let blue = try ImagePixels.meanColour(rightOutput)
        #expect(blue[2] > 240 && blue[0] < 15, "right half: \(blue)")
        #expect(report.options?.clippingRect == left)
    }

    @Test("frame selection on the animated GIF: each frame matches vips' rendering of that page, frames differ, past the end is the last")
    func frames() throws {
        let path = TestEnvironment.fixture("images/gif_animated_320x240_24f.gif")
        var rendered: [Int: String] = [:]
        for frame in [0, 12] {
            let (report, output) = try Self.thumbnail(path, scope: TestEnvironment.testMedia, request: ThumbnailRequest(size: 320, frame: frame))
            #expect(report.frame == frame)
            #expect(report.options?.thumbnailFrame == frame)
            rendered[frame] = output
            let reference = TestEnvironment.temporaryFolder("gif-page").appendingPathComponent("page.png").path
            let run = try TestEnvironment.run("vips", ["copy", "\(path)[page=\(frame)]", reference])
            #expect(run.status == 0, "\(run.stderr)")
            let fidelity = try ImagePixels.psnr(try VipsImage.load(path: output, sequential: false),
                                                try VipsImage.load(path: reference, sequential: false))
            #expect(fidelity.luma >= 30, "frame \(frame): \(fidelity)")
        }
        let difference = try ImagePixels.psnr(try VipsImage.load(path: rendered[0]!, sequential: false),
                                              try VipsImage.load(path: rendered[12]!, sequential: false))
        #expect(difference.luma < 25, "frames 0 and 12 look alike: \(difference)")
        let (last, _) = try Self.thumbnail(path, scope: TestEnvironment.testMedia, request: ThumbnailRequest(size: 100, frame: 99))
        #expect(last.frame == 23)
    }

    @Test("orientation: the thumbnail is upright, matching vips' autorotated rendering, not a turned one", arguments: [
        "images/jpeg_exif_orientation6_600x400.jpg",
    ])
    func orientation(file: String) throws {
        let path = TestEnvironment.fixture(file)
        let (report, output) = try Self.thumbnail(path, scope: TestEnvironment.testMedia, request: ThumbnailRequest(size: 300))
        // Stored 600×400 with orientation 6: upright it is portrait.
        #expect(report.width == 200 && report.height == 300)
        let contrast = try ImageOrientation.contrast(output: output, input: path)
        #expect(contrast.upright.luma >= 30 && contrast.upright.luma >= contrast.turned.luma + 6, "\(contrast)")
    }

    @Test("thumbnails of a BMP (FFmpeg) and of an HEIC render")
    func otherDecoders() throws {
        for file in ["images/bmp_24bit_160x120.bmp", "images/heic_800x600.heic"] {
            let path = TestEnvironment.fixture(file)
            let (report, output) = try Self.thumbnail(path, scope: TestEnvironment.testMedia, request: ThumbnailRequest(size: 64))
            #expect(max(report.width ?? 0, report.height ?? 0) == 64, "\(file)")
            #expect(try VipsHeader.of(output).loader == "jpegload")
        }
    }
}

/// Orientation checked on pixels: the output against the input turned upright by `vips`, and
/// against the same reference turned half a turn (same size, wrong way up).
enum ImageOrientation {
    struct Contrast: CustomStringConvertible {
        let upright: ImagePixels.Fidelity
        let turned: ImagePixels.Fidelity
        var description: String { "upright \(upright), turned \(turned)" }
    }

    /// - Parameter colourManaged: the input carries an ICC profile (the reference is then converted to sRGB as well).
    static func contrast(output: String, input: String, colourManaged: Bool = false) throws -> Contrast {
        let out = try VipsImage.load(path: output, sequential: false)
        let folder = TestEnvironment.temporaryFolder("orientation")
        let upright = folder.appendingPathComponent("upright.tif").path
        let turned = folder.appendingPathComponent("turned.tif").path
        let profile = colourManaged ? ["--export-profile", "srgb"] : []
        #expect(try TestEnvironment.run("vips", ["thumbnail", input, upright, String(out.width), "--height", String(out.height)] + profile).status == 0)
        #expect(try TestEnvironment.run("vips", ["rot", upright, turned, "d180"]).status == 0)
        return Contrast(upright: try ImagePixels.psnr(out, try VipsImage.load(path: upright, sequential: false)),
                        turned: try ImagePixels.psnr(out, try VipsImage.load(path: turned, sequential: false)))
    }
}
