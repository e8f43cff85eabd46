import Foundation
import Testing
@testable import AttachKit

/// Damage players step over — junk between Ogg pages, before an MP3's first frame or after its
/// last (or that last frame cut short), a transport stream's last packet cut short in stuffing, an `mdat` claiming bytes the
/// file does not hold while every sample is in it — is recoverable (issue 29): `validate` and
/// `validate --deep` warn `recoverable-damage`, `prepare` hands back a clean remux (never the
/// damaged bytes) whose notes say what was repaired, and ffmpeg (libvips for pictures) decodes the
/// output without a word.
/// Damage inside the media (a frame cut short, lost pages, a packet's payload cut, samples past the
/// end) stays `corrupt`. Each file is made here from a TestMedia fixture.
@Suite("Recoverable damage: junk outside the media is repaired, damage inside it stays corrupt")
struct RecoverableDamageTests {
    static let folder = TestEnvironment.temporaryFolder("recoverable-damage")

    /// Writes `bytes` as `name` in ``folder``; its path.
    static func write(_ bytes: Data, _ name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try bytes.write(to: url)
        return url.path
    }

    static func fixture(_ relative: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(relative)))
    }

    /// Offsets of every `OggS` in `bytes`.
    static func oggPages(_ bytes: Data) -> [Int] {
        let pattern = Data("OggS".utf8)
        var found: [Int] = []
        var from = bytes.startIndex
        while let range = bytes.range(of: pattern, in: from..<bytes.endIndex) {
            found.append(range.lowerBound - bytes.startIndex)
            from = range.upperBound
        }
        return found
    }

    /// Offsets of the MP3 frames of `bytes` (after an ID3v2 tag), walked by their headers.
    static func mp3Frames(_ bytes: Data) -> [Int] {
        let all = [UInt8](bytes)
        var offset = all.starts(with: Array("ID3".utf8)) ? 10 + (Int(all[6]) << 21 | Int(all[7]) << 14 | Int(all[8]) << 7 | Int(all[9])) : 0
        var frames: [Int] = []
        while let frame = MPEGAudioFrame(all, at: offset) {
            frames.append(offset)
            offset += frame.length
        }
        return frames
    }

    /// The offset and size of the first top-level box of `type` in `bytes` (32-bit sizes only).
    static func topLevelBox(_ type: String, in bytes: [UInt8]) -> (offset: Int, size: Int)? {
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[(offset + 4)..<(offset + 8)] == ArraySlice(type.utf8) { return (offset, size) }
            guard size >= 8 else { return nil }
            offset += size
        }
        return nil
    }

    /// What `validate` and `validate --deep` find (codes), and `prepare`'s report.
    static func run(_ path: String) throws -> (plain: [String], deep: [String], prepare: JSONValue) {
        func codes(_ deep: Bool) throws -> [String] {
            let run = try TestEnvironment.runAttachKit(["validate", "--json"] + (deep ? ["--deep"] : []) + [path])
            let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            return (report["diagnostics"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
        }
        let out = folder.appendingPathComponent("out-" + URL(fileURLWithPath: path).lastPathComponent)
        let prepare = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", out.path, path])
        return (try codes(false), try codes(true), try JSONValue.parse(prepare.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Recoverable from every verb; the output is new bytes that ffmpeg decodes without a message
    /// and AttachKit finds intact.
    static func expectRepaired(_ path: String, naming words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (plain, deep, prepare) = try run(path)
        #expect(plain.contains("recoverable-damage") && !plain.contains("corrupt"), "validate: \(plain)", sourceLocation: sourceLocation)
        #expect(deep.contains("recoverable-damage") && !deep.contains("corrupt"), "validate --deep: \(deep)", sourceLocation: sourceLocation)
        #expect(prepare["ok"]?.boolValue == true, "\(prepare.serialized)", sourceLocation: sourceLocation)
        let notes = (prepare["notes"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(notes.contains { $0.hasPrefix("repaired: ") && $0.contains(words) }, "\(notes)", sourceLocation: sourceLocation)
        guard let output = prepare["output"]?.stringValue else { return }
        #expect(prepare["action"]?.stringValue != "passthrough", sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) != Data(contentsOf: URL(fileURLWithPath: path)), sourceLocation: sourceLocation)
        // Pictures are decoded by libvips (FFmpeg 5.1 does not read HEIF items), media by ffmpeg.
        let decode = prepare["after"]?["kind"]?.stringValue == "image"
            ? try TestEnvironment.run("vips", ["avg", output + "[fail_on=warning]"])
            : try TestEnvironment.run("ffmpeg", ["-v", "error", "-nostdin", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "decoding the output: \(decode.stderr)", sourceLocation: sourceLocation)
        let again = try TestEnvironment.runAttachKit(["validate", "--deep", "--json", output])
        #expect(!again.stdout.contains("recoverable-damage") && !again.stdout.contains(#""corrupt""#), "\(again.stdout)", sourceLocation: sourceLocation)
    }

    /// `corrupt` from `validate --deep` and from `prepare`, which writes nothing.
    static func expectCorruptEverywhere(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (_, deep, prepare) = try run(path)
        #expect(deep.contains("corrupt"), "validate --deep: \(deep)", sourceLocation: sourceLocation)
        #expect(prepare["error"]?["code"]?.stringValue == "corrupt" && prepare["output"] == nil, "\(prepare.serialized)", sourceLocation: sourceLocation)
    }

    @Test("Ogg: 10 junk bytes between pages and junk after the last page are repaired; a lost page is corrupt")
    func ogg() throws {
        let ogg = try Self.fixture("audio/ogg_vorbis_5s.ogg")
        let pages = Self.oggPages(ogg)
        let middle = pages[pages.count / 2]
        try Self.expectRepaired(try Self.write(ogg.prefix(middle) + Data("JUNKJUNK!!".utf8) + ogg.dropFirst(middle), "between.ogg"),
                                naming: "10 junk bytes between Ogg pages at byte \(middle)")
        try Self.expectRepaired(try Self.write(ogg + Data("trailing junk".utf8), "after.ogg"), naming: "after the last Ogg page")
        try Self.expectCorruptEverywhere(try Self.write(ogg.prefix(pages[5]) + Data("JUNK".utf8) + ogg.dropFirst(pages[6]), "lost.ogg"))
    }

    @Test("Ogg cut exactly at a page boundary (no end-of-stream page; Vorbis and Opus) is recoverable: validate warns that the end is missing, prepare hands back the whole pages there (issue 29)",
          arguments: ["audio/ogg_vorbis_5s.ogg", "audio/ogg_opus_5s.opus"])
    func oggWithoutItsEnd(fixture: String) throws {
        // Given the fixture cut after its middle page: every page whole, the last one without EOS
        let ogg = try Self.fixture(fixture)
        let pages = Self.oggPages(ogg)
        let name = "no-eos-" + URL(fileURLWithPath: fixture).lastPathComponent
        let cut = try Self.write(ogg.prefix(pages[pages.count / 2]), name)
        let whole = try Self.write(ogg, "whole-" + URL(fileURLWithPath: fixture).lastPathComponent)
        #expect(SyntheticMedia.check([UInt8](try Data(contentsOf: URL(fileURLWithPath: whole))), as: .ogg) == .intact)
        // Then every verb says the end is missing, and prepare's copy is what is there, decoded clean
        try Self.expectRepaired(cut, naming: "(page \(pages.count / 2 - 1), at byte \(pages[pages.count / 2 - 1])) has no end-of-stream flag")
        let there = try #require(try FFprobeReport.of(cut).duration)
        let prepared = try TestEnvironment.runAttachKit(["prepare", "--json", "--out", Self.folder.appendingPathComponent("no-eos").path, cut])
        let output = try #require(try JSONValue.parse(prepared.stdout.trimmingCharacters(in: .whitespacesAndNewlines))["output"]?.stringValue)
        let duration = try #require(try FFprobeReport.of(output).duration)
        #expect(there < 4 && abs(duration - there) < 0.1, "the cut input lasts \(there) s, the output \(duration) s")
    }

    @Test("MP3: one junk byte after the last frame, a last frame cut short and a 100 kB binary prefix are repaired into a clean copy; junk between frames and a frame cut short mid-stream are corrupt")
    func mp3() throws {
        let mp3 = try Self.fixture("audio/mp3_stereo_44k_5s.mp3")
        let frames = Self.mp3Frames(mp3)
        try #require(frames.count > 100)
        try Self.expectRepaired(try Self.write(mp3 + Data([0x42]), "after.mp3"), naming: "1 junk byte after the last frame")
        let middle = frames[frames.count / 2]
        try Self.expectCorruptEverywhere(try Self.write(mp3.prefix(middle) + Data("\0junkjunk\u{1}".utf8) + mp3.dropFirst(middle), "between.mp3"))
        try Self.expectRepaired(try Self.write(mp3.dropLast(100), "cut-last.mp3"), naming: "in a last frame cut short")
        var generator = SplitMix64(seed: 29)
        let prefix = Data((0..<100_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        try Self.expectRepaired(try Self.write(prefix + mp3, "prefix.mp3"), naming: "before the first frame at byte 0")
        let next = frames[frames.count / 2 + 1]
        try Self.expectCorruptEverywhere(try Self.write(mp3.prefix(next - 100) + mp3.dropFirst(next), "cut-frame.mp3"))
    }

    @Test("FLAC: 4 KB of junk inside a frame is corrupt from validate --deep and from prepare's transcode too (a frame-threaded decoder dropped the failing frame without a word, and the transcode passed; from an outsider)")
    func flacJunkInsideAFrame() throws {
        let flac = try Self.fixture("audio/flac_22k_5s.flac")
        var generator = SplitMix64(seed: 33)
        let junk = Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        let middle = flac.count / 2
        try Self.expectCorruptEverywhere(try Self.write(flac.prefix(middle) + junk + flac.dropFirst(middle), "junk-in-frame.flac"))
    }

    @Test("CENC-encrypted MP4s whose layout is damaged too (moov claiming more than the file holds, its end cut off) are encrypted from every verb, not corrupt (issue 29, from an outsider)")
    func encryptedAndDamaged() throws {
        var mp4 = [UInt8](try Self.fixture("malformed/mp4_encrypted_cenc_160x120.mp4"))
        let (offset, size) = try #require(Self.topLevelBox("moov", in: mp4), "no moov")
        let cut = try Self.write(Data(mp4.prefix(offset + size - 100)), "encrypted-cut.mp4")  // the end of the moov lost
        mp4[offset + 1] = mp4[offset + 1] &+ 1  // the moov claims 64 KiB more
        let overclaim = try Self.write(Data(mp4), "encrypted-overclaim.mp4")
        for path in [cut, overclaim] {
            for verb in [["validate", "--deep"], ["prepare", "--out", Self.folder.appendingPathComponent("enc-out").path]] {
                let run = try TestEnvironment.runAttachKit(verb + ["--json", path])
                let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
                let code = report["error"]?["code"]?.stringValue ?? report["diagnostics"]?.arrayValue?.first?["code"]?.stringValue
                #expect(code == "encrypted", "\(verb[0]) \(path): \(run.stdout)")
            }
        }
    }

    @Test("MPEG-TS: a last packet cut short in stuffing is repaired; one cut inside the sound's last frame is corrupt")
    func transportStream() throws {
        let ts = try Self.fixture("video/ts_h264_aac_320x240_2s.ts")
        let null = Data([0x47, 0x1F, 0xFF, 0x10]) + Data(repeating: 0xFF, count: 184)
        try Self.expectRepaired(try Self.write(ts + null.prefix(148), "short-null.ts"), naming: "148 of 188 bytes")
        // The PMT's own packet (its PID is in the PAT, not among the streams it lists) carries no
        // media either: a copy of it cut short at the end is repaired like a PAT's (outsider case).
        let pmtPID = 0x1000  // ffmpeg's mpegts muxer's first PMT PID
        let bytes = [UInt8](ts)
        let start = try #require(stride(from: 0, to: bytes.count - 187, by: 188).first { (at: Int) -> Bool in
            (Int(bytes[at + 1] & 0x1F) << 8 | Int(bytes[at + 2])) == pmtPID
        }, "no PMT packet")
        let pmt = Data(bytes[start..<(start + 188)])
        try Self.expectRepaired(try Self.write(ts + Data(pmt.prefix(88)), "short-pmt.ts"), naming: "88 of 188 bytes")
        try Self.expectCorruptEverywhere(try Self.write(ts.dropLast(40), "cut.ts"))
    }

    @Test("MP4 and HEIC: junk after the last box (4 bytes, or a run of an unknown type claiming megabytes) is repaired, the HEIC re-encoded rather than handed back; a moof cut short at the end is corrupt")
    func junkAfterTheLastBox() throws {
        let mp4 = try Self.fixture("video/mp4_h264_aac_320x240_2s.mp4")
        try Self.expectRepaired(try Self.write(mp4 + Data([1, 2, 3, 4]), "junk4.mp4"), naming: "4 junk bytes after the last box at byte \(mp4.count)")
        let overread = Data([0x0D, 0x0A, 0x2D, 0x2D]) + Data("----".utf8) + Data("garbage".utf8)
        try Self.expectRepaired(try Self.write(mp4 + overread, "overread.mp4"), naming: "after the last box")
        // A `free` box cut short holds nothing either (outsider case): junk, not a file cut short
        let cutFree = Data([0, 0, 0xC3, 0x50]) + Data("free".utf8) + Data(repeating: 0, count: 100)
        try Self.expectRepaired(try Self.write(mp4 + cutFree, "cut-free.mp4"), naming: "108 junk bytes after the last box at byte \(mp4.count)")
        let heic = try Self.fixture("images/heic_800x600.heic")
        try Self.expectRepaired(try Self.write(heic + Data([9, 9, 9]), "junk.heic"), naming: "3 junk bytes after the last box")
        let cutMoof = Data([0, 0, 0x10, 0]) + Data("moof".utf8) + Data(repeating: 0, count: 24)
        try Self.expectCorruptEverywhere(try Self.write(mp4 + cutMoof, "cut-moof.mp4"))
    }

    @Test("MP4: an mdat claiming 8 bytes more than the file holds with every sample inside is repaired; one cut into its samples is corrupt")
    func mediaDataOverclaim() throws {
        var mp4 = [UInt8](try Self.fixture("video/mp4_h264_aac_320x240_2s.mp4"))
        let (offset, size) = try #require(Self.topLevelBox("mdat", in: mp4), "no mdat found")
        try #require(offset + size == mp4.count, "the fixture's mdat is not last")
        for (i, byte) in [UInt8(truncatingIfNeeded: (size + 8) >> 24), UInt8(truncatingIfNeeded: (size + 8) >> 16),
                          UInt8(truncatingIfNeeded: (size + 8) >> 8), UInt8(truncatingIfNeeded: size + 8)].enumerated() {
            mp4[offset + i] = byte
        }
        try Self.expectRepaired(try Self.write(Data(mp4), "overclaim.mp4"), naming: "claims \(size + 8) bytes where the file holds \(size)")
        try Self.expectCorruptEverywhere(try Self.write(Data(mp4.dropLast(2000)), "overclaim-cut.mp4"))
    }

    @Test("fragmented MP4: a last mdat claiming 8 bytes more than the file holds, or junk after the last box, with every fragment's run of samples inside is repaired; one cut into its samples is corrupt")
    func fragmentedOverclaim() throws {
        var mp4 = [UInt8](try Self.fixture("video/mp4_fragmented_h264_160x120_2s.mp4"))
        var offset = 0, last: (offset: Int, size: Int)?
        while offset + 8 <= mp4.count {
            let size = Int(mp4[offset]) << 24 | Int(mp4[offset + 1]) << 16 | Int(mp4[offset + 2]) << 8 | Int(mp4[offset + 3])
            if mp4[(offset + 4)..<(offset + 8)] == ArraySlice("mdat".utf8) { last = (offset, size) }
            guard size >= 8 else { break }
            offset += size
        }
        let mdat = try #require(last, "no mdat found")
        // The fixture ends with an `mfra` (the random-access index, which players do without):
        // the last mdat is made the last box.
        mp4 = Array(mp4.prefix(mdat.offset + mdat.size))
        try Self.expectRepaired(try Self.write(Data(mp4) + Data([7, 7, 7]), "fragmented-junk.mp4"), naming: "after the last box")
        let claim = mdat.size + 8
        for i in 0..<4 { mp4[mdat.offset + i] = UInt8(truncatingIfNeeded: claim >> (24 - 8 * i)) }
        try Self.expectRepaired(try Self.write(Data(mp4), "fragmented-overclaim.mp4"), naming: "claims \(claim) bytes where the file holds \(mdat.size)")
        try Self.expectCorruptEverywhere(try Self.write(Data(mp4.dropLast(300)), "fragmented-overclaim-cut.mp4"))
    }
}
