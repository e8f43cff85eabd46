import Foundation
import Testing
@testable import AttachKit

/// The decode-memory estimate per format and decoder path (``DecodeMemoryEstimator``): real
/// fixtures land well under the budget, crafted headers of whole-picture decoders over it, and
/// streaming decoders stay small however large the picture.
@Suite("Decode memory estimates")
struct DecodeMemoryTests {
    static let budget = SafetyLimits().maxDecodeBytes
    typealias B = SyntheticMedia

    // MARK: Real files

    @Test("every image fixture is estimated, well under the budget, and passes the cap", arguments: [
        "avif_800x600.avif", "bmp_24bit_160x120.bmp", "gif_animated_320x240_24f.gif", "gif_static_320x240.gif",
        "heic_800x600.heic", "jpeg_cmyk_400x300.jpg", "jpeg_exif_orientation6_600x400.jpg", "jpeg_greyscale_640x480.jpg",
        "jpeg_large_4032x3024.jpg", "jpeg_photo_1600x1200_q90.jpg", "jpeg_progressive_800x600.jpg", "png_16bit_rgb_320x240.png",
        "png_apng_animated_160x120.png", "png_palette_400x300.png", "png_rgba_transparency_320x240.png",
        "tiff_lzw_320x240.tif", "webp_alpha_320x240.webp", "webp_animated_320x240.webp", "webp_lossy_800x600.webp",
    ])
    func fixtures(name: String) throws {
        // Given a real image
        let info = try Through.probe(TestEnvironment.fixture("images/" + name), scope: TestEnvironment.testMedia)
        // Then its decode is estimated, under 1/8 of the budget at full size, and the cap passes
        let memory = try #require(info.decodeMemory, "\(name): no estimate")
        #expect(memory.bytes(loadedPixels: info.pixels ?? 0) < Self.budget / 8, "\(name): \(memory)")
        #expect(SafetyLimits().violation(for: info) == nil)
    }

