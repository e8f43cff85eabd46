import Foundation
import Testing
@testable import AttachKit

/// Issue 29: QCP (Qualcomm PureVoice, RFC 3625) was "not a recognised media format" though
/// FFmpeg reads it. Fixtures: TestMedia/formats/qcp_*.qcp (generate.sh, "issue 29: QCP"), made by
/// hand since FFmpeg encodes none of its codecs: 50 eighth-rate packets, 1 s.
@Suite("QCP (Qualcomm PureVoice)")
struct QCPTests {
    static let folder = FormatIdentificationTests.folder
    static func path(_ file: String) -> String { FormatIdentificationTests.path(file) }

    /// Seconds of sound FFmpeg decodes from `path` (written to a WAV, whose size says it exactly).
    static func decodedSeconds(_ path: String) throws -> Double {
        let folder = TestEnvironment.temporaryFolder("qcp-decoded")
        defer { try? FileManager.default.removeItem(at: folder) }
        let wav = folder.appendingPathComponent("decoded.wav").path
        let run = try TestEnvironment.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", path, "-c:a", "pcm_s16le", wav])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try FFprobeReport.of(wav).duration)
    }

    @Test("QCELP-13K and EVRC are identified by the RIFF QLCM form, last what their packets decode to (not libavformat's bit-rate estimate), and are transcoded to AAC in M4A that lasts as long",
          arguments: [("qcp_qcelp.qcp", Codec("qcelp")), ("qcp_evrc.qcp", Codec("evrc"))])
    func transcoded(file: String, codec: Codec) throws {
        // Given
        let decoded = try Self.decodedSeconds(Self.path(file))
        let out = TestEnvironment.temporaryFolder("qcp-prepared")
        defer { try? FileManager.default.removeItem(at: out) }
        // When
        let info = try Through.probe(Self.path(file), scope: Self.folder)
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path, Self.path(file)])
        // Then
        #expect(info.kind == .audio && info.container == .qcp && info.codec == codec, "\(info)")
        #expect(info.uniformType?.identifier == "com.qualcomm.qcp")
        #expect(StructureChecker.check(path: Self.path(file), sniff: FormatSniffer.Result(.qcp)) == .intact)
        let duration = try #require(info.duration)
        #expect(abs(duration - decoded) < 0.03 && info.durationIsEstimate != true, "\(duration) s vs \(decoded) s decoded")
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["action"]?.stringValue == "transcoded", "\(run.stdout)")
        let output = try #require(report["output"]?.stringValue, "\(run.stdout)")
        #expect(output.hasSuffix(".m4a"))
        let probed = try FFprobeReport.of(output)
        #expect(probed.streams.count == 1 && probed.audio?.codec == "aac", "\(probed.streams.map(\.codec))")
        #expect(abs((probed.duration ?? 0) - decoded) < 0.1, "\(probed.duration ?? 0) s vs \(decoded) s")
    }

    @Test("SMV in QCP, which FFmpeg 5.1 demuxes but cannot decode, is identified and refused by name (unsupported), not unrecognized or corrupt")
    func smvRefused() throws {
        let out = TestEnvironment.temporaryFolder("qcp-smv")
        defer { try? FileManager.default.removeItem(at: out) }
        let info = try Through.probe(Self.path("qcp_smv.qcp"), scope: Self.folder)
        #expect(info.container == .qcp && info.codec == Codec("smv"))
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path, Self.path("qcp_smv.qcp")])
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(report["error"]?["code"]?.stringValue == "unsupported", "\(run.stdout)")
        #expect(report["error"]?["message"]?.stringValue?.contains("smv") == true, "\(run.stdout)")
        let deep = try Through.validate(Self.path("qcp_smv.qcp"), scope: Self.folder, profile: .ios, deep: true)
        #expect(deep.diagnostics.contains { $0.code == .unsupportedCodec } && !deep.diagnostics.contains { $0.code == .corrupt },
                "\(deep.diagnostics.map(\.message))")
    }

    @Test("a QCP without its data chunk, or with an empty one, is corrupt or has nothing to play")
    func damaged() throws {
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path("qcp_qcelp.qcp"))))
        let folder = TestEnvironment.temporaryFolder("qcp-damaged")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try #require((0..<(whole.count - 4)).first { whole[$0..<($0 + 4)].elementsEqual("data".utf8) })
        // The RIFF size shortened to end before 'data'; then a 'data' chunk of 0 bytes.
        var noData = Array(whole[..<data])
        noData.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(noData.count - 8).littleEndian, Array.init))
        var empty = noData + Array("data".utf8) + [0, 0, 0, 0]
        empty.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(empty.count - 8).littleEndian, Array.init))
        for (name, bytes) in [("no-data.qcp", noData), ("empty.qcp", empty)] {
            let url = folder.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            let verdict = StructureChecker.check(path: url.path, sniff: FormatSniffer.Result(.qcp))
            guard case .corrupt(let reason) = verdict else { Issue.record("\(name): \(verdict)"); continue }
            #expect(reason.contains(name == "empty.qcp" ? "no samples" : "without a 'data' chunk"), "\(name): \(reason)")
        }
    }
}
