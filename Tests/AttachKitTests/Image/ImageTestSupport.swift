import Foundation
import Testing
@testable import AttachKit

/// Running the Preparer on images the way the CLI does (a ledger scoped to the input's folder and a
/// fresh output folder), checking the ledger and that the input is untouched.
enum ImagePrepare {
    struct Outcome {
        let report: PrepareReport
        let folder: URL
        /// Every file left in the output folder (never a temporary file).
        let files: [String]
    }

    static func run(_ path: String, scope: URL, options: (String) -> PrepareOptions,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome {
        let folder = TestEnvironment.temporaryFolder("image-prepare")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let ledger = try AccessLedger.forTests([scope, folder])
        let handle = try ledger.acquire(path)
        let report = Preparer(options: options(folder.path)).prepare(handle, ledger: ledger)
        handle.release()
        #expect(ledger.report.isClean, "access ledger: \(ledger.report.problems)", sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(path) was modified", sourceLocation: sourceLocation)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.sorted() ?? []
        return Outcome(report: report, folder: folder, files: files)
    }

    static func run(_ path: String, scope: URL, profile: Profile, maxBytes: Int64? = nil, maxEdge: Int? = nil,
                    maxFrames: Int? = nil, keepMetadata: Bool = false, qualityFloor: Int = 50,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> Outcome {
        try run(path, scope: scope, options: { folder in
            PrepareOptions(profile: profile, outputFolder: folder, maxBytes: maxBytes, maxEdge: maxEdge, maxFrames: maxFrames,
                           keepMetadata: keepMetadata, qualityFloor: qualityFloor)
        }, sourceLocation: sourceLocation)
    }

    /// Whether two files hold the same bytes.
    static func sameBytes(_ a: String, _ b: String) throws -> Bool {
        try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b))
    }
}

/// What `vipsheader` says about a file (the reference tool, run as a separate process).
struct VipsHeader {
    let width: Int
    let height: Int
    let bands: Int
    let loader: String
    let pages: Int
    let orientation: Int?
    let fields: Set<String>

    /// The attachment type the loader reads.
    var type: String {
        switch loader {
        case "jpegload": return "public.jpeg"
        case "pngload": return "public.png"
        case "gifload": return "com.compuserve.gif"
        case "heifload": return "public.heic"
        default: return loader
        }
    }

    static func of(_ path: String) throws -> VipsHeader {
        let run = try TestEnvironment.run("vipsheader", ["-a", path])
        guard run.status == 0 else { throw ImageTestFailure("vipsheader failed on \(path): \(run.stderr)") }
        var values: [String: String] = [:]
        for line in run.stdout.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            values[key] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return VipsHeader(width: Int(values["width"] ?? "") ?? 0, height: Int(values["height"] ?? "") ?? 0,
                          bands: Int(values["bands"] ?? "") ?? 0, loader: values["vips-loader"] ?? "",
                          pages: Int(values["n-pages"] ?? "") ?? 1, orientation: Int(values["orientation"] ?? ""),
                          fields: Set(values.keys))
    }
}

struct ImageTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Pixel comparisons: the output against a reference rendered by the `vips` CLI from the input.
enum ImagePixels {
    /// Long edge pictures are compared at, at most (not lower: vips would render HEIC references
    /// from their embedded thumbnails, a different picture).
    static let comparisonEdge = 1024

