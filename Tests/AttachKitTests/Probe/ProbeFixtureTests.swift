import Foundation
import Testing
@testable import AttachKit

/// Probe answers on the bundled TestMedia, against `fixtures.tsv` and against `ffprobe` /
/// `vipsheader` run live on the same files.
@Suite("Probe on TestMedia")
struct ProbeFixtureTests {
    static let rows = CorpusRow.fixtures()

    @Test("TestMedia/fixtures.tsv is present and lists the fixtures")
    func fixturesPresent() {
        #expect(Self.rows.count >= 50)
        for row in Self.rows {
            #expect(FileManager.default.fileExists(atPath: row.path), "\(row.file) listed but missing")
        }
    }

    @Test("every valid fixture agrees with fixtures.tsv", arguments: rows.filter(\.isValid))
    func agreesWithManifest(row: CorpusRow) throws {
        let info = try Through.probe(row.path, scope: TestEnvironment.testMedia)
        ProbeExpectations.check(info, against: row)
    }

    @Test("audio and video agree with ffprobe run now: codec, size, duration, rotation",
          arguments: rows.filter { $0.isValid && $0.kind != "image" })
    func agreesWithFFprobe(row: CorpusRow) throws {
        let result = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_format", "-show_streams", "-of", "json", row.path])
        try #require(result.status == 0)
        let json = try JSONValue.parse(result.stdout)
        let streams = json["streams"]?.arrayValue ?? []
        let video = streams.first { $0["codec_type"]?.stringValue == "video" && ($0["disposition"]?["attached_pic"]?.intValue ?? 0) == 0 }
        let audio = streams.first { $0["codec_type"]?.stringValue == "audio" }
        let info = try Through.probe(row.path, scope: TestEnvironment.testMedia)
        if let video {
            #expect(info.codec?.rawValue == video["codec_name"]?.stringValue)
            #expect(info.width == video["width"]?.intValue)
            #expect(info.height == video["height"]?.intValue)
            #expect(info.audioCodec?.rawValue == audio?["codec_name"]?.stringValue)
            let sideData = video["side_data_list"]?.arrayValue ?? []
            let rotation = sideData.compactMap { $0["rotation"]?.doubleValue }.first ?? 0
            #expect(info.rotation == ((Int(-rotation) % 360) + 360) % 360)
        } else {
            #expect(info.codec?.rawValue == audio?["codec_name"]?.stringValue)
            #expect(info.sampleRate == audio?["sample_rate"]?.stringValue.flatMap { Int($0) })
            #expect(info.channels == audio?["channels"]?.intValue)
        }
        // ffprobe estimates raw ADTS' duration from the bitrate; the probe counts its frames
        // (fixtures.tsv has their duration).
        if row.container != Container.aacADTS.rawValue, let duration = json["format"]?["duration"]?.stringValue.flatMap(Double.init) {
            #expect(abs((info.duration ?? -1) - duration) <= 0.1)
        }
    }

    @Test("images agree with vipsheader run now: size, bands, pages",
          arguments: rows.filter { $0.isValid && $0.kind == "image" && !["bmp", "apng"].contains($0.codec) })
    func agreesWithVipsheader(row: CorpusRow) throws {
        let field: (String) throws -> String = { name in
            let r = try TestEnvironment.run("vipsheader", ["-f", name, row.path])
            return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let info = try Through.probe(row.path, scope: TestEnvironment.testMedia)
        #expect(info.width == Int(try field("width")))
        #expect(info.height == Int(try field("height")))
        #expect(info.bands == Int(try field("bands")))
        let pages = Int(try field("n-pages")) ?? 1
        #expect(info.frames == pages)
        if let orientation = Int(try field("orientation")) { #expect(info.orientation == orientation) }
    }

    @Test("malformed fixtures are refused with a stable code or probed without crashing", arguments: rows.filter { !$0.isValid })
    func malformedNeverCrash(row: CorpusRow) throws {
        do {
            _ = try Through.probe(row.path, scope: TestEnvironment.testMedia)
        } catch let error as ProbeError {
            #expect(["empty", "unrecognized-type", "corrupt", "encrypted", "unsupported"].contains(error.code))
        }
    }
}