    @Test("the decoder path shows in the estimate: HEIF whole, progressive JPEG coefficients, baseline streamed")
    func fixturePaths() throws {
        let heic = try Through.probe(TestEnvironment.fixture("images/heic_800x600.heic"), scope: TestEnvironment.testMedia)
        let heif = try #require(heic.decodeMemory)
        #expect(heif.basis.contains("libheif"))
        #expect(heif.fixedBytes >= 800 * 600 * 6 && heif.fixedBytes < 800 * 600 * 8)

        let progressive = try Through.probe(TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"), scope: TestEnvironment.testMedia)
        let coefficients = try #require(progressive.decodeMemory)
        #expect(coefficients.basis.contains("progressive"))
        // 800×600 at 4:2:0 or 4:4:4: 3 or 6 B/px of coefficients, plus the row window.
        #expect(coefficients.fixedBytes >= 800 * 600 * 3)

        let baseline = try Through.probe(TestEnvironment.fixture("images/jpeg_large_4032x3024.jpg"), scope: TestEnvironment.testMedia)
        let rows = try #require(baseline.decodeMemory)
        #expect(rows.basis.contains("streamed"))
        #expect(rows.fixedBytes == 4032 * 3 * DecodeMemoryEstimator.streamingRows)
    }

    // MARK: HEIF

    /// A HEIF whose primary item is a grid of `rows` × `columns` references to `tiles` tile items
    /// (no coded data: the estimate reads boxes only), the grid's `ispe` possibly understated.
    static func heifGrid(rows: Int, columns: Int, tile: Int, distinct: Bool, gridIspe: Int? = nil, alpha: Bool = false) -> [UInt8] {
        let count = rows * columns, items = distinct ? count : 1, grid = items + 1
        func full(_ type: String, _ version: UInt8, _ flags: UInt8, _ body: [UInt8]) -> [UInt8] { B.box(type, [version, 0, 0, flags] + body) }
        var infe: [UInt8] = [], ipma: [UInt8] = [], refs: [UInt8] = []
        for k in 1...items {
            infe += full("infe", 2, 1, B.be16(k) + B.be16(0) + B.ascii("hvc1") + [0])
            ipma += B.be16(k) + [2, 0x81, 0x02]
        }
        for k in 1...count { refs += B.be16(distinct ? k : 1) }
        infe += full("infe", 2, 0, B.be16(grid) + B.be16(0) + B.ascii("grid") + [0])
        ipma += B.be16(grid) + [1, 0x03]
        var iref = B.box("dimg", B.be16(grid) + B.be16(count) + refs)
        var extraItems: [UInt8] = []
        if alpha {
            // An alpha auxiliary image (item grid + 1) for the grid, with its auxC.
            extraItems = full("infe", 2, 1, B.be16(grid + 1) + B.be16(0) + B.ascii("hvc1") + [0])
            iref += B.box("auxl", B.be16(grid + 1) + B.be16(1) + B.be16(grid))
            ipma += B.be16(grid + 1) + [2, 0x04, 0x03]
        }
        // hvcC: 4:2:0 (chroma_format_idc 1 at byte 16), 8-bit (byte 17).
        var hvcC = [UInt8](repeating: 0, count: 23)
        hvcC[0] = 1; hvcC[16] = 0xFD; hvcC[17] = 0xF8
        let side = gridIspe ?? tile * columns
        var ipco = B.box("hvcC", hvcC) + full("ispe", 0, 0, B.be32(tile) + B.be32(tile)) + full("ispe", 0, 0, B.be32(side) + B.be32(gridIspe ?? tile * rows))
        ipco += full("auxC", 0, 0, B.ascii("urn:mpeg:mpegB:cicp:systems:auxiliary:alpha") + [0])
        let itemCount = items + 1 + (alpha ? 1 : 0)
        let iloc = full("iloc", 1, 0, [0x44, 0x00] + B.be16(1) + B.be16(grid) + B.be16(1) + B.be16(0) + B.be16(1) + B.be32(0) + B.be32(8))
        let idat = B.box("idat", [0, 0, UInt8(rows - 1), UInt8(columns - 1)] + B.be16(tile * columns) + B.be16(tile * rows))
        let meta = full("meta", 0, 0, full("hdlr", 0, 0, B.be32(0) + B.ascii("pict") + [UInt8](repeating: 0, count: 13))
                        + full("pitm", 0, 0, B.be16(grid)) + full("iinf", 0, 0, B.be16(itemCount) + infe + extraItems)
                        + full("iref", 0, 0, iref) + B.box("iprp", B.box("ipco", ipco) + full("ipma", 0, 0, B.be32(itemCount) + ipma))
                        + iloc + idat)
        return B.box("ftyp", B.ascii("heic") + B.be32(0) + B.ascii("mif1heic")) + meta
    }

    static func pictures(_ bytes: [UInt8]) throws -> [HEIFItems.Picture] {
        try read(bytes, named: "grid.heic") { HEIFItems.pictures($0) }
    }

    /// What `parse` reads from `bytes` written to a file named `name`; it must read something.
    static func read<T>(_ bytes: [UInt8], named name: String, _ parse: (borrowing FileReader) -> T?) throws -> T {
        let url = TestEnvironment.temporaryFolder("decode-memory").appendingPathComponent(name)
        try Data(bytes).write(to: url)
        let reader = try FileReader(path: url.path)
        let parsed = parse(reader)
        return try #require(parsed)
    }

    @Test("a grid reusing one tile 100 times: 16380² canvas, 1 distinct tile, over the budget")
    func heifTileReuse() throws {
        // Given a 10×10 grid whose 100 references all name tile 1
        let pictures = try Self.pictures(Self.heifGrid(rows: 10, columns: 10, tile: 1638, distinct: false))
        // Then the one picture shown is the grid, decoded whole at 16380×16380
        let grid = try #require(pictures.first)
        #expect(pictures.count == 1)
        #expect(grid.type == "grid" && grid.width == 16380 && grid.height == 16380)
        #expect(grid.tileReferences == 100 && grid.distinctTiles == 1 && grid.tileWidth == 1638)
        var info = MediaInfo(path: "grid.heic", bytes: 1500, kind: .image, container: .heic)
        (info.width, info.height) = (16380, 16380)
        let memory = DecodeMemoryEstimator.heif(pictures, info: info)
        #expect(memory.fixedBytes > 16380 * 16380 * 6 && memory.fixedBytes < 16380 * 16380 * 7)
        #expect(memory.basis.contains("100 references to 1 distinct tile"))
        info.decodeMemory = memory
        #expect(SafetyLimits().violation(for: info)?.cap == "maxDecodeBytes")
    }

    @Test("a grid of distinct tiles counts the same canvas; a grid whose ispe understates it is sized from its data")
    func heifDistinctAndLyingIspe() throws {
        let distinct = try #require(try Self.pictures(Self.heifGrid(rows: 8, columns: 8, tile: 1500, distinct: true)).first)
        #expect(distinct.width == 12000 && distinct.tileReferences == 64 && distinct.distinctTiles == 64)
        #expect(DecodeMemoryEstimator.heif([distinct], info: MediaInfo(path: "", bytes: 0, kind: .image, container: .heic)).fixedBytes > Self.budget)

        // The grid's ispe says 1638×1638 (what libvips reports); its data says 16380×16380 (what libheif allocates)
        let lying = try #require(try Self.pictures(Self.heifGrid(rows: 10, columns: 10, tile: 1638, distinct: false, gridIspe: 1638)).first)
        #expect(lying.width == 16380 && lying.height == 16380)
    }

    @Test("an alpha auxiliary image adds its plane and a fourth output band")
    func heifAlpha() throws {
        let plain = try #require(try Self.pictures(Self.heifGrid(rows: 2, columns: 2, tile: 512, distinct: false)).first)
        let alpha = try #require(try Self.pictures(Self.heifGrid(rows: 2, columns: 2, tile: 512, distinct: false, alpha: true)).first)
        #expect(!plain.hasAlpha && alpha.hasAlpha)
        #expect(DecodeMemoryEstimator.heifBytesPerPixel(plain) == 6.0)
        #expect(DecodeMemoryEstimator.heifBytesPerPixel(alpha) == 8.5)
    }

    // MARK: JPEG

    /// SOI, a frame header (`marker`, 3 components sampled `luma`×`luma`, 1×1, 1×1), a scan header with `scanComponents`.
    static func jpegHeader(marker: UInt8, width: Int, height: Int, luma: UInt8 = 2, scanComponents: UInt8 = 3, precision: UInt8 = 8) -> [UInt8] {
        let sof: [UInt8] = [0xFF, marker] + B.be16(17) + [precision] + B.be16(height) + B.be16(width) + [3,
            1, luma << 4 | luma, 0, 2, 0x11, 1, 3, 0x11, 1]
        let sos: [UInt8] = [0xFF, 0xDA] + B.be16(6 + 2 * Int(scanComponents)) + [scanComponents]
            + (0..<scanComponents).flatMap { [$0 + 1, 0] } + [0, 63, 0]
        return [0xFF, 0xD8] + [0xFF, 0xE0] + B.be16(16) + B.ascii("JFIF") + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0] + sof + sos + [0, 0, 0xFF, 0xD9]
    }

