import Foundation
import Testing
@testable import AttachKit

/// Issue 29: camera raws (NEF, ARW...) were "a TIFF" of their 80×54 IFD0 thumbnail, or corrupt
/// ("tiff2vips: subsampled images not supported"). They are identified by their bytes, and shown
/// as the JPEG preview they embed. Fixtures: TestMedia/formats (generate.sh, "issue 29: camera
/// raws"), TIFF structures made byte by byte around small JPEG previews.
@Suite("Camera raws: identified by their bytes, described by their embedded preview")
struct CameraRawProbeTests {
    static let folder = FormatIdentificationTests.folder
    static func path(_ file: String) -> String { FormatIdentificationTests.path(file) }

    /// A usable raw fixture and what its header says.
    struct Raw: Sendable, CustomTestStringConvertible {
        let file: String
        let container: Container
        let make: String
        let sensor: (Int, Int)
        let preview: (Int, Int)
        let orientation: Int
        var testDescription: String { file }
    }

    static let usable: [Raw] = [
        Raw(file: "nef_nikon_preview_1280x854_orientation6.nef", container: .nef, make: "NIKON CORPORATION", sensor: (1296, 864), preview: (1280, 854), orientation: 6),
        Raw(file: "arw_sony_preview_1024x680.arw", container: .arw, make: "SONY", sensor: (6000, 4000), preview: (1024, 680), orientation: 1),
        Raw(file: "dng_preview_768x512_orientation8.dng", container: .dng, make: "Canon", sensor: (1536, 1024), preview: (768, 512), orientation: 8),
        Raw(file: "cr2_canon_preview_1024x680.cr2", container: .cr2, make: "Canon", sensor: (5472, 3648), preview: (1024, 680), orientation: 1),
        Raw(file: "raf_fujifilm_preview_1024x680_orientation3.raf", container: .raf, make: "FUJIFILM", sensor: (6000, 4000), preview: (1024, 680), orientation: 3),
        Raw(file: "cr3_canon_preview_1024x680_orientation3.cr3", container: .cr3, make: "Canon", sensor: (6000, 4000), preview: (1024, 680), orientation: 3),
    ]