    /// PSNR in dB of the picture at `output` against the input rendered by `vips thumbnail` at the
    /// output's size (upright; colours converted to sRGB through the input's ICC profile when it has
    /// one, or when it is CMYK), transparency flattened on white for both when the output has no
    /// alpha. `nil` when the `vips` CLI cannot read the input.
    /// Large outputs are compared at ``comparisonEdge`` on the long edge (both sides resampled the same way).
    static func psnr(output: String, input: String, colourManaged: Bool, autorotate: Bool = true) throws -> Fidelity? {
        var out = try VipsImage.load(path: output, sequential: false, failOnWarnings: true)
        if max(out.width, out.height) > comparisonEdge {
            out = try VipsImage.thumbnail(path: output, width: comparisonEdge, height: comparisonEdge, failOnWarnings: true)
        }
        let folder = TestEnvironment.temporaryFolder("reference")
        let reference = folder.appendingPathComponent("ref.tif").path
        var source = input
        if input.hasSuffix(".tif") || input.hasSuffix(".tiff") {
            // vips thumbnail takes a multi-page TIFF whose second page is half the first for a
            // pyramid and renders from the small page: render from page 0 alone.
            source = folder.appendingPathComponent("page0.tif").path
            guard try TestEnvironment.run("vips", ["copy", input + "[page=0]", source]).status == 0 else { return nil }
        }
        var arguments = ["thumbnail", source, reference, String(out.width), "--height", String(out.height)]
        if colourManaged { arguments += ["--export-profile", "srgb"] }
        if !autorotate { arguments.append("--no-rotate") }
        let run = try TestEnvironment.run("vips", arguments)
        guard run.status == 0 else { return nil }
        let ref = try VipsImage.load(path: reference, sequential: false, failOnWarnings: false)
        return try psnr(out, ref)
    }

    /// PSNR of the luminance and of every band.
    struct Fidelity: CustomStringConvertible {
        let luma: Double
        let bands: Double
        var description: String { "luma \((luma * 10).rounded() / 10) dB, bands \((bands * 10).rounded() / 10) dB" }
    }

    /// PSNR of two decoded pictures of the same size (±2 px of rounding, cropped away), brought to
    /// the same bands (grey when `a` is grey, alpha flattened on white unless both have it).
    static func psnr(_ a: borrowing VipsImage, _ b: borrowing VipsImage) throws -> Fidelity {
        let width = min(a.width, b.width), height = min(a.height, b.height)
        guard max(a.width, b.width) - width <= 2, max(a.height, b.height) - height <= 2 else {
            throw ImageTestFailure("\(a.width)×\(a.height) vs \(b.width)×\(b.height)")
        }
        var x = try normalized(a, grey: a.isGreyscale, alpha: a.hasAlpha && b.hasAlpha)
        var y = try normalized(b, grey: a.isGreyscale, alpha: a.hasAlpha && b.hasAlpha)
        x = try x.cropped(left: 0, top: 0, width: width, height: height).copyToMemory()
        y = try y.cropped(left: 0, top: 0, width: width, height: height).copyToMemory()
        let bands = try x.psnr(against: y)
        let lumaX = try x.withoutAlpha().converted(to: .greyscale).copyToMemory()
        let lumaY = try y.withoutAlpha().converted(to: .greyscale).copyToMemory()
        return Fidelity(luma: try lumaX.psnr(against: lumaY), bands: bands)
    }

    private static func normalized(_ image: borrowing VipsImage, grey: Bool, alpha: Bool) throws -> VipsImage {
        var result = try image.editingMetadata([])
        if result.hasAlpha, !alpha { result = try result.flattened() }
        result = try result.converted(to: grey ? .greyscale : .sRGB)
        if !result.isEightBit { result = try result.castToEightBit() }
        return result
    }

    /// Mean of each band over a normalized region of the (8-bit) picture at `path`, decoded in-process.
    static func meanColour(_ path: String, x: Double = 0, y: Double = 0, width: Double = 1, height: Double = 1) throws -> [Double] {
        let image = try VipsImage.load(path: path, sequential: false, failOnWarnings: true)
        let left = Int(x * Double(image.width)), top = Int(y * Double(image.height))
        let region = try image.cropped(left: left, top: top, width: max(1, Int(width * Double(image.width))),
                                       height: max(1, Int(height * Double(image.height))))
        var means: [Double] = []
        for band in 0..<region.bands { means.append(try region.bands(from: band).average()) }
        return means
    }
}

