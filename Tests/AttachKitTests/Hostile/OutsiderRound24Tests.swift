import Foundation
import Testing
@testable import AttachKit

/// What the outside testers of round 24 found (issues 14 and 16), kept as tests: a 144 MP PNG cut
/// in half (CRCs valid) passed `validate --deep` and was handed back by `prepare` (the image check
/// skipped every picture over FFmpeg's 100 MP limit, though libvips streams a PNG in a row
/// window); a calibration measured under load with `ultrafast` slower than `superfast` refused work
/// `superfast` could do, naming `ultrafast`; an empty `pipeline` or `decode` object read as a
/// calibration; a mid-encode `deadline-exceeded` that named neither the preset nor its estimate;
/// and notes that called an estimate over the time left "without the safety margin".
@Suite("Outside findings, round 24")
struct OutsiderRound24Tests {
    @Test("a 12000×12000 PNG whose compressed data is cut in half is corrupt from validate --deep and prepare, never handed back")
    func bigTruncatedPNG() throws {
        let folder = TestEnvironment.temporaryFolder("round24-png")
        let whole = folder.appendingPathComponent("black.png").path
        let run = try TestEnvironment.run("vips", ["black", whole, "12000", "12000", "--bands", "3"])
        try #require(run.status == 0, "vips black: \(run.stderr)")
        let cut = folder.appendingPathComponent("cut.png").path
        try PNGChunks.rewrite(whole, to: cut) { index, count, body in index < count / 2 ? body : nil }

        let deep = try TestEnvironment.runAttachKit(["validate", "--deep", "--profile", "apple", "--json", cut])
        #expect(deep.stdout.contains(#""code":"corrupt""#), "\(deep.stdout)")
        let out = folder.appendingPathComponent("out")
        let prepared = try TestEnvironment.runAttachKit(["prepare", "--profile", "apple", "--json", "--out", out.path, cut])
        #expect(prepared.stdout.contains(#""code":"corrupt""#), "\(prepared.stdout)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).isEmpty)
        // The intact picture is still handed back as it is, after its full (streamed) decode.
        let intact = try TestEnvironment.runAttachKit(["validate", "--deep", "--profile", "apple", "--json", whole])
        #expect(!intact.stdout.contains(#""code":"corrupt""#), "\(intact.stdout)")
    }

    @Test("a calibration with ultrafast measured slower than superfast: the fastest estimate is used, and named when refused")
    func fastestEstimate() {
        var calibration = TranscodeEstimatorTests.calibration
        for height in calibration.encode.keys {
            let superfast = calibration.encode[height]?[.superfast] ?? 1
            calibration.encode[height]?[.ultrafast] = superfast / 2
        }
        let estimator = TranscodeEstimator(calibration: calibration, cores: 2)
        let work = TranscodeEstimatorTests.work
        let superfast = estimator.seconds(.superfast, work)
        #expect(estimator.seconds(.ultrafast, work) > superfast)
        #expect(estimator.choose(work, remaining: superfast * 1.05) == .preset(.superfast, estimate: superfast, withMargin: false))
        #expect(estimator.choose(work, remaining: superfast * 0.9) == .refuse(fastest: superfast, at: .superfast))
    }

    @Test("an empty pipeline or decode object is not a calibration")
    func emptyObjects() {
        for key in ["pipeline", "decode"] {
            guard case .object(var pairs) = TranscodeEstimatorTests.calibration.json,
                  let index = pairs.firstIndex(where: { $0.0 == key }) else { Issue.record("calibration JSON shape"); return }
            pairs[index].1 = .object([])
            #expect(SpeedCalibration(json: .object(pairs)) == nil, "\(key)")
        }
        var measured = TranscodeEstimatorTests.calibration
        measured.pipeline = [1080: TranscodeEstimatorTests.factors(0.9)]
        #expect(SpeedCalibration(json: measured.json) == measured)
    }