    static func frame(_ bytes: [UInt8]) throws -> JPEGFrameHeader {
        try read(bytes, named: "frame.jpg") { JPEGFrameHeader.read($0) }
    }

    @Test("a progressive 16000² 4:2:0 JPEG holds 768 MB of coefficients; the baseline one streams")
    func jpegPaths() throws {
        var info = MediaInfo(path: "", bytes: 0, kind: .image, container: .jpeg)
        (info.width, info.height) = (16000, 16000)
        // Given a progressive frame header (SOF2)
        let progressive = try Self.frame(Self.jpegHeader(marker: 0xC2, width: 16000, height: 16000))
        // Then every coefficient is held: Y 2000×2000 blocks, Cb and Cr 1000×1000, 128 B each
        #expect(progressive.buffersWholeImage)
        #expect(progressive.coefficientBytes == (2000 * 2000 + 2 * 1000 * 1000) * 128)
        #expect(DecodeMemoryEstimator.jpeg(progressive, info: info).fixedBytes > Self.budget)

        // A baseline one with an interleaved scan streams, far under
        let baseline = try Self.frame(Self.jpegHeader(marker: 0xC0, width: 16000, height: 16000))
        #expect(!baseline.buffersWholeImage)
        #expect(DecodeMemoryEstimator.jpeg(baseline, info: info).fixedBytes < Self.budget / 4)

        // A sequential one whose first scan carries one component of three is buffered too
        let multiScan = try Self.frame(Self.jpegHeader(marker: 0xC0, width: 16000, height: 16000, scanComponents: 1))
        #expect(multiScan.buffersWholeImage)

        // Padded block counts: 4:4:4, 17×9 px → 3×2 blocks per component
        let odd = try Self.frame(Self.jpegHeader(marker: 0xC2, width: 17, height: 9, luma: 1))
        #expect(odd.coefficientBytes == 3 * 3 * 2 * 128)

        // 12-bit goes to FFmpeg: whole frames
        let deep = try Self.frame(Self.jpegHeader(marker: 0xC1, width: 8000, height: 8000, precision: 12))
        #expect(DecodeMemoryEstimator.jpeg(deep, info: info).basis.contains("FFmpeg"))
    }

