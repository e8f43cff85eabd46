import Foundation
import Testing
@testable import AttachKit

/// ADTS frames that decode to nothing (only fill, data or END elements) before the sound, as an
/// outside tester built them (round 50): libavformat times each as 1024 samples and, after 49 of
/// them at 44.1 kHz, gave the first frame of sound no timestamp. A copy times its frames of sound
/// by counting them, so a cut is in the sound's time (the probe's); a decode (exact trim,
/// re-encode) is refused with the reason; a junk prefix no longer hands the duration to
/// libavformat's estimate.
@Suite("ADTS: frames that decode to nothing before the sound")
struct ADTSSilentFrameTests {
    typealias Edge = ADTSEdgeCaseTests
    typealias Probe = ADTSHeaderProbeTests

    /// A frame of `like`'s header holding only a fill element (count 3, three zero bytes) and END.
    static func silentFrame(like frame: [UInt8]) -> [UInt8] {
        var silent = Array(frame.prefix(7)) + Edge.pack(Edge.bits(6, 3) + Edge.bits(3, 4) + Edge.bits(0, 24) + Edge.bits(7, 3))
        Edge.setLength(&silent, silent.count)
        return silent
    }

    /// `prepare --json` of `path` into `out` with `options`: the error code (`nil` when it wrote),
    /// the message and the output path.
    static func prepare(_ path: String, out: URL, _ options: [String]) throws -> (code: String?, message: String, output: String?) {
        let run = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path] + options + [path])
        let line = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let report = try? JSONValue.parse(line)
        return (TestEnvironment.errorCode(run.stdout), report?["error"]?["message"]?.stringValue ?? line, report?["output"]?.stringValue)
    }

    /// The sizes of the audio packets of `path`, in order (ffprobe).
    static func packetSizes(_ path: String) throws -> [Int] {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size", "-of", "csv=p=0", path])
        return run.stdout.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    @Test("10 and 60 frames of nothing before the sound: the whole copy, and a fast cut by --start and --max-duration, hold the same frames of sound as the file without them, from 0",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func copiesCountSound() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Edge.frames(try Edge.tone(folder))
        let silent = Self.silentFrame(like: frames[5])
        let clean = try Probe.write(frames.flatMap { $0 }, "clean.aac", in: folder)
        for count in [10, 60] {
            let padded = try Probe.write((0..<count).flatMap { _ in silent } + frames.flatMap { $0 }, "silent\(count).aac", in: folder)
            #expect(try Probe.probe(padded).duration == Probe.probe(clean).duration, "\(count)")
            for (label, options) in [("whole", [String]()), ("cut", ["--start", "1", "--max-duration", "1"]), ("start", ["--start", "2"])] {
                let a = try Self.prepare(clean, out: folder.appendingPathComponent("clean-\(count)-\(label)"), options)
                let b = try Self.prepare(padded, out: folder.appendingPathComponent("padded-\(count)-\(label)"), options)
                let (x, y) = (try #require(a.output, "\(a)"), try #require(b.output, "\(count) \(label): \(b)"))
                let (cleanSizes, paddedSizes) = (try Self.packetSizes(x), try Self.packetSizes(y))
                #expect(!cleanSizes.isEmpty && paddedSizes == cleanSizes, "\(count) \(label): \(paddedSizes.count) packets against \(cleanSizes.count)")
                let (p, q) = (try FFprobeReport.of(x), try FFprobeReport.of(y))
                #expect(abs((q.streams.first?.start ?? -1)) < 0.001, "\(count) \(label): starts at \(q.streams.first?.start ?? -1)")
                #expect(abs((q.duration ?? 0) - (p.duration ?? -1)) < 0.001, "\(count) \(label): \(q.duration ?? 0) against \(p.duration ?? -1)")
            }
        }
    }

    @Test("frames of nothing before the sound: an exact trim or a re-encode is unsupported and says why (it started late and ran short); the same file without them is cut",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func decodeRefused() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Edge.frames(try Edge.tone(folder))
        let silent = Self.silentFrame(like: frames[5])
        let clean = try Probe.write(frames.flatMap { $0 }, "clean.aac", in: folder)
        let padded = try Probe.write((0..<10).flatMap { _ in silent } + frames.flatMap { $0 }, "silent.aac", in: folder)
        for (label, options) in [("exact", ["--trim", "exact", "--start", "1"]), ("budget", ["--max-bytes", "20KB"])] {
            let a = try Self.prepare(clean, out: folder.appendingPathComponent("clean-\(label)"), options)
            #expect(a.code == nil && a.output != nil, "\(label): \(a)")
            let b = try Self.prepare(padded, out: folder.appendingPathComponent("padded-\(label)"), options)
            #expect(b.code == "unsupported" && b.message.contains("decode to nothing"), "\(label): \(b)")
            let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("padded-\(label)").path)) ?? []
            #expect(left.isEmpty, "\(label): \(left)")
        }
    }

    @Test("junk (no frame sync) then frames of nothing then the sound: the duration is the frames' count, not libavformat's estimate (82 s for a 3 s file)",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func junkBeforeKeepsCount() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Edge.frames(try Edge.tone(folder))
        let silent = Self.silentFrame(like: frames[5])
        let junk = (0..<100).map { UInt8(($0 * 37 + 11) % 254 + 1) }  // never 0xFF: no sync
        let clean = try Probe.write(frames.flatMap { $0 }, "clean.aac", in: folder)
        let path = try Probe.write(junk + (0..<1000).flatMap { _ in silent } + frames.flatMap { $0 }, "junk-silent.aac", in: folder)
        let info = try Probe.probe(path)
        #expect(info.duration == (try Probe.probe(clean).duration) && info.durationIsEstimate == false, "\(info.duration ?? -1)")
        let run = try TestEnvironment.runAttachKit(["validate", "--json", path])
        #expect(!run.stdout.contains("duration-too-long") && run.stdout.contains("recoverable-damage"), "\(run.stdout)")
        let prepared = try Self.prepare(path, out: folder.appendingPathComponent("out"), [])
        let reference = try Self.prepare(clean, out: folder.appendingPathComponent("clean"), [])
        let outputs = try #require(prepared.output.flatMap { x in reference.output.map { (x, $0) } }, "\(prepared) \(reference)")
        #expect(try Self.packetSizes(outputs.0) == (try Self.packetSizes(outputs.1)))
    }
}
