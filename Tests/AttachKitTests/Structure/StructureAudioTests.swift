import Foundation
import Testing
@testable import AttachKit

/// WAV/RF64, AIFF, MP3, ADTS, FLAC and Ogg layout problems, one at a time.
@Suite("Structure: audio")
struct StructureAudioTests {
    // MARK: WAV and RF64

    @Test("WAV: a data chunk claiming 4 GB in a small file is corrupt", arguments: [0xFFFF_FFF0, 0xFFFF_FFFF])
    func wavClaims4GB(claim: Int) {
        // Given a real RIFF size (the header was finalised) but a data size the file cannot hold
        let bytes = SyntheticMedia.wav(claimedDataSize: claim)
        expectCorrupt(bytes, as: .wav, mentioning: "chunk 'data' at byte 36 claims \(claim) bytes")
    }

    @Test("WAV: a streaming header (RIFF and data sizes never written) runs to the end of the file",
          arguments: [0, 0xFFFF_FFFF])
    func wavStreaming(size: Int) {
        let bytes = SyntheticMedia.wav(claimedDataSize: size, riffSize: size)
        #expect(SyntheticMedia.check(bytes, as: .wav) == .intact)
    }

    @Test("WAV: a RIFF size larger than the file is truncated")
    func wavRIFFPastEnd() {
        let bytes = SyntheticMedia.wav(riffSize: 10_000)
        expectCorrupt(bytes, as: .wav, mentioning: "says the file has 10008 bytes")
    }

    @Test("WAV: a missing pad byte after an odd last chunk is tolerated")
    func wavMissingPad() {
        let chunks = SyntheticMedia.riffChunk("fmt ", SyntheticMedia.pcmFormat) + SyntheticMedia.riffChunk("data", [1, 2, 3])
        let bytes = SyntheticMedia.riff("WAVE", Array(chunks.dropLast()))
        #expect(SyntheticMedia.check(bytes, as: .wav) == .intact)
    }

    @Test("WAV: no fmt chunk, or data before fmt, is corrupt")
    func wavChunkOrder() {
        let data = SyntheticMedia.riffChunk("data", [0, 0])
        let format = SyntheticMedia.riffChunk("fmt ", SyntheticMedia.pcmFormat)
        expectCorrupt(SyntheticMedia.riff("WAVE", data), as: .wav, mentioning: "without a 'fmt ' chunk")
        expectCorrupt(SyntheticMedia.riff("WAVE", data + format), as: .wav, mentioning: "comes before 'fmt '")
    }

    @Test("RF64: a ds64 RIFF size past the end of the file is corrupt")
    func rf64PastEnd() {
        var bytes = SyntheticMedia.rf64()
        bytes.replaceSubrange(20..<28, with: SyntheticMedia.le64(1 << 40))
        expectCorrupt(bytes, as: .rf64, mentioning: "truncated")
    }

    @Test("RF64: no ds64 chunk is corrupt")
    func rf64NoDs64() {
        var bytes = SyntheticMedia.rf64()
        bytes.replaceSubrange(12..<16, with: Array("junk".utf8))
        expectCorrupt(bytes, as: .rf64, mentioning: "without a ds64 chunk")
    }

    // MARK: AIFF

    @Test("AIFF: sample frames without an SSND chunk are corrupt")
    func aiffNoSoundData() {
        expectCorrupt(SyntheticMedia.aiff(soundData: false), as: .aiff, mentioning: "no SSND chunk")
    }

    @Test("AIFF: no sample frames at all is no samples, with or without an SSND chunk (issue 18: nothing to show)")
    func aiffEmpty() {
        expectCorrupt(SyntheticMedia.aiff(frames: 0, soundData: false), as: .aiff, mentioning: "no samples")
        expectCorrupt(SyntheticMedia.aiff(frames: 0), as: .aiff, mentioning: "no samples")
    }

    // MARK: MP3

    @Test("MP3: junk after the last frame is recoverable, named with its place and size; junk between frames is corrupt (bytes inserted into a frame look the same)")
    func mp3Garbage() {
        let between = SyntheticMedia.mp3Frame() + [0x12, 0x34, 0x56] + SyntheticMedia.mp3Frame()
        expectCorrupt(between, as: .mp3, mentioning: "no frame sync at byte 417 after 1 frame(s): garbage between frames (the next frame is at byte 420)")
        let after = SyntheticMedia.mp3() + [0x42]
        guard case .recoverable(let reason) = SyntheticMedia.check(after, as: .mp3) else {
            Issue.record("trailing junk: \(SyntheticMedia.check(after, as: .mp3))")
            return
        }
        #expect(reason.hasPrefix("1 junk byte after the last frame"), "\(reason)")
    }

    @Test("MP3: tags at the end (ID3v1, APEv2, Lyrics3) and an ID3v2 tag in front are fine")
    func mp3Tags() {
        let id3v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        let apeFooter = Array("APETAGEX".utf8) + SyntheticMedia.le32(2000) + SyntheticMedia.le32(32) + SyntheticMedia.le32(0)
            + SyntheticMedia.le32(0) + [UInt8](repeating: 0, count: 8)
        let lyrics = Array("LYRICSBEGIN".utf8) + Array("hello".utf8)
        let lyricsTail = Array(String(format: "%06d", lyrics.count).utf8) + Array("LYRICS200".utf8)
        let id3v2 = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 10] + [UInt8](repeating: 0, count: 10)

