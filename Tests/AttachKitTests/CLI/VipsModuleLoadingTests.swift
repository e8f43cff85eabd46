import Foundation
import Testing
@testable import AttachKit

/// libvips' modules are loaded on first need (``VipsModules``): a JPEG, PNG, GIF, WebP or TIFF
/// job never maps the heif and jxl modules, and the magick, openslide and poppler modules (whose
/// loaders are blocked anyway) are never mapped; HEIC, AVIF and JPEG XL still load. Each case runs the built `attachkit` as a child process, since loading
/// happens once per process.
@Suite("libvips modules loaded on first need")
struct VipsModuleLoadingTests {
    static let modules = ["vips-heif.so", "vips-jxl.so", "vips-magick.so", "vips-openslide.so", "vips-poppler.so"]

    /// The libvips modules the dynamic linker reports opening (`LD_DEBUG=files` lines on stderr).
    static func modulesLoaded(_ arguments: [String]) throws -> (status: Int32, modules: Set<String>) {
        let result = try FFmpegLoadingTests.run(arguments, environment: ["LD_DEBUG": "files"])
        let loaded = result.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            let path = line[range.upperBound...].prefix { $0 != " " && $0 != ";" }
            return Self.modules.first { path.hasSuffix("/" + $0) }
        }
        return (result.status, Set(loaded))
    }

    @Test("built-in formats map no module; HEIC and AVIF map the heif module only")
    func onFirstNeed() throws {
        // Given: pictures libvips reads without modules, and two it reads through the heif module
        let out = TestEnvironment.temporaryFolder("vips-modules")
        defer { try? FileManager.default.removeItem(at: out) }
        let builtIn = ["images/jpeg_large_4032x3024.jpg", "images/png_rgba_transparency_320x240.png", "images/gif_animated_320x240_24f.gif",
                       "images/webp_lossy_800x600.webp", "images/tiff_lzw_320x240.tif"].map(TestEnvironment.fixture)
        let heif = ["images/heic_800x600.heic", "images/avif_800x600.avif"].map(TestEnvironment.fixture)

        // When: they are probed, validated and prepared, each set in its own process
        let plain = try Self.modulesLoaded(["prepare", "--json", "--max-edge", "1024", "--out", out.appendingPathComponent("plain").path] + builtIn)
        let deep = try Self.modulesLoaded(["validate", "--deep", "--json"] + builtIn)
        let needing = try Self.modulesLoaded(["prepare", "--json", "--max-edge", "1024", "--out", out.appendingPathComponent("heif").path] + heif)

        // Then: no module for the built-in formats; the heif module (and nothing untrusted) for HEIC/AVIF
        #expect(plain.status == 0 && plain.modules.isEmpty, "prepare mapped \(plain.modules.sorted())")
        #expect(deep.modules.isEmpty, "validate mapped \(deep.modules.sorted())")
        #expect(needing.status == 0, "HEIC/AVIF prepare failed")
        #expect(needing.modules.contains("vips-heif.so"), "\(needing.modules.sorted())")
        #expect(needing.modules.isDisjoint(with: ["vips-magick.so", "vips-openslide.so", "vips-poppler.so"]), "\(needing.modules.sorted())")
    }

    @Test("a JPEG XL is still prepared, and maps no untrusted module", .enabled(if: TestEnvironment.hasTool("vips"), "needs the vips CLI"))
    func jpegXL() throws {
        // Given: a JPEG XL made from a fixture by the vips CLI
        let folder = TestEnvironment.temporaryFolder("vips-modules-jxl")
        defer { try? FileManager.default.removeItem(at: folder) }
        let jxl = folder.appendingPathComponent("photo.jxl").path
        let made = try TestEnvironment.run("vips", ["copy", TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"), jxl])
        try #require(made.status == 0, "vips copy: \(made.stderr)")

        // When: it is prepared
        let run = try Self.modulesLoaded(["prepare", "--json", "--profile", "apple", "--out", folder.appendingPathComponent("out").path, jxl])

        // Then: prepared (JPEG XL becomes JPEG under apple; FFmpeg reads JPEG XL, see FormatTable)
        #expect(run.status == 0)
        #expect(run.modules.isDisjoint(with: ["vips-magick.so", "vips-openslide.so", "vips-poppler.so"]), "\(run.modules.sorted())")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path).contains { $0.hasSuffix(".jpg") })
    }
}
