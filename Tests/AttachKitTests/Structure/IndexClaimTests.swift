import Foundation
import Testing
@testable import AttachKit

/// Matroska's and AVI's indexes are read before libavformat builds its own from them: a Matroska
/// whose cue points come in falling time made libavformat sort them one insert at a time (200,000
/// of them, 10.8 MB, took 18 s to probe and grew with the square); an AVI's `idx1` costs 24 bytes
/// of memory per 16-byte entry. The counts are held against ``SafetyLimits/maxSamples`` and the
/// cues' disorder against ``IndexReorder/maximumMoves`` by the header probe itself.
@Suite("Index claims: Matroska cues and AVI idx1 bounded before libavformat reads them")
struct IndexClaimTests {
    /// TestMedia's Matroska clip rebuilt with `count` cue points (CueTime falling when `falling`)
    /// before its Clusters, in a fresh folder.
    static func matroska(cues count: Int, falling: Bool) throws -> (path: String, folder: URL) {
        let source = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("video/mkv_h264_aac_320x240_2s.mkv"))))
        let reader = try FileReader(path: TestEnvironment.fixture("video/mkv_h264_aac_320x240_2s.mkv"))
        let header = try MatroskaStructure.element(reader, at: 0)
        let segment = try MatroskaStructure.element(reader, at: header.dataOffset + Int64(header.size!))
        var kept: [UInt8] = []
        var clusters: [UInt8] = []
        var position = segment.dataOffset
        while position < reader.size {
            let child = try MatroskaStructure.element(reader, at: position)
            let end = child.dataOffset + Int64(child.size!)
            let bytes = Array(source[Int(child.offset)..<Int(end)])
            if child.id == MatroskaStructure.infoID || child.id == 0x1654_AE6B { kept += bytes }
            if child.id == MatroskaStructure.clusterID { clusters += bytes }
            position = end
        }
        var cues: [UInt8] = []
        for k in 0..<count {
            let time = falling ? count - k : k + 1
            cues += element([0xBB], element([0xB3], SyntheticMedia.be32(time)) + element([0xB7], element([0xF7], [1]) + element([0xF1], SyntheticMedia.be32(0))))
        }
        let segmentBytes: [UInt8] = [0x18, 0x53, 0x80, 0x67, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let file = Array(source[0..<Int(segment.offset)]) + segmentBytes + kept + element([0x1C, 0x53, 0xBB, 0x6B], cues) + clusters
        let folder = TestEnvironment.temporaryFolder("cues")
        let url = folder.appendingPathComponent("cues_\(count)_\(falling ? "falling" : "rising").mkv")
        try Data(file).write(to: url)
        return (url.path, folder)
    }

    /// An EBML element: `id`, an 8-byte size, `payload`.
    static func element(_ id: [UInt8], _ payload: [UInt8]) -> [UInt8] {
        id + [0x01] + SyntheticMedia.be64(payload.count).dropFirst() + payload
    }

    /// "At once" is shown by who refuses: the header probe's own cue check names the disorder, so
    /// libavformat never sorted them. (A wall-clock bound failed under the suite's own load: a
    /// minute of a shared 2-core machine is not a property of the code; the limit only catches a hang.)
    @Test("cue points in falling time are refused by the probe, at once, by every verb", .timeLimit(.minutes(5)))
    func fallingCues() throws {
        // Given 30,000 cue points listed latest first (libavformat would move 4.5·10⁸ entries sorting them)
        let (path, folder) = try Self.matroska(cues: 30_000, falling: true)
        // When it is probed, validated and prepared
        let probe = try ProcessUsage.run(TestEnvironment.attachkit, ["probe", "--json", path])
        let report = try Through.validate(path, scope: folder, profile: .ios, deep: true)
        let prepared = try ProcessUsage.run(TestEnvironment.attachkit, ["prepare", "--json", "--out", folder.appendingPathComponent("out").path, path])
        // Then each says corrupt and why, quickly
        let probed = try JSONValue.parse(probe.stdout)
        #expect(probed["error"]?["code"]?.stringValue == "corrupt")
        #expect(probed["error"]?["message"]?.stringValue?.contains("cue points out of time order") == true, "\(probe.stdout)")
        #expect(report.errors.first?.code == .corrupt)
        #expect(try JSONValue.parse(prepared.stdout)["error"]?["code"]?.stringValue == "corrupt")
    }

    @Test("the same cue points in rising time are read as they are")
    func risingCues() throws {
        let (path, folder) = try Self.matroska(cues: 30_000, falling: false)
        let cues = MatroskaCues.read(try FileReader(path: path))
        #expect(cues.points == 30_000 && cues.entries == 30_000 && cues.latePoints == 0)
        #expect(try Through.probe(path, scope: folder).kind == .video)
    }

    @Test("cue entries and idx1 entries are held against maxSamples before libavformat opens the file")
    func countsCapped() throws {
        // Given 400 cue points (1,200 samples' worth) and TestMedia's AVI (its idx1 entries)
        let (mkv, _) = try Self.matroska(cues: 400, falling: false)
        let avi = TestEnvironment.fixture("video/avi_mpeg4_mp3_320x240_2s.avi")
        let aviEntries = AVIIndex.entries(try FileReader(path: avi))
        #expect(aviEntries > 50)
        // When the cap is just under them, then at them
        for (path, total) in [(mkv, Int64(1_200)), (avi, aviEntries)] {
            var under = SafetyLimits()
            under.maxSamples = total - 1
            var at = SafetyLimits()
            at.maxSamples = total
            // Then the probe refuses the file over the cap, and reads it at the cap
            do {
                _ = try Prober(safety: under).probeWithSniff(path: path, displayPath: path)
                Issue.record("\(path) was read over the cap")
            } catch {
                #expect(error.code == .overCap && error.message.contains("maxSamples"), "\(error)")
            }
            #expect((try? Prober(safety: at).probeWithSniff(path: path, displayPath: path)) != nil)
        }
    }

    @Test("the idx1 entries counted are libavformat's index of the AVI, with the empty chunks it skips")
    func aviCount() throws {
        // Given the fixture's idx1: 136 entries, one of a zero-length chunk (libavformat indexes no empty chunk)
        let path = TestEnvironment.fixture("video/avi_mpeg4_mp3_320x240_2s.avi")
        let input = try AVInput(path: path, demuxer: "avi", readStreamInfo: false)
        let indexed = (0..<input.streamCount).reduce(0) { $0 + input.indexEntryCount(of: $1) }
        // Then the count is the index, plus that one
        #expect(AVIIndex.entries(try FileReader(path: path)) == 136)
        #expect(indexed == 135)
    }

    /// Every valid Matroska, WebM and AVI of TestMedia and of the corpus (when present).
    static let validIndexed: [CorpusRow] = (CorpusRow.fixtures() + CorpusRow.all()).filter {
        $0.isValid && ["matroska", "webm", "avi", "mkv"].contains($0.container)
    }

    @Test("no valid Matroska, WebM or AVI is over a cap or out of order", arguments: validIndexed)
    func validFiles(row: CorpusRow) throws {
        let reader = try FileReader(path: row.path)
        let cues = MatroskaCues.read(reader)
        #expect(cues.disorder == nil && cues.violation(of: SafetyLimits()) == nil)
        #expect(AVIIndex.violation(reader, of: SafetyLimits()) == nil)
    }
}