        #expect(SyntheticMedia.check(SyntheticMedia.mp3() + id3v1, as: .mp3) == .intact)
        #expect(SyntheticMedia.check(SyntheticMedia.mp3() + apeFooter, as: .mp3) == .intact)
        #expect(SyntheticMedia.check(SyntheticMedia.mp3() + lyrics + lyricsTail + id3v1, as: .mp3) == .intact)
        #expect(SyntheticMedia.check(id3v2 + SyntheticMedia.mp3(), as: .mp3, audioOffset: 20) == .intact)
    }

    @Test("MP3: a cut-off last frame is recoverable (a copy leaves it out), a cut-off middle is corrupt")
    func mp3PartialLastFrame() {
        let cut = Array(SyntheticMedia.mp3().dropLast(100))
        guard case .recoverable(let reason) = SyntheticMedia.check(cut, as: .mp3) else {
            Issue.record("\(SyntheticMedia.check(cut, as: .mp3))")
            return
        }
        #expect(reason.contains("bytes in a last frame cut short (317 of 417 bytes)"), "\(reason)")
        let noisy = SyntheticMedia.mp3Frame([UInt8](repeating: 0x55, count: 413))
        let spliced = Array(noisy.prefix(200)) + noisy
        expectCorrupt(spliced, as: .mp3, mentioning: "the frame at byte 0 is cut short: the next frame starts at byte 200")
    }

    @Test("MP3: a Xing header declaring far more frames than the file holds is corrupt")
    func mp3XingOverclaim() {
        expectCorrupt(SyntheticMedia.mp3(frames: 4, xingFrames: 72_000), as: .mp3, mentioning: "declares 72000 frames but the file holds 4")
        #expect(SyntheticMedia.check(SyntheticMedia.mp3(frames: 4, xingFrames: 4), as: .mp3) == .intact)
    }

    @Test("MP3 and ADTS: zero padding after the last frame is fine (for ADTS from 10 bytes: FFmpeg 5.1's reader fails on 1 to 9)")
    func zeroPadding() {
        #expect(SyntheticMedia.check(SyntheticMedia.mp3() + [UInt8](repeating: 0, count: 300), as: .mp3) == .intact)
        #expect(SyntheticMedia.check(SyntheticMedia.adts() + [UInt8](repeating: 0, count: 10), as: .aacADTS) == .intact)
        expectCorrupt(SyntheticMedia.adts() + [UInt8](repeating: 0, count: 5), as: .aacADTS, mentioning: "fails on 1 to 9 bytes after the last frame")
    }

    @Test("MP3: no frame at the audio offset is corrupt")
    func mp3NoFrame() {
        expectCorrupt([0x00] + SyntheticMedia.mp3(), as: .mp3, mentioning: "no MPEG audio frame header at byte 0")
    }

    // MARK: ADTS, FLAC, Ogg

    @Test("ADTS: garbage between frames, or a cut-off last frame, is corrupt")
    func adtsGarbage() {
        expectCorrupt(SyntheticMedia.adtsFrame() + [0, 0] + SyntheticMedia.adtsFrame(), as: .aacADTS, mentioning: "no ADTS frame sync at byte 20")
        expectCorrupt(Array(SyntheticMedia.adts().dropLast(3)), as: .aacADTS, mentioning: "truncated")
    }

    @Test("FLAC: a STREAMINFO of the wrong size is corrupt")
    func flacBadStreamInfo() {
        var bytes = SyntheticMedia.flac()
        bytes[7] = 30
        expectCorrupt(bytes, as: .flac, mentioning: "not a 34-byte STREAMINFO")
    }

    @Test("FLAC: whole frames missing at the end, against the STREAMINFO total, is truncated")
    func flacFramesMissing() {
        expectCorrupt(SyntheticMedia.flac(frames: 2, totalSamples: 3 * 4096), as: .flac, mentioning: "ends at sample 8192 but STREAMINFO declares 12288")
    }

    @Test("FLAC: an unknown total (streamed encoder) is not held against the file")
    func flacUnknownTotal() {
        #expect(SyntheticMedia.check(SyntheticMedia.flac(frames: 3, totalSamples: 0), as: .flac) == .intact)
    }

    @Test("FLAC: a last frame cut off, or followed by junk, is corrupt; an ID3v1 tag after it is fine")
    func flacLastFrameEnd() {
        expectCorrupt(Array(SyntheticMedia.flac().dropLast(3)), as: .flac, mentioning: "the last frame is cut off")
        expectCorrupt(SyntheticMedia.flac() + [1, 2, 3], as: .flac, mentioning: "the last frame is cut off")
        let id3v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        #expect(SyntheticMedia.check(SyntheticMedia.flac() + id3v1, as: .flac) == .intact)
    }

    @Test("FLAC: a first frame header failing its CRC-8 is corrupt")
    func flacBadFrameHeader() {
        var bytes = SyntheticMedia.flac()
        bytes[45] ^= 0x10  // channel assignment of the first frame
        expectCorrupt(bytes, as: .flac, mentioning: "fails its CRC-8")
    }

    @Test("FLAC: no frame sync after the metadata is corrupt")
    func flacNoFrameSync() {
        var bytes = SyntheticMedia.flac()
        bytes[42] = 0x00
        expectCorrupt(bytes, as: .flac, mentioning: "no FLAC frame sync at byte 42")
    }

    @Test("FLAC: 32-bit samples are a codec FFmpeg 5.1 cannot decode (unsupported-codec, named), not damage (issue 29); 24-bit is read")
    func flac32Bit() {
        var bytes = SyntheticMedia.flac()
        // STREAMINFO's body starts at byte 8; bits per sample - 1 sit in the low bit of byte 12 and
        // the high nibble of byte 13.
        bytes[8 + 12] |= 0x01
        bytes[8 + 13] = 0xF0 | bytes[8 + 13] & 0x0F
        #expect(SyntheticMedia.check(bytes, as: .flac) == StructureVerdict.cannotDecode("32-bit FLAC"))
        bytes[8 + 13] = 0x70 | bytes[8 + 13] & 0x0F
        #expect(SyntheticMedia.check(bytes, as: .flac) != StructureVerdict.cannotDecode("32-bit FLAC"))
    }

    @Test("Ogg: a flipped byte breaks the page CRC")
    func oggCRC() {
        var bytes = SyntheticMedia.ogg()
        bytes[30] ^= 0x20
        expectCorrupt(bytes, as: .ogg, mentioning: "CRC mismatch in the page at byte 0")
    }

    @Test("Ogg: a stream whose last page lacks the end-of-stream flag is recoverable, saying which page (with junk before it, both are said); a BOS-only page stream with EOS is intact")
    func oggWithoutEndOfStream() {
        let first = SyntheticMedia.oggPage(flags: 0x02, sequence: 0, body: [1, 2, 3])
        let second = SyntheticMedia.oggPage(flags: 0, sequence: 1, body: [4, 5, 6])
        let end = "the last page of logical stream 4660 (page 1, at byte \(first.count)) has no end-of-stream flag: the stream stops without its end (cut at a page boundary, or never finished); every page there is whole"
        #expect(SyntheticMedia.check(first + second, as: .ogg) == .recoverable(reason: end))
        #expect(SyntheticMedia.check(first + second + [7], as: .ogg)
                == .recoverable(reason: "1 junk byte after the last Ogg page at byte \(first.count + second.count); " + end))
        #expect(SyntheticMedia.check(SyntheticMedia.oggPage(flags: 0x06, sequence: 0, body: [1]), as: .ogg) == .intact)
    }

    @Test("Ogg: a page of a logical stream no BOS page began (its serial number changed mid-file) is corrupt; a second stream that begins with BOS is not")
    func oggStreamNeverBegun() {
        let first = SyntheticMedia.oggPage(flags: 0x02, sequence: 0, body: [1, 2, 3])
        let stray = SyntheticMedia.oggPage(flags: 0x04, sequence: 1, body: [4, 5, 6], serial: 0xABCD)
        expectCorrupt(first + stray, as: .ogg, mentioning: "page 1 at byte \(first.count) belongs to logical stream 43981, which no beginning-of-stream page began")
        let begun = SyntheticMedia.oggPage(flags: 0x06, sequence: 0, body: [4, 5, 6], serial: 0xABCD)
        let end = SyntheticMedia.oggPage(flags: 0x04, sequence: 1, body: [7])
        #expect(SyntheticMedia.check(first + begun + end, as: .ogg) == .intact)
    }

    @Test("Ogg: junk after the last page or between pages is recoverable; junk before the first page is corrupt")
    func oggTrailingGarbage() {
        let ogg = SyntheticMedia.ogg()
        #expect(SyntheticMedia.check(ogg + [1, 2, 3, 4], as: .ogg) == .recoverable(reason: "4 junk bytes after the last Ogg page at byte \(ogg.count)"))
        let first = SyntheticMedia.oggPage(flags: 0x02, sequence: 0, body: [1, 2, 3])
        let second = SyntheticMedia.oggPage(flags: 0x04, sequence: 1, body: [4, 5, 6])
        #expect(SyntheticMedia.check(first + [9, 9] + second, as: .ogg) == .recoverable(reason: "2 junk bytes between Ogg pages at byte \(first.count)"))
        expectCorrupt([1, 2] + ogg, as: .ogg, mentioning: "no Ogg page at byte 0")
    }

    @Test("Ogg: a first page without the BOS flag is corrupt")
    func oggNoBOS() {
        let bytes = SyntheticMedia.oggPage(flags: 0, sequence: 0, body: [1, 2, 3])
        expectCorrupt(bytes, as: .ogg, mentioning: "BOS")
    }
}