    @Test("a raw is probed as its maker's raw, with the sensor's size, and the preview's size, components and orientation as the picture's", arguments: usable)
    func probed(raw: Raw) throws {
        // When
        let info = try Through.probe(Self.path(raw.file), scope: Self.folder)
        let run = try TestEnvironment.runAttachKit(["probe", "--json", Self.path(raw.file)])
        // Then
        #expect(info.kind == .image && info.container == raw.container && info.codec == Codec("camera-raw"))
        #expect(info.width == raw.preview.0 && info.height == raw.preview.1)
        #expect(info.orientation == raw.orientation)
        #expect(info.bands == 3 && info.hasAlpha == false && info.frames == 1)
        let camera = try #require(info.cameraRaw)
        #expect(camera.make == raw.make)
        #expect(camera.sensorWidth == raw.sensor.0 && camera.sensorHeight == raw.sensor.1)
        #expect(camera.previewWidth == raw.preview.0 && camera.previewHeight == raw.preview.1)
        // The preview's own bytes, cut out where the raw says, are the JPEG the size comes from.
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path(raw.file))))
        let preview = Array(whole[Int(camera.previewOffset)..<Int(camera.previewOffset + camera.previewBytes)])
        let extracted = TestEnvironment.temporaryFolder("raw-preview").appendingPathComponent("preview.jpg")
        try Data(preview).write(to: extracted)
        let width = try TestEnvironment.run("vipsheader", ["-f", "width", extracted.path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let height = try TestEnvironment.run("vipsheader", ["-f", "height", extracted.path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(width == "\(raw.preview.0)" && height == "\(raw.preview.1)")
        // The JSON report says the same.
        let json = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(json["container"]?.stringValue == raw.container.rawValue && json["codec"]?.stringValue == "camera-raw")
        #expect(json["cameraRaw"]?["sensorWidth"] == .number(Double(raw.sensor.0)))
        #expect(json["cameraRaw"]?["previewHeight"] == .number(Double(raw.preview.1)))
        #expect(json["uti"]?.stringValue == raw.container.facts?.type?.identifier)
        // Its layout is intact, and validate says what prepare will do.
        #expect(StructureChecker.check(path: Self.path(raw.file), sniff: FormatSniffer.Result(raw.container)) == .intact)
        let report = try Through.validate(Self.path(raw.file), scope: Self.folder, profile: .ios, deep: true)
        #expect(report.diagnostics.map(\.code) == [.unsupportedType], "\(report.diagnostics.map(\.message))")
        #expect(report.diagnostics.first?.fix?.contains("embedded JPEG preview (\(raw.preview.0)×\(raw.preview.1))→JPEG") == true,
                "\(report.diagnostics.map(\.fix))")
    }

    @Test("a raw whose only JPEG is a thumbnail is refused by name (unsupported), from probe, validate and prepare, never called corrupt")
    func thumbnailOnly() throws {
        let file = Self.path("nef_nikon_thumbnail_only.nef")
        #expect(FormatSniffer.sniff(try FileReader(path: file)).container == .nef)
        #expect {
            _ = try Through.probe(file, scope: Self.folder)
        } throws: { error in
            guard let error = error as? ProbeError, error.code == .unsupported else { return false }
            return error.message.contains("a Nikon NEF camera raw whose largest embedded JPEG is 160×120, a thumbnail")
                && error.message.contains("no camera raw decoder")
        }
        let out = TestEnvironment.temporaryFolder("raw-thumbnail-only")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path, file])
        #expect(TestEnvironment.errorCode(run.stdout) == "unsupported", "\(run.stdout)")
        let deep = try Through.validate(file, scope: Self.folder, profile: .ios, deep: true)
        #expect(!deep.diagnostics.contains { $0.code == .corrupt }, "\(deep.diagnostics.map(\.message))")
    }

    /// A TIFF-like file: `magic`, IFD0 at 8 with `entries` (tag, type, values; values of 4 bytes
    /// or fewer inline), their longer values after it, `tail` at the end.
    static func tiff(order: String = "II", magic: UInt16 = 42, _ entries: [(UInt16, UInt16, [UInt8])], tail: [UInt8] = []) -> [UInt8] {
        let little = order == "II"
        func u16(_ v: UInt16) -> [UInt8] { little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { little ? (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } : (0..<4).reversed().map { UInt8((v >> (8 * $0)) & 0xFF) } }
        var out = Array(order.utf8) + u16(magic) + u32(8) + u16(UInt16(entries.count))
        var extra: [UInt8] = []
        let extraStart = 8 + 2 + 12 * entries.count + 4
        let sizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 7: 1]
        for (tag, type, values) in entries.sorted(by: { $0.0 < $1.0 }) {
            out += u16(tag) + u16(type) + u32(UInt32(values.count / (sizes[type] ?? 1)))
            if values.count <= 4 {
                out += values + [UInt8](repeating: 0, count: 4 - values.count)
            } else {
                out += u32(UInt32(extraStart + extra.count))
                extra += values + (values.count % 2 == 1 ? [0] : [])
            }
        }
        return out + u32(0) + extra + tail
    }

    static func short(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func text(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }

    @Test("signatures: ORF and RW2 by their magic numbers, CR2 by 'CR', CR3 by its brand, RAF by its header, PEF by its Make with sensor data; a Nikon scanner's TIFF (no sensor data) stays a TIFF",
          arguments: [
            (tiff(magic: 0x4F52, [(256, 3, short(64)), (257, 3, short(48))]), Container.orf),
            (Array("MMOR".utf8) + [0, 0, 0, 8, 0, 0, 0, 0, 0, 0], .orf),
            (tiff(magic: 0x5352, [(256, 3, short(64))]), .orf),
            (tiff(magic: 0x55, [(2, 3, short(64)), (3, 3, short(48))]), .rw2),
            (Array("II".utf8) + [42, 0, 16, 0, 0, 0] + Array("CR".utf8) + [2, 0, 0, 0, 0, 0, 0, 0], .cr2),
            ([0, 0, 0, 24] + Array("ftypcrx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8), .cr3),
            (Array("FUJIFILMCCD-RAW 0201FF383501".utf8) + [UInt8](repeating: 0, count: 120), .raf),
            (tiff([(256, 3, short(64)), (257, 3, short(48)), (262, 3, short(32803)), (271, 2, text("PENTAX Corporation"))]), .pef),
            (tiff([(256, 3, short(64)), (257, 3, short(48)), (259, 3, short(65535)), (271, 2, text("RICOH IMAGING COMPANY, LTD."))]), .pef),
            (tiff([(256, 3, short(64)), (257, 3, short(48)), (262, 3, short(2)), (271, 2, text("Nikon"))]), .tiff),
            (tiff([(256, 3, short(64)), (257, 3, short(48)), (262, 3, short(32803)), (271, 2, text("ACME"))]), .tiff),
            (tiff([(256, 3, short(64)), (50706, 1, [1, 4, 0, 0])]), .dng),
          ] as [([UInt8], Container)])
    func signatures(bytes: [UInt8], expected: Container) throws {
        #expect(try FormatSnifferTests.sniff(bytes).container == expected)
    }

    @Test("a Panasonic RW2 (its own magic number) is shown as its JpgFromRaw (tag 0x2E), with the sensor's size from its tags 2 and 3")
    func panasonicRW2() throws {
        // The ARW fixture's preview, carried as an RW2's JpgFromRaw.
        let arw = Self.path("arw_sony_preview_1024x680.arw")
        let camera = try #require(try Through.probe(arw, scope: Self.folder).cameraRaw)
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: arw)))
        let jpeg = Array(whole[Int(camera.previewOffset)..<Int(camera.previewOffset + camera.previewBytes)])
        let folder = TestEnvironment.temporaryFolder("raw-rw2")
        defer { try? FileManager.default.removeItem(at: folder) }
        let rw2 = folder.appendingPathComponent("picture.rw2")
        try Data(Self.tiff(magic: 0x55, [(2, 3, Self.short(5184)), (3, 3, Self.short(3888)), (0x2E, 7, jpeg),
                                         (271, 2, Self.text("Panasonic")), (274, 3, Self.short(1))])).write(to: rw2)
        // When
        let info = try Through.probe(rw2.path, scope: folder)
        // Then
        #expect(info.container == .rw2 && info.width == 1024 && info.height == 680)
        #expect(info.cameraRaw?.make == "Panasonic" && info.cameraRaw?.sensorWidth == 5184 && info.cameraRaw?.sensorHeight == 3888)
        #expect(StructureChecker.check(path: rw2.path, sniff: FormatSniffer.Result(.rw2)) == .intact)
    }

    @Test("a CR3 without Canon's preview boxes (and an ORF whose preview is in its maker note) is identified and refused by name, saying why")
    func cr3Refused() throws {
        let folder = TestEnvironment.temporaryFolder("raw-cr3")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ftyp: [UInt8] = [0, 0, 0, 24] + Array("ftypcrx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8)
        let moov: [UInt8] = [0, 0, 0, 8] + Array("moov".utf8)
        let cr3 = folder.appendingPathComponent("picture.cr3")
        try Data(ftyp + moov).write(to: cr3)
        let orf = folder.appendingPathComponent("picture.orf")
        try Data(Self.tiff(magic: 0x4F52, [(256, 3, Self.short(64)), (257, 3, Self.short(48)), (271, 2, Self.text("OLYMPUS IMAGING CORP."))])).write(to: orf)
        for (url, words) in [(cr3, "a Canon CR3 camera raw with no embedded JPEG preview that is read here"),
                             (orf, "Olympus keeps its previews in the maker note")] {
            let run = try TestEnvironment.runAttachKit(["probe", "--json", url.path])
            let json = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(json["error"]?["code"]?.stringValue == "unsupported", "\(run.stdout)")
            #expect(json["error"]?["message"]?.stringValue?.contains(words) == true, "\(run.stdout)")
        }
    }

    @Test("damage outside the preview (the sensor data cut short) is recoverable; a raw cut inside its preview is corrupt, not 'no preview'")
    func damage() throws {
        let file = Self.path("nef_nikon_preview_1280x854_orientation6.nef")
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let raw = try #require(try Through.probe(file, scope: Self.folder).cameraRaw)
        let folder = TestEnvironment.temporaryFolder("raw-damage")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The sensor data comes last: cut 1000 bytes of it.
        let sensorCut = folder.appendingPathComponent("sensor-cut.nef")
        try Data(whole.dropLast(1000)).write(to: sensorCut)
        let verdict = StructureChecker.check(path: sensorCut.path, sniff: FormatSniffer.Result(.nef))
        guard case .recoverable(let reason) = verdict else { Issue.record("\(verdict)"); return }
        #expect(reason.contains("runs past the end of the file") && reason.contains("preview the attachment is made from is whole"), "\(reason)")
        // Cut in the middle of the preview.
        let previewCut = folder.appendingPathComponent("preview-cut.nef")
        try Data(whole.prefix(Int(raw.previewOffset + raw.previewBytes / 2))).write(to: previewCut)
        let run = try TestEnvironment.runAttachKit(["probe", "--json", previewCut.path])
        let json = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(json["error"]?["code"]?.stringValue == "corrupt", "\(run.stdout)")
        #expect(json["error"]?["message"]?.stringValue?.contains("runs past the end of the file") == true, "\(run.stdout)")
    }
}
