import Foundation
import Testing
@testable import AttachKit

/// A JPEG is judged by its coding process (its `SOFn` marker), in one place (``Playability``): the
/// Huffman-coded baseline, extended sequential and progressive processes at 8 bits are handed over;
/// every other process is re-encoded when a decoder here reads it (arithmetic coding: libjpeg-turbo;
/// lossless: FFmpeg), or refused by name when none does (hierarchical, arithmetic-coded lossless).
/// An arithmetic-coded JPEG used to be handed back unchanged.
@Suite("JPEG coding processes: only what plays is handed over")
struct JPEGProcessTests {
    /// TestMedia's baseline photo, written again in the process `kind` names into a fresh folder.
    static func make(_ kind: String) throws -> (path: String, folder: URL) {
        let folder = TestEnvironment.temporaryFolder("jpeg-process")
        let source = TestEnvironment.fixture("images/jpeg_photo_1600x1200_q90.jpg")
        let path = folder.appendingPathComponent("\(kind).jpg").path
        switch kind {
        case "arithmetic": try jpegtran(["-arithmetic", source], to: path)
        case "arithmetic-progressive": try jpegtran(["-arithmetic", "-progressive", source], to: path)
        case "lossless": try AVFiles.ffmpeg(["-i", source, "-c:v", "ljpeg", "-pix_fmt", "yuvj420p", path])
        default:
            // Another SOF marker over the baseline photo's frame header: what the marker declares is
            // judged before any decoder reads the data.
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
            let at = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
            bytes[at + 1] = UInt8(kind.dropFirst(3), radix: 16)!
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        return (path, folder)
    }

    static func jpegtran(_ arguments: [String], to path: String) throws {
        let run = try TestEnvironment.run("jpegtran", ["-outfile", path] + arguments)
        guard run.status == 0 else { throw ImageTestFailure("jpegtran failed: \(run.stderr)") }
    }

    /// The `SOFn` marker of the JPEG at `path`.
    static func marker(_ path: String) throws -> UInt8? {
        JPEGFrameHeader.read(try FileReader(path: path))?.marker
    }

    @Test("a process a decoder here reads but iOS does not show is re-encoded to a baseline JPEG, validate and prepare agreeing",
          arguments: [("arithmetic", 0xC9), ("arithmetic-progressive", 0xCA), ("lossless", 0xC3)])
    func reencoded(kind: String, marker: Int) throws {
        // Given the photo in that process
        let (path, folder) = try Self.make(kind)
        #expect(try Self.marker(path) == UInt8(marker))
        // When it is validated and prepared for ios
        let report = try Through.validate(path, scope: folder, profile: .ios)
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios)
        // Then validate names the process, and prepare re-encodes it to a baseline 8-bit JPEG of the same size
        let finding = try #require(report.errors.first { $0.code == .unsupportedCodecProfile }, "\(report.diagnostics.map(\.code))")
        #expect(finding.message.contains(JPEGFrameHeader.processName(marker: marker)), "\(finding.message)")
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        #expect(outcome.report.actions.contains(.reencoded))
        #expect(try Self.marker(output) == 0xC0)
        let header = try VipsHeader.of(output)
        #expect(header.loader == "jpegload" && header.width == 1600 && header.height == 1200)
        #expect(try Through.validate(output, scope: outcome.folder, profile: .ios).ok)
    }

    @Test("a process no decoder here reads is refused by name, by validate and prepare alike",
          arguments: ["SOFC5", "SOFC6", "SOFC7", "SOFCB", "SOFCD", "SOFCE", "SOFCF"])
    func refusedByName(kind: String) throws {
        // Given a frame header that declares a hierarchical or arithmetic-coded lossless process
        let (path, folder) = try Self.make(kind)
        let name = JPEGFrameHeader.processName(marker: Int(kind.dropFirst(3), radix: 16)!)
        // When it is validated and prepared
        let report = try Through.validate(path, scope: folder, profile: .ios, deep: true)
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .ios)
        // Then both say which process it is and that nothing here decodes it; nothing is written
        let finding = try #require(report.errors.first, "no finding")
        #expect(finding.code == .unsupportedCodec && finding.message.contains(name), "\(finding.code): \(finding.message)")
        #expect(outcome.report.error?.code == .unsupported, "\(String(describing: outcome.report.error))")
        #expect(outcome.report.error?.message.contains(name) == true)
        #expect(outcome.files.isEmpty)
    }

    @Test("baseline, extended sequential and progressive 8-bit JPEGs are handed back as they are",
          arguments: ["SOFC0", "SOFC1", "progressive"])
    func handedBack(kind: String) throws {
        let (path, folder) = kind == "progressive"
            ? (TestEnvironment.fixture("images/jpeg_progressive_800x600.jpg"), TestEnvironment.testMedia)
            : try Self.make(kind)
        let outcome = try ImagePrepare.run(path, scope: folder, profile: .apple)
        #expect(outcome.report.action == .passthrough, "\(outcome.report.actions)")
    }

    @Test("the probe names the process", arguments: [(0xC0, "baseline (SOF0)"), (0xC2, "progressive (SOF2)"),
                                                     (0xC9, "arithmetic-coded extended sequential (SOF9)"),
                                                     (0xCE, "arithmetic-coded hierarchical progressive (SOF14)"), (0xC7, "hierarchical lossless (SOF7)")])
    func processNames(marker: Int, name: String) throws {
        #expect(JPEGFrameHeader.processName(marker: marker) == name)
        var info = MediaInfo(path: "x.jpg", bytes: 1, kind: .image, container: .jpeg)
        info.codec = .jpeg
        info.profile = marker
        #expect(info.json["codecProfile"]?.stringValue == name)
    }
}
