import Foundation
import Testing
@testable import AttachKit

/// ADTS files on which `validate`, `validate --deep` and `prepare` gave different verdicts
/// (outside tester, round 48), made here from FFmpeg's encoder and bytes: bytes after the last
/// frame that FFmpeg 5.1's reader fails on (1 to 9), frames of another rate or a frame sync in
/// front of the first frame (taken for junk, and an M4A labelled with the wrong rate), and bare
/// headers. Each verb must say the same: `corrupt` from all three, or none of them.
@Suite("ADTS: validate, validate --deep and prepare agree")
struct ADTSVerbAgreementTests {
    typealias Edge = ADTSEdgeCaseTests
    typealias Probe = ADTSHeaderProbeTests

    /// Each verb's verdict on `path`: the diagnostic codes of `validate` and `validate --deep`,
    /// `prepare`'s error code (`nil` when it wrote a file) and the output's path.
    static func verdicts(_ path: String, out: URL) throws -> (quick: [String], deep: [String], prepare: String?, output: String?) {
        func codes(_ arguments: [String]) throws -> [String] {
            let run = try TestEnvironment.runAttachKit(arguments + ["--json", path])
            let report = try JSONValue.parse(run.stdout.split(separator: "\n").first.map(String.init) ?? "")
            return (report["diagnostics"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
        }
        let prepare = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path, path])
        let line = prepare.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let output = (try? JSONValue.parse(line))?["output"]?.stringValue
        return (try codes(["validate"]), try codes(["validate", "--deep"]), TestEnvironment.errorCode(prepare.stdout), output)
    }

    /// Whether the three verbs agree on `path`: all `corrupt`, or none (and then prepare writes).
    static func agree(_ path: String, out: URL) throws -> (Bool, String) {
        let v = try verdicts(path, out: out)
        let corrupt = [v.quick.contains("corrupt"), v.deep.contains("corrupt"), v.prepare == "corrupt"]
        let agreed = corrupt.allSatisfy { $0 } || (!corrupt.contains(true) && v.prepare == nil)
        return (agreed, "validate \(v.quick), deep \(v.deep), prepare \(v.prepare ?? "ok")")
    }