    @Test("a stop during the encode names what was encoded and its estimate")
    func stopNamesThePreset() {
        let pace = EncodePace(deadline: Deadline(seconds: 0.001), span: 10, startedAt: 0,
                              rule: EncodePace.Rule(warmUp: 0, minimumShare: 0.01, window: 0, project: { _, _, _ in 100 }), encoding: "x264 superfast, estimated 4.2 s")
        do {
            try pace.observe(media: 0.5)
            try pace.observe(media: 1)
            Issue.record("no stop")
        } catch {
            #expect(error.code == .deadlineExceeded)
            #expect(error.message.contains("transcoding at x264 superfast, estimated 4.2 s (stopped after"), "\(error.message)")
        }
    }

    @Test("an uncalibrated deadline under the estimate: tried, and the note or the refusal says which preset and estimate")
    func noteWording() throws {
        let folder = TestEnvironment.temporaryFolder("round24-note")
        let clip = folder.appendingPathComponent("clip.webm").path
        let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=4",
                                                      "-c:v", "libvpx-vp9", "-b:v", "2M", "-deadline", "realtime", "-cpu-used", "8", clip])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        // Uncalibrated (an empty cache folder): 0.9 s is under the conservative estimate (about 1.5 s) but within 2× of it.
        let cache = folder.appendingPathComponent("cache").path
        let out = folder.appendingPathComponent("out").path
        let run = try TestEnvironment.run(TestEnvironment.attachkit, ["prepare", "--json", "--profile", "ios", "--max-bytes", "300KB",
                                                                      "--deadline", "0.9", "--out", out, clip],
                                          environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache]) { $1 })
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        if let message = report["error"]?["message"]?.stringValue {
            #expect(report["error"]?["code"]?.stringValue == "deadline-exceeded", "\(message)")
            // Stopped while encoding: the preset and its estimate; before (a slow debug build): said so.
            // Stopped while encoding: the preset (and its estimate, or why a second encode ran);
            // before it (a slow debug build): said so.
            let encoding = message.contains("during transcoding") || message.contains("during finishing the output")
            #expect(!encoding || message.contains(" at x264 "), "\(message)")
        } else {
            let notes = (report["notes"]?.arrayValue ?? []).compactMap(\.stringValue).filter { $0.hasPrefix("deadline: x264") }
            #expect(!notes.isEmpty, "\(run.stdout)")
            for note in notes {
                #expect(!note.contains("without the safety margin") && !(note.contains("no room") && note.contains("margin)")), "\(note)")
            }
        }
    }
}

/// PNG files rewritten chunk by chunk, every CRC recomputed (the structure check still passes),
/// for damage only a decoder sees.
enum PNGChunks {
    /// Writes `png` to `output` with each IDAT chunk's body replaced by what `change` returns for
    /// it (its index among the IDAT chunks, their count, its body); `nil` drops the chunk.
    static func rewrite(_ png: String, to output: String, _ change: (Int, Int, [UInt8]) -> [UInt8]?) throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        func be32(_ at: Int) -> Int { original[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        var chunks: [(type: [UInt8], body: [UInt8])] = []
        var index = 8
        while index + 12 <= original.count {
            let length = be32(index)
            chunks.append((Array(original[(index + 4)..<(index + 8)]), Array(original[(index + 8)..<(index + 8 + length)])))
            index += 12 + length
        }
        let idat = Array("IDAT".utf8)
        let count = chunks.filter { $0.type == idat }.count
        var seen = 0
        var out = Array(original[0..<8])
        for chunk in chunks {
            var body = chunk.body
            if chunk.type == idat {
                defer { seen += 1 }
                guard let changed = change(seen, count, body) else { continue }
                body = changed
            }
            let length = body.count
            let crc = CRC32.update(CRC32.update(0, chunk.type), body)
            out += [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + chunk.type + body
            out += [UInt8(crc >> 24 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        try Data(out).write(to: URL(fileURLWithPath: output))
    }
}
