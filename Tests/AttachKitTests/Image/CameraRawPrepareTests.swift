import Foundation
import Testing
@testable import AttachKit

/// Issue 29: a camera raw is prepared from the JPEG preview it embeds, upright as the raw says,
/// through the JPEG path (downscaled and re-encoded to fit like any picture), and the report says
/// so. Fixtures: TestMedia/formats (generate.sh, "issue 29: camera raws"); each preview has a red
/// block in its top-left corner, so where it lands in the output tells the orientation applied.
@Suite("Camera raws: prepared from their embedded preview")
struct CameraRawPrepareTests {
    typealias Raw = CameraRawProbeTests.Raw

    /// The size an output must have: the preview's, turned upright.
    static func upright(_ raw: Raw) -> (Int, Int) {
        (5...8).contains(raw.orientation) ? (raw.preview.1, raw.preview.0) : raw.preview
    }

    /// `vipsheader`'s width and height of `path`.
    static func size(_ path: String) throws -> (Int, Int) {
        let width = try TestEnvironment.run("vipsheader", ["-f", "width", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let height = try TestEnvironment.run("vipsheader", ["-f", "height", path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return (Int(width) ?? 0, Int(height) ?? 0)
    }

    /// Whether the pixel at (`x`, `y`) of `path` is the preview's red (`vips getpoint`).
    static func isRed(_ path: String, x: Int, y: Int) throws -> Bool {
        let run = try TestEnvironment.run("vips", ["getpoint", path, "\(x)", "\(y)"])
        let bands = run.stdout.split(whereSeparator: { $0 == " " || $0.isNewline }).compactMap { Double($0) }
        return bands.count >= 3 && bands[0] > 200 && bands[1] < 70 && bands[2] < 70
    }

    /// The corner the preview's top-left corner is shown at, once turned upright by `orientation`.
    static func redCorner(_ orientation: Int) -> (right: Bool, bottom: Bool) {
        switch orientation {
        case 3: return (true, true)
        case 6: return (true, false)
        case 8: return (false, true)
        default: return (false, false)
        }
    }

    @Test("prepare makes a JPEG of the preview's size, upright (the red corner where the orientation puts it), notes the preview used, and re-probes as a JPEG",
          arguments: CameraRawProbeTests.usable)
    func prepared(raw: Raw) throws {
        // Given
        let out = TestEnvironment.temporaryFolder("raw-prepared")
        defer { try? FileManager.default.removeItem(at: out) }
        // When
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path, CameraRawProbeTests.path(raw.file)])
        // Then
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let output = try #require(report["output"]?.stringValue, "\(raw.file): \(run.stdout)")
        #expect(output.hasSuffix(".jpg"))
        #expect(report["action"]?.stringValue == "converted")
        #expect(report["before"]?["container"]?.stringValue == raw.container.rawValue)
        let actions = report["actions"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(actions.contains("rotated") == (raw.orientation > 1), "\(actions)")
        let notes = report["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains("used the camera's embedded JPEG preview (\(raw.preview.0)×\(raw.preview.1))"), "\(notes)")
        let (width, height) = try Self.size(output)
        let expected = Self.upright(raw)
        #expect(width == expected.0 && height == expected.1, "\(raw.file): \(width)×\(height)")
        let corner = Self.redCorner(raw.orientation)
        #expect(try Self.isRed(output, x: corner.right ? width - 6 : 5, y: corner.bottom ? height - 6 : 5), "\(raw.file): red corner not at \(corner)")
        #expect(try !Self.isRed(output, x: corner.right ? 5 : width - 6, y: corner.bottom ? 5 : height - 6))
        let after = try Through.probe(output, scope: out)
        #expect(after.container == .jpeg && after.cameraRaw == nil && (after.orientation ?? 1) == 1)
    }

    @Test("a preview over the caps is downscaled like any picture, still upright; the thumbnail verb shows the preview too")
    func downscaledAndThumbnail() throws {
        let raw = CameraRawProbeTests.usable[0]  // the NEF: 1280×854, orientation 6
        let out = TestEnvironment.temporaryFolder("raw-downscaled")
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--max-edge", "512", "--out", out.path, CameraRawProbeTests.path(raw.file)])
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let output = try #require(report["output"]?.stringValue, "\(run.stdout)")
        let (width, height) = try Self.size(output)
        #expect(height == 512 && abs(width - 342) <= 1, "\(width)×\(height)")
        #expect(try Self.isRed(output, x: width - 4, y: 4))
        let actions = report["actions"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(actions.contains("downscaled") && actions.contains("rotated"), "\(actions)")

        let thumbnail = out.appendingPathComponent("thumb.jpg")
        let made = try TestEnvironment.runAttachKit(["thumbnail", "--json", "--out", thumbnail.path, CameraRawProbeTests.path(raw.file)])
        #expect(made.status == 0, "\(made.stdout) \(made.stderr)")
        let (tw, th) = try Self.size(thumbnail.path)
        #expect(th > tw && th == 320, "\(tw)×\(th)")
    }

    @Test("a raw whose sensor data is cut short is prepared from its whole preview, and the report says what was left out")
    func repaired() throws {
        let source = CameraRawProbeTests.path("nef_nikon_preview_1280x854_orientation6.nef")
        let folder = TestEnvironment.temporaryFolder("raw-repaired")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cut = folder.appendingPathComponent("cut.nef")
        try Data([UInt8](try Data(contentsOf: URL(fileURLWithPath: source))).dropLast(1000)).write(to: cut)
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", folder.appendingPathComponent("out").path, cut.path])
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let output = try #require(report["output"]?.stringValue, "\(run.stdout)")
        let size = try Self.size(output)
        #expect(size.0 == 854 && size.1 == 1280, "\(size)")
        let notes = report["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains { $0.hasPrefix("repaired: ") && $0.contains("runs past the end of the file") }, "\(notes)")
    }
}
