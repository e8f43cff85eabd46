import Foundation
import Testing
@testable import AttachKit

/// ADTS files an outside tester (outsider47) found mishandled, made here from bytes or FFmpeg's
/// encoder: frames that decode to no rate (a crash dividing by it, or a rate of 0 printed), frames
/// that decode to nothing counted as 1024 samples, a lone frame, a rate change and trailing junk
/// named as "garbage between frames".
@Suite("ADTS edge cases")
struct ADTSEdgeCaseTests {
    typealias Probe = ADTSHeaderProbeTests

    /// The frames of an ADTS stream, split by their headers' lengths.
    static func frames(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = [], i = 0
        while i + 7 <= bytes.count {
            let length = Int(bytes[i + 3] & 3) << 11 | Int(bytes[i + 4]) << 3 | Int(bytes[i + 5] >> 5)
            guard length >= 7 else { break }
            out.append(Array(bytes[i..<min(bytes.count, i + length)]))
            i += length
        }
        return out
    }

    static func setLength(_ frame: inout [UInt8], _ length: Int) {
        frame[3] = frame[3] & 0xFC | UInt8(length >> 11 & 3)
        frame[4] = UInt8(length >> 3 & 0xFF)
        frame[5] = frame[5] & 0x1F | UInt8(length & 7) << 5
    }