/// The properties every prepared image must have, whatever the input.
enum ImageChecks {
    /// Lowest luminance PSNR (dB) accepted between a re-encoded output and the input rendered at
    /// the same size by the `vips` CLI: JPEG at quality 70 and up, lossless and palette PNGs and
    /// GIF stills measure 30 dB and up on every fixture and corpus image; byte fitting down to
    /// quality 50 measures 27 and up; a wrong orientation or a half-grey decode measures well under 20.
    static func minimumLumaPSNR(quality: Int?) -> Double { (quality ?? 100) >= 70 ? 30 : 26 }
    /// Lowest PSNR over every band: 4:2:0 chroma subsampling costs synthetic colour edges a few dB
    /// (the TestMedia BMP at quality 80 measures 28.6), a colour conversion gone wrong far more.
    static let minimumBandPSNR = 24.0

    /// Checks an outcome that must have succeeded: one output (and nothing else) in the folder, of
    /// a type the profile allows with the extension of its bytes, within the byte and pixel caps,
    /// upright like the input. A passthrough must be the input's very bytes; a re-encoded output
    /// must read the same in `vipsheader` as in our probe, carry no orientation, be at or above
    /// the quality floor and close to the input in pixels (luminance and every band).
    static func verify(_ outcome: ImagePrepare.Outcome, input: String, scope: URL, profile: Profile,
                       qualityFloor: Int = 50, checkPixels: Bool = true,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let report = outcome.report
        let name = URL(fileURLWithPath: input).lastPathComponent
        guard let output = report.output else {
            Issue.record("\(name): not prepared: \(report.error?.description ?? "?")", sourceLocation: sourceLocation)
            return
        }
        #expect(outcome.files == [URL(fileURLWithPath: output).lastPathComponent], "\(name): files \(outcome.files)",
                sourceLocation: sourceLocation)
        let inputInfo = try Through.probe(input, scope: scope)
        let info = try Through.probe(output, scope: outcome.folder)
        let type = try #require(info.uniformType, sourceLocation: sourceLocation)
        #expect(Profile.allows(profile.image.types, type), "\(name): \(type.identifier) not allowed by \(profile.name)",
                sourceLocation: sourceLocation)
        #expect(URL(fileURLWithPath: output).pathExtension == type.preferredExtension, "\(name): extension of \(output)",
                sourceLocation: sourceLocation)
        #expect(info.bytes <= profile.image.maxBytes, "\(name): \(info.bytes) bytes", sourceLocation: sourceLocation)
        let width = try #require(info.displayWidth, sourceLocation: sourceLocation)
        let height = try #require(info.displayHeight, sourceLocation: sourceLocation)
        #expect(PixelBudget(profile.image).allows(width: width, height: height), "\(name): \(width)×\(height)",
                sourceLocation: sourceLocation)
        if let cap = profile.image.maxFrames { #expect((info.frames ?? 1) <= cap, sourceLocation: sourceLocation) }
        // Upright: the same display aspect as the input (±1 px of rounding on the short side).
        let inW = Double(inputInfo.displayWidth ?? 1), inH = Double(inputInfo.displayHeight ?? 1)
        let expectedHeight = Double(width) * inH / inW
        #expect(abs(expectedHeight - Double(height)) <= max(1.5, Double(height) * 0.01),
                "\(name): \(width)×\(height) is not the aspect of \(Int(inW))×\(Int(inH))", sourceLocation: sourceLocation)
        guard report.actions.contains(where: { $0.changesBytes }) else {
            // Passed through: the very bytes of the input, whose facts the manifests record as
            // measured by vipsheader/ffprobe (and the probe tests check against them).
            #expect(try ImagePrepare.sameBytes(output, input), "\(name): passthrough changed bytes", sourceLocation: sourceLocation)
            return
        }
        // Re-encoded: the reference tool reads the same type and size.
        let header = try VipsHeader.of(output)
        if type != .heif {
            #expect(header.type == type.identifier, "\(name): vipsheader reads \(header.loader)", sourceLocation: sourceLocation)
        }
        #expect(header.width == (info.width ?? 0) && header.height == (info.height ?? 0), sourceLocation: sourceLocation)
        // Re-encoded: upright means no orientation left, quality at or above the floor.
        #expect((header.orientation ?? 1) == 1, "\(name): orientation \(header.orientation ?? 0) left", sourceLocation: sourceLocation)
        if let quality = report.quality { #expect(quality >= qualityFloor, "\(name): quality \(quality)", sourceLocation: sourceLocation) }
        let colourManaged = inputInfo.hasICCProfile == true || inputInfo.pixelFormat == "cmyk"
        if checkPixels, (info.frames ?? 1) == 1,
           let fidelity = try ImagePixels.psnr(output: output, input: input, colourManaged: colourManaged) {
            #expect(fidelity.luma >= minimumLumaPSNR(quality: report.quality) && fidelity.bands >= minimumBandPSNR,
                    "\(name): \(fidelity) against the input at quality \(report.quality.map(String.init) ?? "-")",
                    sourceLocation: sourceLocation)
        }
    }
}