    // MARK: PNG, GIF, TIFF

    @Test("an interlaced PNG is read whole (bands × bytes), a non-interlaced one streams")
    func png() {
        var info = MediaInfo(path: "", bytes: 0, kind: .image, container: .png)
        (info.width, info.height, info.bands, info.bitDepth) = (16000, 16000, 3, 8)
        info.interlaced = true
        #expect(DecodeMemoryEstimator.png(info).fixedBytes == 16000 * 16000 * 3)
        info.interlaced = false
        #expect(DecodeMemoryEstimator.png(info).fixedBytes == 16000 * 3 * DecodeMemoryEstimator.streamingRows)
        // 16-bit RGBA interlaced: 8 B/px
        (info.bands, info.bitDepth, info.interlaced) = (4, 16, true)
        #expect(DecodeMemoryEstimator.png(info).fixedBytes == 16000 * 16000 * 8)
    }

    @Test("a GIF frame is decoded whole: 8 B/px")
    func gif() {
        var info = MediaInfo(path: "", bytes: 0, kind: .image, container: .gif)
        (info.width, info.height) = (10000, 10000)
        let memory = DecodeMemoryEstimator.gif(info)
        #expect(memory.fixedBytes == 800_000_000)
        info.decodeMemory = memory
        #expect(SafetyLimits().violation(for: info)?.cap == "maxDecodeBytes")
    }

