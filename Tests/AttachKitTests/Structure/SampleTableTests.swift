import Foundation
import Testing
@testable import AttachKit

/// An MP4's sample tables are read before libavformat sees them (``ISOBMFFSampleTables``): what
/// they declare is held against the caps and the file, and what libavformat indexed is held
/// against what they declare. A track it cannot index (2³² − 1 samples, chunks that place fewer
/// samples than `stsz` declares, no `stts`) is never handed back, trimmed to sound alone or
/// thumbnailed in silence; tables declaring more samples than ``SafetyLimits/maxSamples`` are
/// never handed to libavformat, whose index would take gigabytes.
@Suite("Sample tables: what libavformat cannot index is never ok")
struct SampleTableTests {
    /// The ISO base media files of TestMedia (and of the corpus, when present) that are valid.
    static let validMovies: [CorpusRow] = (CorpusRow.fixtures() + CorpusRow.all()).filter { row in
        guard row.isValid, let reader = try? FileReader(path: row.path) else { return false }
        return FormatSniffer.sniff(reader).container.isISOBaseMedia
    }

    @Test("every valid movie's tables read as libavformat indexes them: each track wholly, nothing over a cap",
          arguments: validMovies)
    func readsAsLibavformat(row: CorpusRow) throws {
        // Given the tables read before libavformat
        let reader = try FileReader(path: row.path)
        let tables = ISOBMFFSampleTables.read(reader)
        // Then they agree with the file and stay under the caps
        #expect(tables.inconsistency(fileSize: reader.size) == nil)
        #expect(tables.violation(of: SafetyLimits()) == nil)
        guard !tables.tracks.isEmpty else { return }  // a HEIF still: items, no tracks
        // And libavformat's index (edit lists ignored) holds exactly the samples each track declares
        let input = try AVInput(path: row.path, demuxer: "mov", readStreamInfo: false, demuxerOptions: ["ignore_editlist": "1"])
        for index in 0..<input.streamCount {
            guard let track = tables.track(id: input.containerID(of: index)) else { continue }
            let indexed = input.indexEntryCount(of: index)
            #expect(tables.unindexed(track, indexed: indexed) == nil)
            if !track.readsWholeChunks, tables.fragmentSamples == 0 { #expect(Int64(indexed) == track.samples, "\(track.label(place: index))") }
        }
    }

    /// The sample-table rows of the hostile corpus and the code every verb must refuse them with.
    static let hostile: [(file: String, code: String)] = HostileCorpusTests.corpus.cases
        .filter { ["mp4_stsz_", "mp4_stsc_", "mp4_video_without_stts", "mp4_ctts_", "mp4_trun_"].contains(where: $0.file.hasPrefix) }
        .map { ($0.file, String($0.expectation.dropFirst("refused:".count))) }

    @Test("a movie whose tables libavformat cannot index is refused with one code by every verb, in bounded memory",
          .timeLimit(.minutes(5)), arguments: hostile.map(\.file))
    func everyVerbAgrees(file: String) throws {
        // Given a hostile movie and the code it must be refused with
        let code = try #require(Self.hostile.first { $0.file == file }?.code)
        let input = HostileCorpusTests.corpus.folder.appendingPathComponent(file).path
        let out = TestEnvironment.temporaryFolder("sample-tables")
        // When each verb meets it
        let probe = try ProcessUsage.run(TestEnvironment.attachkit, ["probe", "--json", input])
        let runs: [(String, [String])] = [
            ("prepare", ["prepare", "--json", "--out", out.path, input]),
            ("prepare --trim exact", ["prepare", "--json", "--trim", "exact", "--max-duration", "1", "--out", out.path, input]),
            ("prepare --thumbnail", ["prepare", "--json", "--thumbnail", "--out", out.path, input]),
            ("thumbnail", ["thumbnail", "--json", input, "--out", out.appendingPathComponent("poster.jpg").path]),
        ]
        // Then the header probe already refuses what is over the cap (and only that), quickly and in little memory
        let probed = try JSONValue.parse(probe.stdout)
        #expect(probed["error"]?["code"]?.stringValue == (code == "over-cap" ? "over-cap" : nil), "\(probe.stdout.prefix(300))")
        #expect(probe.peakMB < 100 && probe.wall < 10, "probe: \(Int(probe.peakMB)) MB, \(probe.wall) s")
        // And validate --deep, prepare (whatever the trim or thumbnail asked) and thumbnail refuse it with the same code
        let validate = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", input])
        let codes = try JSONValue.parse(validate.stdout)["diagnostics"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
        #expect(codes.contains(code), "validate --deep: \(validate.stdout.prefix(300))")
        for (verb, arguments) in runs {
            let usage = try ProcessUsage.run(TestEnvironment.attachkit, arguments)
            let report = try JSONValue.parse(usage.stdout)
            #expect(report["error"]?["code"]?.stringValue == code, "\(verb): \(usage.stdout.prefix(300))")
            #expect(usage.peakMB < HostileBounds.peakMB, "\(verb): peak RSS \(Int(usage.peakMB)) MB")
        }
        // And nothing is written
        #expect(InputWalker.filesIncludingHidden(under: out.path).isEmpty)
    }

    @Test("the cap counts every track's samples and the fragments', and is checked before libavformat opens the file")
    func capBoundary() throws {
        // Given the 2 s fixture: 50 video and 95 audio samples
        let path = TestEnvironment.fixture("video/mp4_h264_aac_320x240_2s.mp4")
        let tables = ISOBMFFSampleTables.read(try FileReader(path: path))
        #expect(tables.tracks.map(\.samples) == [50, 95])
        #expect(tables.tracks.map(\.handler) == ["vide", "soun"])
        // When the cap is one sample short of them, then at them
        var tight = SafetyLimits()
        tight.maxSamples = 144
        var exact = SafetyLimits()
        exact.maxSamples = 145
        // Then the probe refuses the file over the cap and reads it at the cap
        #expect(throws: ProbeError.self) { try Prober(safety: tight).probeWithSniff(path: path, displayPath: path) }
        do {
            _ = try Prober(safety: tight).probeWithSniff(path: path, displayPath: path)
        } catch {
            #expect(error.code == .overCap)
            #expect(error.message == "not read: the sample tables declare 145 samples, 95 of them in track 2 (soun) > 144 (cap: maxSamples)")
        }
        #expect((try? Prober(safety: exact).probeWithSniff(path: path, displayPath: path)) != nil)
        // A fragmented movie's samples are in its fragments' runs
        let fragmented = ISOBMFFSampleTables.read(try FileReader(path: TestEnvironment.fixture("video/mp4_fragmented_h264_160x120_2s.mp4")))
        #expect(fragmented.tracks.map(\.samples) == [0])
        #expect(fragmented.fragmentSamples == 20)
    }

    /// The hostile movie whose video declares 2³² − 1 samples, probed past the cap (as a caller
    /// with a looser ``SafetyLimits`` would), to reach the checks behind it.
    static func unindexedVideo() throws -> (path: String, info: MediaInfo) {
        let path = HostileCorpusTests.corpus.folder.appendingPathComponent("mp4_stsz_claims_4294967295_samples.mp4").path
        var loose = SafetyLimits()
        loose.maxSamples = .max
        return (path, try Prober(safety: loose).probeWithSniff(path: path, displayPath: path).info)
    }

    @Test("past the tables, the deep check fails a stream that declares frames but yields none")
    func deepCheckSeesAMissingStream() throws {
        // Given the video whose 50 declared frames libavformat never indexed (its sound decodes)
        let (path, info) = try Self.unindexedVideo()
        #expect(info.frames == 50)
        // When it is decoded in full
        let verdict = DeepCheck.check(path: path, info: info)
        // Then it is corrupt: a picture it cannot show
        #expect(verdict == .corrupt(reason: "no samples: stream 0 (h264): the container declares 50 frames but none can be read"))
    }

    @Test("past the tables, a clip whose picture gives no packet fails instead of being written as sound alone")
    func clipNeverLosesItsPicture() throws {
        // Given the same video, planned as an exact cut with its sound
        let (path, info) = try Self.unindexedVideo()
        let source = try ClipSource.read(path: path, info: info)
        let video = try #require(source.video)
        let audio = try #require(source.audio)
        let plan = ClipPlan(container: .mp4,
                            video: VideoTrackPlan(index: video.index, encode: .init(width: 320, height: 240, bitRate: 400_000, preset: .veryfast),
                                                  frameRate: video.frameRate),
                            audio: AudioTrackPlan(index: audio.index, encode: nil), window: ClipWindow(start: 0, duration: 1), trim: .exact)
        let output = TestEnvironment.temporaryFolder("clip-no-picture").appendingPathComponent("out.mp4").path
        // When it is written
        do {
            _ = try ClipWriter(inputPath: path, demuxer: "mov", plan: plan, deadline: Deadline(seconds: nil)).write(to: output)
            Issue.record("a clip without its picture was written")
        } catch {
            // Then it fails as corrupt, naming the picture
            #expect(error.code == .corrupt)
            #expect(error.message.contains("the picture (stream 0) gives no packet inside the clip"), "\(error.message)")
        }
    }

    /// TestMedia's fragmented clip: its header and first fragment (moof + mdat), the fragment
    /// repeated `count` times, each starting (`tfdt`) earlier than the one before when `falling`.
    static func fragments(_ count: Int, falling: Bool) throws -> (path: String, folder: URL) {
        let source = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("video/mp4_fragmented_h264_160x120_2s.mp4"))))
        // ftyp + moov end where the first moof starts; the fragment ends where the second starts.
        let moofs = (4..<source.count - 4).filter { source[$0..<$0 + 4].elementsEqual("moof".utf8) }.map { $0 - 4 }
        let header = Array(source[..<moofs[0]]), fragment = Array(source[moofs[0]..<moofs[1]])
        let tfdt = try #require((0..<fragment.count - 4).first { fragment[$0..<$0 + 4].elementsEqual("tfdt".utf8) })
        var file = header
        for k in 0..<count {
            var copy = fragment
            let start = (falling ? count - k : k) * 1000
            copy.replaceSubrange(tfdt + 8..<tfdt + 12 + (fragment[tfdt + 4] == 1 ? 4 : 0),
                                 with: fragment[tfdt + 4] == 1 ? SyntheticMedia.be64(start) : SyntheticMedia.be32(start))
            file += copy
        }
        let folder = TestEnvironment.temporaryFolder("fragments")
        let url = folder.appendingPathComponent("fragments_\(count)_\(falling ? "falling" : "rising").mp4")
        try Data(file).write(to: url)
        return (url.path, folder)
    }

    @Test("movie fragments in falling time are corrupt before libavformat sorts them one insert at a time; rising ones prepare")
    func fallingFragments() throws {
        // Given 15,000 ten-sample fragments, latest first (libavformat would move 1.1·10⁹ index entries)
        let (falling, folder) = try Self.fragments(15_000, falling: true)
        let tables = ISOBMFFSampleTables.read(try FileReader(path: falling))
        #expect(tables.lateFragments == 14_999 && tables.fragmentSamples == 150_000)
        // When it is validated and prepared
        let report = try Through.validate(falling, scope: folder, profile: .ios)
        let outcome = try AVPrepare.run(falling, scope: folder) { PrepareOptions(profile: .ios, outputFolder: $0) }
        // Then both call it corrupt, naming the fragments
        #expect(report.errors.first?.code == .corrupt)
        #expect(report.errors.first?.message.contains("movie fragments start ('tfdt') before") == true, "\(report.errors.map(\.message))")
        #expect(outcome.report.error?.code == .corrupt)
        // And the same fragments in rising time are not out of order
        let (rising, _) = try Self.fragments(200, falling: false)
        #expect(ISOBMFFSampleTables.read(try FileReader(path: rising)).lateFragments == 0)
    }
}