    /// A 3 s 44.1 kHz stereo encode's bytes (FFmpeg's AAC-LC encoder).
    static func tone(_ folder: URL, rate: Int = 44_100, channels: Int = 2) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Probe.encode(folder, rate: rate, channels: channels))))
    }

    /// The probe's error code for `path`, or `nil` when it probes (and then never a rate of 0).
    static func probeFailure(_ path: String) -> (code: ErrorCode, message: String)? {
        do {
            let info = try Prober().probeWithSniff(path: path, displayPath: path).info
            #expect(info.sampleRate != 0 && info.channels != 0, "\(path): a rate or channel count of 0 printed as a fact")
            return nil
        } catch {
            return (error.code, error.description)
        }
    }

    @Test("frames that decode to no rate (channel configuration 0 without a PCE, 7 over stereo, bare headers, a reserved rate index): corrupt, never a crash or a rate of 0",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func noDecodedRate() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Self.frames(try Self.tone(folder))
        func rewritten(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            frames.flatMap { frame -> [UInt8] in
                var frame = frame
                change(&frame)
                return frame
            }
        }
        /// `count` bare headers (frame length 7) of `profile`, rate index and channel configuration.
        func bare(profile: UInt8 = 1, rateIndex: UInt8, configuration: UInt8, count: Int = 20) -> [UInt8] {
            var header: [UInt8] = [0xFF, 0xF1, profile << 6 | rateIndex << 2 | configuration >> 2, (configuration & 3) << 6, 0, 0x1F, 0xFC]
            Self.setLength(&header, 7)
            return (0..<count).flatMap { _ in header }
        }
        let cases: [(String, [UInt8])] = [
            ("chcfg0.aac", rewritten { $0[2] &= 0xFE; $0[3] &= 0x3F }),
            ("chcfg7.aac", rewritten { $0[2] |= 0x01; $0[3] |= 0xC0 }),
            ("rate-index-13.aac", rewritten { $0[2] = $0[2] & 0xC3 | 13 << 2 }),
            ("bare-22k.aac", bare(rateIndex: 7, configuration: 2)),
            ("bare-main-44k.aac", bare(profile: 0, rateIndex: 4, configuration: 2)),
            ("bare-cc0.aac", bare(rateIndex: 4, configuration: 0)),
            ("bare-44k.aac", bare(rateIndex: 4, configuration: 2)),
            ("one-header.aac", bare(rateIndex: 4, configuration: 2, count: 1)),
            ("headers-lying.aac", frames.prefix(20).flatMap { $0.prefix(7) }),
        ]
        for (name, bytes) in cases {
            let path = try Probe.write(bytes, name, in: folder)
            let failure = Self.probeFailure(path)
            #expect(failure?.code == .corrupt, "\(name): \(failure.map { "\($0)" } ?? "probed")")
        }
    }

    @Test("past the 2^20-frame walk cap, frames holding no sound are corrupt, as they are under it (never a rate of 0)")
    func manySilentFrames() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // AAC-LC 44.1 kHz stereo, frame length 8: the header and one END element.
        let frame: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x01, 0x1F, 0xFC, 0xE0]
        let count = Int(ADTSHeaderProbe.maximumFrames) + 1
        var bytes = [UInt8]()
        bytes.reserveCapacity(count * frame.count)
        for _ in 0..<count { bytes += frame }
        let path = try Probe.write(bytes, "many.aac", in: folder)
        #expect(Self.probeFailure(path)?.code == .corrupt)
        let under = try Probe.write(Array(bytes.prefix(8 * 100)), "hundred.aac", in: folder)
        #expect(Self.probeFailure(under)?.code == .corrupt)
    }

    /// `bits` (0/1 values, most significant first) packed into bytes, zero-padded.
    static func pack(_ bits: [UInt8]) -> [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            (0..<8).reduce(UInt8(0)) { byte, i in byte << 1 | (start + i < bits.count ? bits[start + i] : 0) }
        }
    }

    static func bits(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(value >> (count - 1 - $0) & 1) } }

    @Test("the duration is what a full decode outputs: a bare-header frame, and each libfaac-stamped frame (after which FFmpeg drops 1024 samples), are not counted",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func decodedDuration() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var frames = Self.frames(try Self.tone(folder))
        // The last frame a bare header (frame length 7): FFmpeg decodes nothing for it.
        var bareLast = frames
        bareLast[bareLast.count - 1] = Array(bareLast[bareLast.count - 1].prefix(7))
        Self.setLength(&bareLast[bareLast.count - 1], 7)
        // libfaac's stamp: a fill element (EXT_FILL, 13 bits, "libfaac 1.28") before the first
        // frame's channel element, as libfaac writes it (the shared corpus' aac_adts_44k.aac).
        let fill = Self.bits(6, 3) + Self.bits(15, 4) + Self.bits(1, 8) + Self.bits(0, 4) + Self.bits(0, 13)
            + Array("libfaac 1.28".utf8).flatMap { Self.bits(Int($0), 8) } + Self.bits(0, 7)
        let payload = frames[0].dropFirst(7).flatMap { Self.bits(Int($0), 8) }
        var stamped = Array(frames[0].prefix(7)) + Self.pack(fill + payload)
        Self.setLength(&stamped, stamped.count)
        frames[0] = stamped
        // Two libfaac files joined: FFmpeg drops 1024 samples at each stamp.
        for (name, bytes, stamps) in [("bare-last.aac", bareLast.flatMap { $0 }, 1), ("libfaac.aac", frames.flatMap { $0 }, 1),
                                      ("libfaac-twice.aac", frames.flatMap { $0 } + frames.flatMap { $0 }, 2)] {
            let path = try Probe.write(bytes, name, in: folder)
            let info = try Probe.probe(path)
            let reference = try Probe.decoded(path)
            #expect(reference.packets == reference.frames + stamps, "\(name): the decode outputs \(stamps) frame(s) fewer than the packets")
            #expect(info.durationIsEstimate == false)
            #expect(info.duration == (reference.seconds * 1_000_000).rounded() / 1_000_000, "\(name): \(info.duration ?? -1) vs decoded \(reference.seconds)")
        }
    }

    @Test("a file of one frame is unsupported in every verb (libavformat times no packet of it)", .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func oneFrame() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = Self.frames(try Self.tone(folder))
        let one = try Probe.write(frames[0], "one.aac", in: folder)
        #expect(Self.probeFailure(one)?.code == .unsupported)
        let two = try Probe.write(frames[0] + frames[1], "two.aac", in: folder)
        #expect(Self.probeFailure(two) == nil)
    }

    @Test("a sample-rate change mid-stream is named, at the frame it happens", .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func rateChange() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try Self.tone(folder), second = try Self.tone(folder, rate: 48_000)
        let path = try Probe.write(first + second, "rates.aac", in: folder)
        let count = Self.frames(first).count
        guard case .corrupt(let why) = ADTSStructure.check(try FileReader(path: path), from: 0) else {
            Issue.record("a rate change passed the structure check")
            return
        }
        #expect(why.contains("the sample rate changes from 44100 to 48000 Hz at frame \(count + 1) (byte \(first.count))"), "\(why)")
        #expect(!why.contains("garbage"))
    }

    @Test("junk after the last frame is said to be there: recoverable where FFmpeg steps over it, as for MP3; junk before the first frame likewise")
    func trailingJunk() {
        let frames = SyntheticMedia.adts()
        #expect(SyntheticMedia.check(frames + Array("garbage-at-end!!".utf8), as: .aacADTS)
            == .recoverable(reason: "16 junk bytes after the last frame at byte \(frames.count)"))
        // A tail shorter than a header, or holding a sync, fails FFmpeg's reader: corrupt, and said where.
        for tail: [UInt8] in [[0xFF, 0xF1, 0x50, 0x80], [0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0xFF, 0xF1, 0x00]] {
            guard case .corrupt(let why) = SyntheticMedia.check(frames + tail, as: .aacADTS) else {
                Issue.record("\(tail): not corrupt")
                continue
            }
            #expect(why.contains("after the last frame at byte \(frames.count)") && !why.contains("between"), "\(why)")
        }
        #expect(SyntheticMedia.check(Array("JUNKJUNK".utf8) + frames, as: .aacADTS, audioOffset: 8)
            == .recoverable(reason: "8 junk bytes before the first frame at byte 0"))
    }

    @Test("1 MiB of junk after a 3 s file: the duration is still the frames' (not libavformat's estimate over the junk), the damage recoverable",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func largeJunkTail() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = try Self.tone(folder)
        let clean = try Probe.write(base, "clean.aac", in: folder)
        let junk: [UInt8] = (0..<1_048_576).map { (i: Int) -> UInt8 in UInt8((i * 37 + 11) % 254 + 1) }  // never 0xFF: no sync
        let path = try Probe.write(base + junk, "junk-tail.aac", in: folder)
        let info = try Probe.probe(path)
        #expect(info.durationIsEstimate == false)
        #expect(info.duration == (try Probe.probe(clean)).duration, "\(info.duration ?? -1)")
        #expect(ADTSStructure.check(try FileReader(path: path), from: 0) == .recoverable(reason: "\(junk.count) junk bytes after the last frame at byte \(base.count)"))
    }
}
