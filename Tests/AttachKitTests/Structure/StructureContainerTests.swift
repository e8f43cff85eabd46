import Testing
@testable import AttachKit

/// ISO base media (MP4, HEIF), Matroska, transport stream and AVI layout problems.
@Suite("Structure: containers")
struct StructureContainerTests {
    // MARK: ISO base media

    @Test("MP4: an mdat running past the end of the file, with no sample table to vouch for its samples, is truncated")
    func mp4MdatPastEnd() {
        expectCorrupt(SyntheticMedia.mp4(mdatClaim: 100_000), as: .mp4, mentioning: "the 'mdat' box at byte 140 claims more bytes than the file holds")
    }

    @Test("MP4: a 64-bit largesize mdat is read as such")
    func mp4LargeSize() {
        #expect(SyntheticMedia.check(SyntheticMedia.mp4(largeSize: true), as: .mp4) == .intact)
        expectCorrupt(SyntheticMedia.mp4(mdatClaim: 1 << 40, largeSize: true), as: .mp4, mentioning: "claims more bytes than the file holds")
    }

    @Test("MPEG-TS: a last packet cut short is recoverable when it carries no media (null PID, service information, adaptation only), corrupt when it carries media")
    func transportStreamCutPacket() {
        let whole = SyntheticMedia.transportStream()
        guard case .recoverable(let reason) = SyntheticMedia.check(whole + whole.prefix(100), as: .mpegTS) else {
            Issue.record("a cut null packet: \(SyntheticMedia.check(whole + whole.prefix(100), as: .mpegTS))")
            return
        }
        #expect(reason.contains("100 of 188 bytes"), "\(reason)")
        let media: [UInt8] = [0x47, 0x41, 0x00, 0x10] + [UInt8](repeating: 0xAB, count: 96)
        expectCorrupt(whole + media, as: .mpegTS, mentioning: "has 100 of 188 bytes (truncated)")
        expectCorrupt(whole + [0x47, 0x1F], as: .mpegTS, mentioning: "has 2 of 188 bytes (truncated)")
    }

    @Test("MP4: size 0 means the last box runs to the end of the file")
    func mp4SizeZero() {
        #expect(SyntheticMedia.check(SyntheticMedia.mp4(sizeZero: true), as: .mp4) == .intact)
    }

    @Test("MP4: a movie without moov is corrupt")
    func mp4NoMoov() {
        let bytes = SyntheticMedia.box("ftyp", Array("isom".utf8) + [0, 0, 0, 0]) + SyntheticMedia.box("mdat", [1, 2, 3])
        expectCorrupt(bytes, as: .mp4, mentioning: "without a 'moov' box")
    }

    @Test("MP4: a child box larger than its parent is corrupt")
    func mp4ChildPastParent() {
        var bytes = SyntheticMedia.mp4()
        bytes.replaceSubrange(32..<36, with: SyntheticMedia.be32(5000))  // mvhd inside moov (moov at 24)
        expectCorrupt(bytes, as: .mp4, mentioning: "box 'mvhd' at byte 32 claims 5000 bytes but its parent ends at byte 140")
    }

    @Test("MP4: stray bytes after the last box are corrupt, a few zero bytes of padding are not")
    func mp4StrayBytes() {
        expectCorrupt(SyntheticMedia.mp4() + [1, 2, 3], as: .mp4, mentioning: "3 stray byte(s)")
        #expect(SyntheticMedia.check(SyntheticMedia.mp4() + [0, 0, 0, 0], as: .mp4) == .intact)
    }

    @Test("MOV: a QuickTime-style meta (no version and flags) at the top level is walked as such")
    func quickTimeMeta() {
        let hdlr = SyntheticMedia.box("hdlr", [0, 0, 0, 0] + SyntheticMedia.be32(0) + Array("mdta".utf8) + [UInt8](repeating: 0, count: 13))
        let keys = SyntheticMedia.box("keys", [0, 0, 0, 0] + SyntheticMedia.be32(0))
        let meta = SyntheticMedia.box("meta", hdlr + keys)
        #expect(SyntheticMedia.check(SyntheticMedia.mp4() + meta, as: .mov) == .intact)
    }

    @Test("HEIF: an item extent past the end of the file is truncated")
    func heifExtentPastEnd() {
        expectCorrupt(SyntheticMedia.heif(extentExtra: 500), as: .heic, mentioning: "item 1 has an extent of 532 bytes")
    }

    @Test("HEIF: an image without meta is corrupt")
    func heifNoMeta() {
        let bytes = SyntheticMedia.box("ftyp", Array("heicmif1".utf8)) + SyntheticMedia.box("mdat", [1, 2, 3])
        expectCorrupt(bytes, as: .heic, mentioning: "without a 'meta' box")
    }

    // MARK: Matroska

    @Test("Matroska: unknown Segment and Cluster sizes (live recordings) are fine")
    func matroskaUnknownSizes() {
        #expect(SyntheticMedia.check(SyntheticMedia.matroska(unknownSizes: true), as: .webm) == .intact)
    }

    @Test("Matroska: a Segment larger than the file is truncated")
    func matroskaSegmentPastEnd() {
        let bytes = SyntheticMedia.matroska() + [UInt8](repeating: 0, count: 0)
        expectCorrupt(Array(bytes.dropLast(4)), as: .webm, mentioning: "Segment at byte")
    }

    @Test("Matroska: a declared duration far beyond the last block is content cut short")
    func matroskaDurationPastBlocks() {
        expectCorrupt(SyntheticMedia.matroska(durationMs: 10_000), as: .webm, mentioning: "content cut short")
    }

    @Test("Matroska: no EBML header is corrupt")
    func matroskaNoHeader() {
        expectCorrupt(Array(SyntheticMedia.matroska().dropFirst(4)), as: .webm, mentioning: "EBML header")
    }

    // MARK: Transport stream and AVI

    @Test("TS: a lost sync byte is corrupt")
    func transportStreamLostSync() {
        var bytes = SyntheticMedia.transportStream()
        bytes[188 * 2] = 0x00
        expectCorrupt(bytes, as: .mpegTS, mentioning: "no 0x47 at byte 376 (packet 3)")
    }

    @Test("TS: 192-byte packets with a timecode prefix are fine")
    func transportStream192() {
        let packets = (0..<4).flatMap { _ in [0, 0, 0, 0, 0x47, 0x1F, 0xFF, 0x10] + [UInt8](repeating: 0xFF, count: 184) }
        #expect(SyntheticMedia.check(packets, as: .mpegTS) == .intact)
    }

    @Test("AVI: no movi list is corrupt")
    func aviNoMovie() {
        let header = SyntheticMedia.riffChunk("LIST", Array("hdrl".utf8) + SyntheticMedia.riffChunk("avih", [UInt8](repeating: 0, count: 56)))
        expectCorrupt(SyntheticMedia.riff("AVI ", header), as: .avi, mentioning: "without a 'LIST movi'")
    }
}
