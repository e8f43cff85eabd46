import Foundation
import Testing
@testable import AttachKit

/// Damaged and unusual formats (issue 18): truncated pictures FFmpeg would fill with black, damage
/// a transcode would conceal, and a format prepare refuses that thumbnail must refuse the same way.
/// Each gives one code from every verb.
@Suite("Hostile formats: truncation and concealed damage")
struct FormatAttackTests {
    static let formats = TestEnvironment.testMedia.appendingPathComponent("formats")

    /// The error code `attachkit VERB --json` answers for `path` (`nil` when it succeeds).
    static func code(_ arguments: [String], _ path: String, scratch: URL) throws -> String? {
        let run = try TestEnvironment.runAttachKit(arguments + ["--json", path])
        let line = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout) \(run.stderr)")
        if let error = line["error"] as? [String: Any] { return error["code"] as? String }
        if arguments.first == "validate", let diagnostics = line["diagnostics"] as? [[String: Any]],
           let corrupt = diagnostics.first(where: { $0["code"] as? String == "corrupt" }) {
            return corrupt["code"] as? String
        }
        return nil
    }

    /// A damaged copy of fixture `name` in a scratch folder: cut to `keep` bytes, or with bytes
    /// flipped (a fixed pattern) from a quarter of the way on.
    static func damaged(_ name: String, keep: Int? = nil, flip: Bool = false, in folder: URL) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: formats.appendingPathComponent(name)))
        if let keep { bytes = Array(bytes.prefix(keep)) }
        if flip {
            var random = SplitMix64(seed: 7)
            for _ in 0..<max(3, bytes.count / 200) {
                let index = bytes.count / 4 + Int(random.next() % UInt64(bytes.count - bytes.count / 4))
                bytes[index] = UInt8(truncatingIfNeeded: random.next())
            }
        }
        let path = folder.appendingPathComponent("damaged-" + name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a truncated QOI or Sun raster is corrupt, never a picture filled with black", arguments: [
        ("qoi_rgb.qoi", 64), ("sunrast_rgb.ras", 4632),
    ])
    func truncatedPictures(name: String, keep: Int) throws {
        let folder = TestEnvironment.temporaryFolder("truncated-picture")
        let path = try Self.damaged(name, keep: keep, in: folder)
        let out = folder.appendingPathComponent("out").path
        #expect(try Self.code(["prepare", "--out", out], path, scratch: folder) == "corrupt")
        #expect(try Self.code(["validate", "--deep"], path, scratch: folder) == "corrupt")
        #expect(try Self.code(["thumbnail", "--out", out + "/t.jpg"], path, scratch: folder) == "corrupt")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [] == [])
    }

    @Test("damage a transcode would conceal is corrupt from prepare, as from validate --deep", arguments: [
        ("ac3_stereo.ac3", false), ("asf_wmv2_wmav2.wmv", true), ("mxf_mpeg2.mxf", true),
    ])
    func concealedDamage(name: String, half: Bool) throws {
        let folder = TestEnvironment.temporaryFolder("concealed")
        let size = try Data(contentsOf: Self.formats.appendingPathComponent(name)).count
        let path = try Self.damaged(name, keep: half ? size / 2 : nil, flip: !half, in: folder)
        let out = folder.appendingPathComponent("out").path
        #expect(try Self.code(["validate", "--deep"], path, scratch: folder) == "corrupt")
        #expect(try Self.code(["prepare", "--out", out], path, scratch: folder) == "corrupt")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [] == [])
    }

    @Test("thumbnail refuses a raw H.264 stream as prepare does (unsupported, not corrupt)")
    func annexBThumbnail() throws {
        let folder = TestEnvironment.temporaryFolder("annexb")
        let path = Self.formats.appendingPathComponent("annexb_h264.h264").path
        #expect(try Self.code(["thumbnail", "--out", folder.appendingPathComponent("t.jpg").path], path, scratch: folder) == "unsupported")
        #expect(try Self.code(["prepare", "--out", folder.path], path, scratch: folder) == "unsupported")
    }
}
