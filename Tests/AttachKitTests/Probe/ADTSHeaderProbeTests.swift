import Foundation
import Testing
@testable import AttachKit

/// Raw AAC (ADTS) read from its frame headers (``ADTSHeaderProbe``, issue 33): the duration is
/// the count of frames that decode, exactly what a full decode outputs; the first header settles AAC-LC at
/// 32 kHz or more in channel configurations 1...6, and the probe answers field by field what the
/// decoding probe answers; damaged files are left to libavformat as before.
@Suite("ADTS header-only probe")
struct ADTSHeaderProbeTests {
    /// Encodes `seconds` of a 440 Hz tone at `rate` Hz in `channels` channels to ADTS AAC-LC with
    /// FFmpeg's encoder, in `folder`.
    static func encode(_ folder: URL, rate: Int, channels: Int, seconds: Double = 3) throws -> String {
        let path = folder.appendingPathComponent("tone-\(rate)-\(channels)ch.aac").path
        let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:r=\(rate):d=\(seconds)",
                                                     "-ac", "\(channels)", "-c:a", "aac", "-b:a", "96k", "-f", "adts", path])
        try #require(run.status == 0, "ffmpeg: \(run.stderr)")
        return path
    }

    /// What a full decode by FFmpeg gives: decoded frames (1024 samples each for AAC-LC), rate
    /// and channels, and the packets the parser splits.
    static func decoded(_ path: String) throws -> (seconds: Double, rate: Int, channels: Int, packets: Int, frames: Int) {
        let run = try TestEnvironment.run("ffprobe", ["-v", "error", "-count_frames", "-count_packets", "-select_streams", "a:0",
                                                      "-show_entries", "stream=sample_rate,channels,nb_read_frames,nb_read_packets",
                                                      "-of", "default=nw=1", path])
        var fields: [String: Int] = [:]
        for line in run.stdout.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = Int(pair[1]) }
        }
        let rate = try #require(fields["sample_rate"]), frames = try #require(fields["nb_read_frames"])
        return (Double(frames * 1024) / Double(rate), rate, try #require(fields["channels"]), try #require(fields["nb_read_packets"]), frames)
    }

    static func probe(_ path: String, decoding: Bool = false) throws -> MediaInfo {
        try Prober(limits: ProbeLimits(readsCodecConfiguration: !decoding)).probeWithSniff(path: path, displayPath: path).info
    }

    /// Whether the first frame header settled `path` (no libavformat).
    static func settledByHeader(_ path: String) throws -> Bool {
        let reader = try FileReader(path: path)
        guard let walked = ADTSHeaderProbe.count(reader, from: AudioSync.tagsEnd(reader)) else { return false }
        var scratch = MediaInfo(path: path, bytes: reader.size, kind: .unknown, container: .aacADTS)
        return ADTSHeaderProbe.describe(walked, into: &scratch)
    }

    static func write(_ bytes: [UInt8], _ name: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// An ID3v2.4 tag of `padding` zero bytes of payload.
    static func id3(padding: Int) -> [UInt8] {
        [0x49, 0x44, 0x33, 4, 0, 0] + [21, 14, 7, 0].map { UInt8((padding >> $0) & 0x7F) } + [UInt8](repeating: 0, count: padding)
    }

    @Test("mono, stereo, 4.0, 5.0 and 5.1 at 44.1/48 kHz: settled by the first header, exact duration, as decoding says",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"),
          arguments: [(48_000, 1), (44_100, 2), (48_000, 4), (48_000, 5), (48_000, 6)])
    func settledLayouts(rate: Int, channels: Int) throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.encode(folder, rate: rate, channels: channels)
        #expect(try Self.settledByHeader(path))
        let info = try Self.probe(path)
        let reference = try Self.decoded(path)
        #expect(info.codec == .aac && info.audioProfile == CodecProfile.aacLow)
        #expect(info.sampleRate == reference.rate && info.channels == reference.channels)
        #expect(info.durationIsEstimate == false)
        // Exact: the packets' 1024 samples each, which the decode outputs in full.
        #expect(reference.packets == reference.frames)
        #expect(info.duration == (reference.seconds * 1_000_000).rounded() / 1_000_000, "\(info.duration ?? -1) vs decoded \(reference.seconds)")
        let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(info.audioBitRate == Int(Double(bytes) * 8 / (info.duration ?? 1)) || abs((info.audioBitRate ?? 0) - Int(Double(bytes) * 8 / (info.duration ?? 1))) <= 1)
        HeaderOnlyProbeTests.compare([path])
    }

    @Test("22.05 kHz (HE-AAC's core rates) and channel configuration 0 (a PCE) are decoded for their facts; the duration still counts frames",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func unsettledHeadersDecode() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // FFmpeg writes 3 channels (2.1) with channel configuration 0 and a program config element.
        for path in [try Self.encode(folder, rate: 22_050, channels: 2), try Self.encode(folder, rate: 48_000, channels: 3)] {
            #expect(try !Self.settledByHeader(path), "\(path)")
            let info = try Self.probe(path)
            let reference = try Self.decoded(path)
            #expect(info.sampleRate == reference.rate && info.channels == reference.channels)
            #expect(info.durationIsEstimate == false)
            #expect(info.duration == (reference.seconds * 1_000_000).rounded() / 1_000_000, "\(path): \(info.duration ?? -1) vs decoded \(reference.seconds)")
            HeaderOnlyProbeTests.compare([path])
        }
    }

    @Test("ID3v2 tags before the first frame are skipped by their declared sizes", .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func id3Prefixed() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = try Self.encode(folder, rate: 44_100, channels: 2)
        let frames = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        let tagged = try Self.write(Self.id3(padding: 300) + Self.id3(padding: 40_000) + frames, "tagged.aac", in: folder)
        #expect(try Self.settledByHeader(tagged))
        let a = try Self.probe(plain), b = try Self.probe(tagged)
        #expect(b.container == .aacADTS && b.duration == a.duration && b.audioBitRate == a.audioBitRate && b.durationIsEstimate == false)
        #expect(b.bitRate ?? 0 > a.bitRate ?? 0, "the overall bitrate counts the tags' bytes")
        HeaderOnlyProbeTests.compare([tagged])
    }

    @Test("a file cut mid-frame, junk mid-stream: libavformat's estimate as before, the same verdict; noise after the frames keeps their count",
          .enabled(if: TestEnvironment.hasTool("ffmpeg"), "needs ffmpeg"))
    func damagedFallsBack() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Self.encode(folder, rate: 44_100, channels: 2))))
        let half = frames.count / 2
        var junk = frames
        junk.insert(contentsOf: [UInt8](repeating: 0x5A, count: 37), at: half)
        let noise = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let cases: [(String, [UInt8], String)] = [
            ("cut.aac", Array(frames.dropLast(100)), "truncated"),
            ("junk.aac", junk, "garbage between frames"),
        ]
        for (name, bytes, reason) in cases {
            let path = try Self.write(bytes, name, in: folder)
            let reader = try FileReader(path: path)
            #expect(ADTSHeaderProbe.count(reader, from: 0) == nil, "\(name)")
            let info = try Self.probe(path)
            #expect(info.durationIsEstimate == true, "\(name): \(info.duration ?? -1)")
            // Junk after the last frame is recoverable where FFmpeg steps over it (see ADTSEdgeCaseTests).
            let why: String
            switch ADTSStructure.check(reader, from: 0) {
            case .corrupt(let reason), .recoverable(let reason): why = reason
            default:
                Issue.record("\(name): the structure check passed")
                continue
            }
            #expect(why.contains(reason), "\(name): \(why)")
            HeaderOnlyProbeTests.compare([path])
        }
        // Noise after the last frame (no frame sync in it) is junk FFmpeg steps over: the frames
        // before it are all known, so they keep the count (ADTSEdgeCaseTests.largeJunkTail).
        let noisy = try Self.write(Array(frames[..<half]) + noise, "then-noise.aac", in: folder)
        #expect(ADTSHeaderProbe.count(try FileReader(path: noisy), from: 0) != nil)
        #expect(try Self.probe(noisy).durationIsEstimate == false)
        guard case .recoverable(let why) = ADTSStructure.check(try FileReader(path: noisy), from: 0) else {
            Issue.record("then-noise.aac: not recoverable")
            return
        }
        #expect(why.contains("after the last frame"), "\(why)")
        HeaderOnlyProbeTests.compare([noisy])
    }

    @Test("tags after the frames and zero padding end a clean walk; a frame of two raw data blocks is unsupported (an M4A sample holds one)")
    func trailersAndRawDataBlocks() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let frames = SyntheticMedia.adts(frames: 10)
        let id3v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        let trailed = try Self.write(frames + id3v1 + [UInt8](repeating: 0, count: 64), "trailed.aac", in: folder)
        let walked = try #require(ADTSHeaderProbe.count(try FileReader(path: trailed), from: 0))
        #expect(walked.frames == 10 && walked.samples == 10 * 1024 && walked.frameBytes == Int64(frames.count))
        var twoBlocks = frames
        twoBlocks[6] |= 0x01  // number_of_raw_data_blocks_in_frame = 1 in the first frame
        let multiple = try Self.write(twoBlocks, "two-blocks.aac", in: folder)
        #expect(ADTSStructure.walk(try FileReader(path: multiple), from: 0).samples == 11 * 1024)
        let counted = try #require(ADTSHeaderProbe.count(try FileReader(path: multiple), from: 0))
        #expect(ADTSHeaderProbe.severalBlocks(counted)?.contains("2 raw data blocks") == true)
    }

    @Test("the walk stops at its frame cap, and past it the probe keeps libavformat's estimate")
    func capped() throws {
        let folder = TestEnvironment.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try Self.write(SyntheticMedia.adts(frames: 10), "ten.aac", in: folder)
        let reader = try FileReader(path: path)
        let walked = ADTSStructure.walk(reader, from: 0, maximumFrames: 4)
        #expect(walked.capped && walked.frames == 4 && walked.problem == nil)
        #expect(ADTSHeaderProbe.count(reader, from: 0, maximumFrames: 4) == nil)
        #expect(ADTSHeaderProbe.count(reader, from: 0, maximumFrames: 10)?.frames == 10)
    }

    /// The shared corpus' and peers' ADTS files (found by their bytes: sync `0xFFF1`/`0xFFF9`
    /// after any ID3v2 tags), when present: both probes agree, and the duration is what a full
    /// decode outputs exactly (`ffprobe -count_frames`): the first frame of libfaac's files (the
    /// corpus' `aac_adts_44k.aac`, mutagen's `empty.aac`) carries its stamp, and FFmpeg's decoder
    /// drops its 1024 samples (libfaac's encoder delay), which the probe leaves out too.
    @Test("corpus and peers' ADTS files: exact durations, both probes agree", .enabled(if: TestEnvironment.hasTool("ffprobe"), "needs ffprobe"))
    func sharedFiles() throws {
        let roots = [TestEnvironment.corpus, TestEnvironment.peers]
        var checked = 0
        for path in roots.flatMap({ HeaderOnlyProbeTests.files(under: $0) }) {
            guard let reader = try? FileReader(path: path), FormatSniffer.sniff(reader).container == .aacADTS,
                  let info = try? Self.probe(path) else { continue }
            HeaderOnlyProbeTests.compare([path])
            guard info.durationIsEstimate == false, let reference = try? Self.decoded(path) else { continue }
            #expect(info.sampleRate == reference.rate && info.channels == reference.channels, "\(path)")
            #expect(abs((info.duration ?? 0) - reference.seconds) <= 0.000_001, "\(path): \(info.duration ?? -1) vs decoded \(reference.seconds)")
            checked += 1
        }
        print("ADTS header-only probe: \(checked) shared files with exact durations")
    }
}
