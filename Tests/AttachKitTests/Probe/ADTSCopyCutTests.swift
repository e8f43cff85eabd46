import Foundation
import Testing
@testable import AttachKit

/// Fast cuts of raw ADTS (outside tester, round 51): a cut starts at the frame at or before
/// `--start` (it took the nearest, so a start in the last half frame found no packet and was
/// called `corrupt`, and at 16 kHz the clip began 24 ms late); a clip shorter than one frame is
/// `cannot-fit`; frames of several raw data blocks, which an M4A sample cannot hold, are
/// `unsupported` in every verb; frames of nothing after the last sound do not stop a decode.
@Suite("ADTS: fast cuts and what a copy cannot hold")
struct ADTSCopyCutTests {
    typealias Edge = ADTSEdgeCaseTests
    typealias Probe = ADTSHeaderProbeTests
    typealias Silent = ADTSSilentFrameTests

    /// prepare's report for `path` with `options`: error code, trim start and the output.
    static func cut(_ path: String, out: URL, _ options: [String]) throws -> (code: String?, start: Double?, output: String?, line: String) {
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path] + options + [path])
        let line = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let report = try? JSONValue.parse(line)
        return (TestEnvironment.errorCode(run.stdout), report?["trimStart"]?.doubleValue, report?["output"]?.stringValue, line)
    }

    @Test("a start in the last half frame, or just before it: the last frame, never `corrupt`; at 16 kHz a start of 1 s begins at or before 1 s",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func startAtOrBefore() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tone = try Probe.write(try Edge.tone(folder), "tone.aac", in: folder)
        let seconds = try #require(try Probe.probe(tone).duration)
        for start in [seconds - 0.007, seconds - 0.002, seconds - 0.02] {
            let c = try Self.cut(tone, out: folder.appendingPathComponent("out-\(start)"), ["--start", String(start)])
            let output = try #require(c.output, "start \(start): \(c.line)")
            #expect((c.start ?? .infinity) <= start + 0.001, "start \(start): \(c.line)")
            #expect(try Silent.packetSizes(output).count == 1, "start \(start)")
        }
        let low = try Probe.write(try Edge.tone(folder, rate: 16_000), "tone16k.aac", in: folder)
        let c = try Self.cut(low, out: folder.appendingPathComponent("out-16k"), ["--start", "1"])
        let begins = try #require(c.start, "\(c.line)")
        #expect(begins <= 1.0001 && begins > 1 - 0.064, "\(c.line)")
    }

    @Test("a clip shorter than one frame (0.1 s of 8 kHz AAC, 128 ms a frame): cannot-fit, saying so; nothing left behind",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func clipShorterThanAFrame() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let low = try Probe.write(try Edge.tone(folder, rate: 8_000), "tone8k.aac", in: folder)
        let out = folder.appendingPathComponent("out")
        let c = try Self.cut(low, out: out, ["--max-duration", "0.1"])
        #expect(c.code == "cannot-fit" && c.line.contains("longer than the 0.1 s clip"), "\(c.line)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).isEmpty)
    }

    @Test("frames of two raw data blocks (merged in pairs, or one pair): unsupported from probe, validate, validate --deep and prepare, never an M4A of samples declared half their length",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func severalRawDataBlocks() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Edge.frames(try Edge.tone(folder))
        /// Two frames as one of two raw data blocks (no CRC): the second's payload follows the first's.
        func merged(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
            var frame = a + b.dropFirst(7)
            Edge.setLength(&frame, frame.count)
            frame[6] = frame[6] & 0xFC | 1
            return frame
        }
        let pairs = stride(from: 0, to: frames.count - 1, by: 2).flatMap { merged(frames[$0], frames[$0 + 1]) }
        let one = frames.prefix(60).flatMap { $0 } + merged(frames[60], frames[61]) + frames.dropFirst(62).flatMap { $0 }
        for (name, bytes) in [("pairs.aac", pairs), ("one-pair.aac", one)] {
            let path = try Probe.write(bytes, name, in: folder)
            #expect(Edge.probeFailure(path)?.code == .unsupported, "\(name)")
            let v = try ADTSVerbAgreementTests.verdicts(path, out: folder.appendingPathComponent("out-\(name)"))
            #expect(v.quick.contains("unsupported-codec") && v.deep.contains("unsupported-codec") && v.prepare == "unsupported", "\(name): \(v)")
            #expect(v.output == nil)
        }
    }

    @Test("frames of nothing only after the last sound: an exact trim and a re-encode are made (they move no sound in time)",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func trailingSilenceDecodes() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Edge.frames(try Edge.tone(folder))
        let silent = Silent.silentFrame(like: frames[5])
        let path = try Probe.write(frames.flatMap { $0 } + (0..<10).flatMap { _ in silent }, "silent-end.aac", in: folder)
        for options in [["--trim", "exact", "--start", "1"], ["--max-bytes", "20KB"]] {
            let c = try Self.cut(path, out: folder.appendingPathComponent("out-\(options[0])"), options)
            #expect(c.code == nil && c.output != nil, "\(options): \(c.line)")
        }
    }

    @Test("round 52: a start 10 µs to 1 ms before a frame keeps that frame's predecessor, a budget up to 1 ms under a frame is cannot-fit, and a start in the last instants is cannot-fit, never corrupt or an empty clip (copied ADTS, re-encoded WAV)",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func microsecondEdges() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let low = try Probe.write(try Edge.tone(folder, rate: 8_000), "tone8k.aac", in: folder)  // 128 ms frames
        for start in ["1.279", "1.2799", "1.27999"] {
            let c = try Self.cut(low, out: folder.appendingPathComponent("s\(start)"), ["--start", start])
            #expect(abs((c.start ?? -1) - 1.152) < 0.0005, "start \(start): \(c.line)")
        }
        let over = try Self.cut(low, out: folder.appendingPathComponent("d"), ["--max-duration", "0.1275"])
        #expect(over.code == "cannot-fit", "\(over.line)")
        let seconds = try #require(try Probe.probe(low).duration)
        let wav = folder.appendingPathComponent("tone.wav").path
        try TestEnvironment.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=3", "-c:a", "pcm_s16le", wav])
        for (path, start) in [(low, seconds - 0.0001), (wav, 2.9999)] {
            let out = folder.appendingPathComponent("end-\(start)")
            let c = try Self.cut(path, out: out, ["--start", String(start)])
            #expect(c.code == "cannot-fit" || (c.code == nil && c.output != nil), "\(path) \(start): \(c.line)")
            if let output = c.output { #expect(try Silent.packetSizes(output).count >= 1) }
            if c.code != nil { #expect(((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).isEmpty) }
        }
    }
}
