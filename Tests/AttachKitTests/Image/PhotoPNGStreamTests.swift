import Foundation
import Testing
@testable import AttachKit

/// A photo PNG judged from its top rows before decoding (issue 14: PNG → JPEG at `vips copy`'s
/// cost): it streams from the decoder into the JPEG encoder. A strip that looks like a graphic
/// leaves the verdict to the whole picture; damage anywhere in the compressed data (structure and
/// CRCs intact, so only the decoder sees it) is `corrupt` with nothing written, whether it lies in
/// the judged strip or below it. Inputs are made here with `vips` from TestMedia's 2 MP photo,
/// prepared for `ios` with a 3 MB budget (so the 3.5 MB PNG must be re-encoded, and its PNG is
/// over the 1 MB recommendation).
@Suite("Photo PNG streamed to JPEG")
struct PhotoPNGStreamTests {
    static let budget: Int64 = 3_000_000

    /// TestMedia's 1600×1200 photo as a PNG (3.5 MB), or embedded in a 1600×1600 white canvas
    /// `top` rows down.
    static func photoPNG(in folder: URL, name: String, top: Int = 0) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let photo = TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")
        let arguments = top == 0 ? ["copy", photo, path] : ["embed", photo, path, "0", "\(top)", "1600", "\(1200 + top)", "--extend", "white"]
        let run = try TestEnvironment.run("vips", arguments)
        try #require(run.status == 0, "vips: \(run.stderr)")
        return path
    }

    static func size(_ path: String) throws -> Int64 {
        Int64((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
    }

    @Test("a photo banner over a plain picture (a screenshot's header) is not judged from the strip: the whole picture decides")
    func bannerIsNotThePicture() throws {
        let folder = TestEnvironment.temporaryFolder("photo-banner")
        let banner = folder.appendingPathComponent("banner.png").path
        let crop = try TestEnvironment.run("vips", ["crop", TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg"), banner, "0", "0", "1600", "200"])
        try #require(crop.status == 0, "vips crop: \(crop.stderr)")
        let page = folder.appendingPathComponent("page.png").path
        let embed = try TestEnvironment.run("vips", ["embed", banner, page, "0", "0", "1600", "1600", "--extend", "white"])
        try #require(embed.status == 0, "vips embed: \(embed.stderr)")
        let strip = try PhotoEstimate.judgeTop(path: page, width: 1600, height: 1600, fileBytes: Self.size(page))
        #expect(strip == nil, "\(strip?.evidence ?? "")")
        let outcome = try ImagePrepare.run(page, scope: folder, profile: .ios, maxBytes: 300_000)
        #expect(!outcome.report.notes.contains { $0.contains("of the top") }, "\(outcome.report.notes)")
    }

    @Test("a photo PNG is judged from its top rows and becomes a JPEG in one streamed encode, re-read by vipsheader")
    func judgedFromTheTop() throws {
        let folder = TestEnvironment.temporaryFolder("photo-stream")
        let input = try Self.photoPNG(in: folder, name: "photo.png")
        let outcome = try ImagePrepare.run(input, scope: folder, profile: .ios, maxBytes: Self.budget)
        let report = outcome.report
        let output = try #require(report.output, "\(String(describing: report.error))")
        let header = try VipsHeader.of(output)
        #expect(header.loader == "jpegload" && header.width == 1600 && header.height == 1200)
        #expect(report.attempts == 1, "\(report.notes)")
        #expect(report.notes.contains { $0.hasPrefix("a photograph (") && $0.contains("of the top 150 rows") }, "\(report.notes)")
        #expect((report.after?.bytes ?? .max) <= Self.budget)
        #expect(outcome.files == [URL(fileURLWithPath: output).lastPathComponent])
    }

    @Test("a photo under a flat white top is not judged from the strip, and still becomes a JPEG from the whole picture")
    func flatTopFallsBackToTheWhole() throws {
        let folder = TestEnvironment.temporaryFolder("photo-flat-top")
        let input = try Self.photoPNG(in: folder, name: "flat-top.png", top: 400)
        let outcome = try ImagePrepare.run(input, scope: folder, profile: .ios, maxBytes: Self.budget)
        let report = outcome.report
        let output = try #require(report.output, "\(String(describing: report.error))")
        #expect(try VipsHeader.of(output).loader == "jpegload")
        let verdict = try #require(report.notes.first { $0.hasPrefix("a photograph (") }, "\(report.notes)")
        #expect(!verdict.contains("of the top"), "the white strip decides nothing: \(verdict)")
    }

    @Test("the strip's verdict: a photo's top is photographic, a white strip is not, a graphic's top is not")
    func stripVerdicts() throws {
        let folder = TestEnvironment.temporaryFolder("photo-strip")
        let photo = try Self.photoPNG(in: folder, name: "photo.png")
        let top = try #require(try PhotoEstimate.judgeTop(path: photo, width: 1600, height: 1200, fileBytes: Self.size(photo)))
        #expect(top.photographic && top.sampled >= PhotoEstimate.minimumSamples, "\(top.evidence)")
        let flat = try Self.photoPNG(in: folder, name: "flat.png", top: 400)
        #expect(try PhotoEstimate.judgeTop(path: flat, width: 1600, height: 1600, fileBytes: Self.size(flat))?.photographic == false)
        let graphic = folder.appendingPathComponent("graphic.png").path
        let run = try TestEnvironment.run("vips", ["resize", TestEnvironment.fixture("images/png_palette_400x300.png"), graphic, "4",
                                                   "--kernel", "nearest"])
        try #require(run.status == 0, "vips resize: \(run.stderr)")
        let verdict = try PhotoEstimate.judgeTop(path: graphic, width: 1600, height: 1200, fileBytes: Self.size(graphic))
        #expect(verdict?.photographic != true, "\(verdict?.evidence ?? "not judged")")
        // Too small to judge from an eighth of its rows (80 × 10 pixels): left to the whole picture.
        let small = folder.appendingPathComponent("small.png").path
        let crop = try TestEnvironment.run("vips", ["crop", photo, small, "0", "0", "80", "80"])
        try #require(crop.status == 0, "vips crop: \(crop.stderr)")
        #expect(try PhotoEstimate.judgeTop(path: small, width: 80, height: 80, fileBytes: Self.size(small)) == nil)
        // A header that does not match the file is not judged.
        #expect(try PhotoEstimate.judgeTop(path: photo, width: 1200, height: 1600, fileBytes: Self.size(photo)) == nil)
    }

    @Test("damaged compressed data in the judged strip or below it is corrupt, with nothing written",
          arguments: [0.05, 0.6, 0.97])
    func damagedData(fraction: Double) throws {
        let folder = TestEnvironment.temporaryFolder("photo-damaged")
        let photo = try Self.photoPNG(in: folder, name: "photo.png")
        let input = folder.appendingPathComponent("damaged.png").path
        // The IDAT chunk at `fraction` of them (vips writes many) filled with 0xFF.
        try PNGChunks.rewrite(photo, to: input) { index, count, body in
            index == min(count - 1, Int(Double(count) * fraction)) ? Array(repeating: 0xFF, count: body.count) : body
        }
        let outcome = try ImagePrepare.run(input, scope: folder, profile: .ios, maxBytes: Self.budget)
        #expect(outcome.report.error?.code == .corrupt, "\(String(describing: outcome.report.error)) \(outcome.report.notes)")
        #expect(outcome.files.isEmpty, "\(outcome.files)")
    }
}