    /// A little-endian TIFF whose IFD0 declares `width`×`height` RGB, 8-bit, `rowsPerStrip` rows per strip.
    static func tiffHeader(width: Int, height: Int, rowsPerStrip: Int?) -> [UInt8] {
        var entries: [(Int, Int, Int, Int)] = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 3, 8 + 12 * 8), (277, 3, 1, 3)]
        if let rowsPerStrip { entries.append((278, 4, 1, rowsPerStrip)) }
        var ifd = B.le16(entries.count)
        for (tag, type, count, value) in entries {
            ifd += B.le16(tag) + B.le16(type) + B.le32(count) + (type == 3 && count == 1 ? B.le16(value) + [0, 0] : B.le32(value))
        }
        ifd += B.le32(0)
        let bits = B.le16(8) + B.le16(8) + B.le16(8)
        let header: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + B.le32(8)
        return header + ifd + [UInt8](repeating: 0, count: max(0, 8 + 12 * 8 - 8 - ifd.count)) + bits
    }

    @Test("TIFF: one strip of the whole picture is decoded whole; 16-row strips stream")
    func tiff() throws {
        let folder = TestEnvironment.temporaryFolder("decode-memory")
        for (rows, whole) in [(nil as Int?, true), (16, false)] {
            let url = folder.appendingPathComponent("strips-\(rows ?? 0).tif")
            try Data(Self.tiffHeader(width: 12000, height: 12000, rowsPerStrip: rows)).write(to: url)
            let reader = try FileReader(path: url.path)
            let read = TIFFLayout.read(reader)
            let layout = try #require(read)
            #expect(layout.width == 12000 && layout.samplesPerPixel == 3 && layout.bitsPerSample == 8)
            let memory = DecodeMemoryEstimator.tiff(layout)
            #expect((memory.fixedBytes > Self.budget) == whole, "\(memory)")
        }
    }

    // MARK: WebP

    @Test("WebP: lossless holds ARGB of the whole picture, lossy streams into a buffer at the loaded size")
    func webp() {
        let info = MediaInfo(path: "", bytes: 0, kind: .image, container: .webp)
        let lossless = DecodeMemoryEstimator.webp(WebPHeader(lossless: true, width: 16000, height: 16000), info: info)
        #expect(lossless.fixedBytes == 16000 * 16000 * 4)
        let lossy = DecodeMemoryEstimator.webp(WebPHeader(width: 16000, height: 16000), info: info)
        #expect(lossy.fixedBytes == 0 && lossy.bytesPerLoadedPixel == 8)
        // At full size the lossy one is over; at 2048² it is far under: shrink-on-load decides.
        #expect(lossy.bytes(loadedPixels: 16000 * 16000) > Self.budget)
        #expect(lossy.bytes(loadedPixels: 2048 * 2048) < Self.budget / 8)
        let alpha = DecodeMemoryEstimator.webp(WebPHeader(alpha: true, width: 1000, height: 1000), info: info)
        #expect(alpha.fixedBytes == 1000 * 1000)
    }

    @Test("WebP chunk headers: VP8L size and alpha bit, VP8X flags")
    func webpHeaders() throws {
        let folder = TestEnvironment.temporaryFolder("decode-memory")
        // VP8L: signature, then 14 bits width - 1, 14 bits height - 1, alpha bit
        let bits = (999) | (499 << 14) | (1 << 28)
        let vp8l = B.ascii("VP8L") + B.le32(5) + [0x2F] + B.le32(bits) + [0]
        let url = folder.appendingPathComponent("lossless.webp")
        try Data(B.ascii("RIFF") + B.le32(4 + vp8l.count) + B.ascii("WEBP") + vp8l).write(to: url)
        let reader = try FileReader(path: url.path)
        let read = WebPHeader.read(reader)
        let header = try #require(read)
        #expect(header == WebPHeader(lossless: true, alpha: true, width: 1000, height: 500))
    }

    // MARK: FFmpeg pictures and video

    @Test("FFmpeg pixel formats: bytes per pixel from the name")
    func pixelFormats() {
        let expected: [(String?, Double)] = [("yuv420p", 1.5), ("yuvj420p", 1.5), ("yuv420p10le", 3), ("yuv444p12le", 6), ("yuv422p", 2),
                                             ("rgb24", 3), ("bgra", 4), ("rgba64le", 8), ("rgb48be", 6), ("gray", 1), ("gray16le", 2),
                                             ("p010le", 3), ("nv12", 1.5), ("pal8", 1), ("ya8", 2), ("gbrp10le", 6), (nil, 4)]
        for (name, bytes) in expected {
            #expect(DecodeMemoryEstimator.pixelBytes(name, bitDepth: nil) == bytes, "\(name ?? "nil")")
        }
    }

    @Test("x264: 84 B/px + 11 a thread (measured to 16 threads); its threads are the job's, else 1.5 × the cores up to 8, and the encoder is given that count")
    func encoderThreads() {
        #expect(DecodeMemoryEstimator.encoderBytesPerPixel(threads: 2) == 106)
        #expect(DecodeMemoryEstimator.encoderBytesPerPixel(threads: 16) == 260)
        #expect(DecodeMemoryEstimator.encoderThreads(1) == 1)
        #expect(DecodeMemoryEstimator.encoderThreads(12) == 12)
        let auto = DecodeMemoryEstimator.encoderThreads(nil)
        #expect(auto == max(1, min(8, SystemProcess.processorCount * 3 / 2)))
        #expect(DecoderBudget(threads: nil, maxPixels: 1 << 20).encoderOptions == ["threads": String(auto)])
        #expect(DecoderBudget(threads: 1, maxPixels: 1 << 20).encoderOptions == ["threads": "1"])
        // A 1080p transcode's x264 share at 8 threads: 172 B/px, 357 MB.
        var info = MediaInfo(path: "", bytes: 0, kind: .video, container: .mp4)
        (info.codec, info.width, info.height, info.pixelFormat) = (.h264, 1920, 1080, "yuv420p")
        let two = DecodeMemoryEstimator.transcode(info, threads: 2, output: (1920, 1080))?.fixedBytes ?? 0
        let eight = DecodeMemoryEstimator.transcode(info, threads: 2, encoderThreads: 8, output: (1920, 1080))?.fixedBytes ?? 0
        #expect(eight - two == Int64(1920 * 1080 * 66))
    }

    @Test("video: a 1080p H.264 decoder and its 4K → 1080p transcode fit; an 8K HEVC decoder with 8 threads does not")
    func video() throws {
        var info = MediaInfo(path: "", bytes: 0, kind: .video, container: .mp4)
        (info.codec, info.width, info.height, info.pixelFormat) = (.h264, 1920, 1080, "yuv420p")
        let hd = try #require(DecodeMemoryEstimator.videoDecoder(info, threads: 2))
        // 16 references + 2 threads + 2 pool frames of 1920×1080×1.5
        #expect(hd.fixedBytes == 1920 * 1080 * 3 / 2 * 20)

        (info.width, info.height) = (3840, 2160)
        let transcode = try #require(DecodeMemoryEstimator.transcode(info, threads: 2, output: (1920, 1080)))
        #expect(transcode.fixedBytes < Self.budget, "\(transcode)")

        // At 8K, H.264's highest level leaves room for 6 references, not 16; pictures this large
        // are decoded with one frame thread (DecoderBudget.frameThreads)
        (info.width, info.height) = (7680, 4320)
        let eightKAVC = try #require(DecodeMemoryEstimator.videoDecoder(info, threads: 2))
        #expect(eightKAVC.fixedBytes == 7680 * 4320 * 3 / 2 * (6 + 1 + 2))

        (info.codec, info.width, info.height, info.pixelFormat) = (.hevc, 7680, 4320, "yuv420p10le")
        let eightK = try #require(DecodeMemoryEstimator.videoDecoder(info, threads: 8))
        #expect(SafetyLimits().decodeViolation(eightK, loadedPixels: 0)?.cap == "maxDecodeBytes")
    }

    // MARK: The cap

    @Test("maxDecodeBytes is configurable: a stricter cap refuses a real fixture, and prepare loads smaller to fit")
    func configurable() throws {
        let info = try Through.probe(TestEnvironment.fixture("images/heic_800x600.heic"), scope: TestEnvironment.testMedia)
        var strict = SafetyLimits()
        strict.maxDecodeBytes = 1_000_000
        let violation = try #require(strict.violation(for: info))
        #expect(violation.cap == "maxDecodeBytes" && violation.description.contains("libheif"))

        // A streaming PNG has no fixed cost to speak of: a tight budget only shrinks the load size.
        let png = try Through.probe(TestEnvironment.fixture("images/png_rgb_opaque_400x300.png"), scope: TestEnvironment.testMedia)
        strict.maxDecodeBytes = (png.decodeMemory?.fixedBytes ?? 0) + 100 * 100 * 8
        #expect(strict.violation(for: png) == nil)
        let cap = try #require(ImagePlan.memoryPixelCap(info: png, safety: strict))
        #expect(cap < 400 * 300 && cap >= 100 * 100 / 2)
    }
}