    @Test("0 to 20 bytes of zeros, of junk, and of a cut frame after the last frame: one verdict from every verb (FFmpeg fails on 1 to 9)",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func trailingBytes() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = try Edge.tone(folder)
        let frame = Edge.frames(base)[5]
        for size in 0...20 {
            let junk = (0..<size).map { UInt8(($0 * 37 + 11) % 254 + 1) }  // never 0xFF: no sync
            for (kind, tail) in [("zeros", [UInt8](repeating: 0, count: size)), ("junk", junk), ("cut-frame", Array(frame.prefix(size)))] {
                if kind != "zeros", size == 0 { continue }
                let path = try Probe.write(base + tail, "\(kind)-\(size).aac", in: folder)
                let (agreed, said) = try Self.agree(path, out: folder.appendingPathComponent("out-\(kind)-\(size)"))
                #expect(agreed, "\(kind) \(size): \(said)")
                if (1...9).contains(size) { #expect(said.hasPrefix("validate [") && said.contains("corrupt"), "\(kind) \(size): \(said)") }
            }
        }
    }

    @Test("bytes before the first frame holding a frame of another rate, a frame sync or a header, or a reserved-rate frame: corrupt from every verb, the rate change named",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func framesBeforeTheFirst() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = try Edge.tone(folder)
        let frames = Edge.frames(base)
        let junk = (0..<200).map { UInt8(($0 * 37 + 11) % 254 + 1) }
        var reserved = frames[0]
        reserved[2] = reserved[2] & 0xC3 | 15 << 2
        var cases: [(String, [UInt8], String?)] = [
            ("sync-in-junk.aac", Array(junk.prefix(100)) + [0xFF, 0xF3] + Array(junk.prefix(100)) + base, nil),
            ("header-in-junk.aac", Array(frames[3].prefix(7)) + Array(junk.prefix(50)) + base, nil),
            ("reserved-rate-first.aac", reserved + frames.dropFirst().flatMap { $0 }, nil),
        ]
        for rate in [48_000, 32_000] {
            let other = Edge.frames(try Edge.tone(folder, rate: rate))
            cases.append(("head\(rate).aac", other[3] + base, "the sample rate changes from \(rate) to 44100 Hz"))
        }
        for (name, bytes, named) in cases {
            let path = try Probe.write(bytes, name, in: folder)
            let v = try Self.verdicts(path, out: folder.appendingPathComponent("out-\(name)"))
            #expect(v.quick.contains("corrupt") && v.deep.contains("corrupt") && v.prepare == "corrupt", "\(name): \(v)")
            if let named {
                let run = try TestEnvironment.runAttachKit(["validate", "--json", path])
                #expect(run.stdout.contains(named), "\(name): \(run.stdout)")
            }
        }
        // Junk without a sync is stepped over: recoverable, and prepare writes 44.1 kHz.
        let path = try Probe.write(junk + base, "junk.aac", in: folder)
        let v = try Self.verdicts(path, out: folder.appendingPathComponent("out-junk"))
        #expect(v.quick.contains("recoverable-damage") && v.prepare == nil, "\(v)")
        if let output = v.output { #expect(try Probe.probe(output).sampleRate == 44_100) }
    }

    @Test("a bare header (frame length 7) mid-stream or last, on which FFmpeg's decoder fails: corrupt from every verb",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func bareHeaders() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Edge.frames(try Edge.tone(folder))
        var bare = Array(frames[5].prefix(7))
        Edge.setLength(&bare, 7)
        for (name, bytes) in [("bare-mid.aac", frames.prefix(50).flatMap { $0 } + bare + frames.dropFirst(50).flatMap { $0 }),
                              ("bare-last.aac", frames.flatMap { $0 } + bare)] {
            let path = try Probe.write(bytes, name, in: folder)
            let v = try Self.verdicts(path, out: folder.appendingPathComponent("out-\(name)"))
            #expect(v.quick.contains("corrupt") && v.deep.contains("corrupt") && v.prepare == "corrupt", "\(name): \(v)")
        }
    }

    @Test("a channel layout change (mono then stereo, stereo then mono, one mono frame in front): corrupt from every verb, never an M4A whose configuration names another layout",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func channelChange() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stereo = try Edge.tone(folder), mono = try Edge.tone(folder, channels: 1)
        for (name, bytes, named) in [("mono-stereo.aac", mono + stereo, "the channel configuration changes from 1 to 2"),
                                     ("stereo-mono.aac", stereo + mono, "the channel configuration changes from 2 to 1"),
                                     ("mono-head.aac", Edge.frames(mono)[3] + stereo, "the channel configuration changes from 1 to 2")] {
            let path = try Probe.write(bytes, name, in: folder)
            let v = try Self.verdicts(path, out: folder.appendingPathComponent("out-\(name)"))
            #expect(v.quick.contains("corrupt") && v.deep.contains("corrupt") && v.prepare == "corrupt", "\(name): \(v)")
            let run = try TestEnvironment.runAttachKit(["validate", "--json", path])
            #expect(run.stdout.contains(named), "\(name): \(run.stdout)")
        }
    }

    @Test("frames holding only a fill element are left out of prepare's M4A: it lasts as long as the same file without them; one frame of sound among them is unsupported",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func silentFramesLeftOut() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Edge.frames(try Edge.tone(folder))
        let silent = ADTSSilentFrameTests.silentFrame(like: frames[5])
        let clean = try Probe.write(frames.flatMap { $0 }, "clean.aac", in: folder)
        let padded = try Probe.write(frames.prefix(50).flatMap { $0 } + (0..<5).flatMap { _ in silent } + frames.dropFirst(50).flatMap { $0 },
                                     "silent.aac", in: folder)
        #expect(try Probe.probe(padded).duration == Probe.probe(clean).duration)
        let a = try Self.verdicts(clean, out: folder.appendingPathComponent("out-clean"))
        let b = try Self.verdicts(padded, out: folder.appendingPathComponent("out-silent"))
        let outputs = try #require(a.output.flatMap { x in b.output.map { (x, $0) } }, "\(a) \(b)")
        let (cleanOut, paddedOut) = (try Probe.probe(outputs.0), try Probe.probe(outputs.1))
        #expect(cleanOut.duration == paddedOut.duration, "\(cleanOut.duration ?? -1) vs \(paddedOut.duration ?? -1)")
        #expect(try Probe.decoded(outputs.1).packets == frames.count)
        // The same frames in front of the sound (outside tester, round 49 M2): left out, and the
        // M4A still starts at 0 and declares the clean file's duration (it started at 0.116 s).
        let leading = try Probe.write((0..<5).flatMap { _ in silent } + frames.flatMap { $0 }, "silent-start.aac", in: folder)
        #expect(try Probe.probe(leading).duration == Probe.probe(clean).duration)
        let c = try Self.verdicts(leading, out: folder.appendingPathComponent("out-silent-start"))
        let leadingOut = try #require(c.output, "\(c)")
        let report = try FFprobeReport.of(leadingOut)
        let stream = try #require(report.streams.first)
        #expect(abs(stream.start ?? -1) < 0.001, "start \(stream.start ?? -1)")
        #expect(abs((report.duration ?? 0) - (cleanOut.duration ?? -1)) < 0.001, "\(report.duration ?? 0) vs \(cleanOut.duration ?? -1)")
        #expect(try Probe.decoded(leadingOut).packets == frames.count)
        // One frame of sound after frames of none is a lone packet once they are left out: unsupported, as one frame is.
        let lone = try Probe.write((0..<4).flatMap { _ in silent } + frames[3], "lone.aac", in: folder)
        #expect(Edge.probeFailure(lone)?.code == .unsupported)
        let v = try Self.verdicts(lone, out: folder.appendingPathComponent("out-lone"))
        #expect(v.quick.contains("unsupported-codec") && v.deep.contains("unsupported-codec") && v.prepare == "unsupported", "\(v)")
    }

    @Test("the MPEG version bit (ID) set on the first frame, on every other frame or on the second half: one stream to every verb (FFmpeg decodes and copies it), and a lone header of another rate mid-stream is named",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func versionBitMixed() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Edge.frames(try Edge.tone(folder))
        let cleanPath = try Probe.write(frames.flatMap { $0 }, "clean.aac", in: folder)
        let cleanSeconds = try #require(try Probe.probe(cleanPath).duration)
        let clean = try Self.verdicts(cleanPath, out: folder.appendingPathComponent("out-clean"))
        func flipped(_ which: (Int) -> Bool) -> [UInt8] {
            frames.enumerated().flatMap { index, frame in
                var frame = frame
                if which(index) { frame[1] ^= 0x08 }
                return frame
            }
        }
        let half = frames.count / 2
        for (name, bytes) in [("id-first.aac", flipped { $0 == 0 }), ("id-alternate.aac", flipped { $0 % 2 == 1 }),
                              ("id-second-half.aac", flipped { $0 >= half }), ("id-all.aac", flipped { _ in true })] {
            let path = try Probe.write(bytes, name, in: folder)
            #expect(try Probe.probe(path).duration == cleanSeconds, "\(name)")
            let v = try Self.verdicts(path, out: folder.appendingPathComponent("out-\(name)"))
            #expect(v.quick == clean.quick && v.deep == clean.deep && v.prepare == nil, "\(name): \(v) against \(clean)")
            let output = try #require(v.output, "\(name): \(v)")
            let decoded = try Probe.decoded(output)
            #expect(decoded.rate == 44_100 && decoded.packets == frames.count, "\(name): \(decoded)")
        }
        // One frame of 48 kHz among 44.1 kHz frames chains on to nothing: garbage between frames,
        // named as a header of another rate rather than "no frame sync".
        let other = Edge.frames(try Edge.tone(folder, rate: 48_000))
        let lone = try Probe.write(frames.prefix(40).flatMap { $0 } + other[3] + frames.dropFirst(40).flatMap { $0 }, "lone-48k.aac", in: folder)
        let run = try TestEnvironment.runAttachKit(["validate", "--json", lone])
        #expect(run.stdout.contains("a frame where the sample rate changes from 44100 to 48000 Hz"), "\(run.stdout)")
        let v = try Self.verdicts(lone, out: folder.appendingPathComponent("out-lone-48k"))
        #expect(v.quick.contains("corrupt") && v.deep.contains("corrupt") && v.prepare == "corrupt", "\(v)")
    }
}