/// Pictures the fixtures lack, made in a test's temporary folder with the reference CLIs (both
/// installed by `scripts/setup.sh`), so the cases that need them run everywhere.
enum GeneratedImages {
    /// Runs `tool`; a failure fails the test with its message.
    static func make(_ tool: String, _ arguments: [String], output: URL) throws -> String {
        let run = try TestEnvironment.run(tool, arguments)
        guard run.status == 0, FileManager.default.fileExists(atPath: output.path) else {
            throw ImageTestFailure("\(tool) \(arguments.joined(separator: " ")): \(run.stderr)")
        }
        return output.path
    }

    /// A JPEG in Display P3 with its profile embedded (`vips icc_transform` of an sRGB fixture).
    static func displayP3JPEG(in folder: URL) throws -> String {
        let output = folder.appendingPathComponent("display_p3.jpg")
        return try make("vips", ["icc_transform", TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"), output.path, "p3"],
                        output: output)
    }

    /// A JPEG XL of the lossy WebP fixture (`vips copy`: libvips writes JPEG XL, AttachKit reads it through FFmpeg).
    static func jpegXL(in folder: URL) throws -> String {
        let output = folder.appendingPathComponent("picture.jxl")
        return try make("vips", ["copy", TestEnvironment.fixture("images/webp_lossy_800x600.webp"), output.path], output: output)
    }

    /// A CMYK JPEG with its CMYK profile embedded (`vips icc_transform` to libvips' CMYK profile).
    static func cmykWithProfileJPEG(in folder: URL) throws -> String {
        let output = folder.appendingPathComponent("cmyk_icc.jpg")
        return try make("vips", ["icc_transform", TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"), output.path, "cmyk"],
                        output: output)
    }

    /// A large animated GIF: 1280×1024, 30 frames at 10 fps, about 1.9 MB (ffmpeg's test pattern).
    static func largeAnimatedGIF(in folder: URL) throws -> String {
        let output = folder.appendingPathComponent("animated_1280x1024_30f.gif")
        return try make("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=1280x1024:rate=10", "-frames:v", "30", output.path],
                        output: output)
    }
}

/// PNG files rewritten chunk by chunk, every CRC recomputed (the structure check still passes),
/// for damage only a decoder sees.
enum PNGChunks {
    /// Writes `png` to `output` with each chunk of `type` (IDAT unless told) given the body
    /// `change` returns for it (its index among the chunks of that type, their count, its body);
    /// `nil` drops the chunk.
    static func rewrite(_ png: String, to output: String, type: String = "IDAT", _ change: (Int, Int, [UInt8]) -> [UInt8]?) throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        func be32(_ at: Int) -> Int { original[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        var chunks: [(type: String, body: [UInt8])] = []
        var index = 8
        while index + 12 <= original.count {
            let length = be32(index)
            chunks.append((String(decoding: original[(index + 4)..<(index + 8)], as: UTF8.self), Array(original[(index + 8)..<(index + 8 + length)])))
            index += 12 + length
        }
        let count = chunks.filter { $0.type == type }.count
        var seen = 0
        var out = Array(original[0..<8])
        for chunk in chunks {
            var body = chunk.body
            if chunk.type == type {
                defer { seen += 1 }
                guard let changed = change(seen, count, body) else { continue }
                body = changed
            }
            out += SyntheticMedia.pngChunk(chunk.type, body)
        }
        try Data(out).write(to: URL(fileURLWithPath: output))
    }
}
