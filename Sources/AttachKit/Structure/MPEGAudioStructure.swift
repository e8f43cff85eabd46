/// MPEG audio (MP3, and layers I/II) layout, from the first frame (after any ID3v2 tag):
/// - every frame follows the previous one directly, with the same MPEG version, layer and sample
///   rate. Tags (ID3v2, APEv2, ID3v1, Lyrics3) are skipped, wherever they sit, and zero bytes from
///   the last frame to the end are padding. Junk before the first frame, between frames (up to
///   the next run of ``AudioSync/framesToResync`` frames) or after the last one is stepped over as
///   players do, and makes the file recoverable (``SkippedBytes``); but where the next frame
///   starts inside the previous one, that frame was cut short: corrupt.
/// - the last frame may be cut off by the end of the file (decoders drop it; valid files in the
///   wild end that way, e.g. mutagen's `xing.mp3` test file), but only the last: a frame that is
///   followed by anything but the end of the file must be complete.
/// - a Xing/Info or VBRI header in the first frame must not declare much more than the file holds:
///   more than 10% (plus 2) more frames than counted, or more than 10% (plus 4 KiB) more bytes
///   than the frames occupy, is corrupt (a header copied from a longer file, or a cut-off file).
enum MPEGAudioStructure {
    static func check(_ reader: borrowing FileReader, from start: Int64) -> StructureVerdict {
        var window = ByteWindow()
        let first = window.bytes(at: start, count: 4, in: reader)
        guard MPEGAudioFrame(first, at: 0) != nil else {
            return .corrupt(reason: "no MPEG audio frame header at byte \(start)")
        }
        let declared = VBRHeader(reader, frameAt: start)
        let audioEnd = AudioTagStructure.trailingTagsStart(reader, floor: start)
        var skipped = SkippedBytes()
        let tagsEnd = AudioSync.tagsEnd(reader)
        if start > tagsEnd { skipped.add(at: tagsEnd, count: start - tagsEnd, "before the first frame") }
        var position = start
        var lastFrame = start
        var frames: Int64 = 0
        var frameBytes: Int64 = 0
        walk: while position < audioEnd {
            let header = window.bytes(at: position, count: 4, in: reader)
            if let frame = MPEGAudioFrame(header, at: 0), sameStream(header, first) {
                let length = Int64(frame.length)
                guard length <= audioEnd - position else {
                    // The file ends inside its last frame: decoders drop that frame and play the rest.
                    break walk
                }
                lastFrame = position
                position += length
                frames += 1
                frameBytes += length
            } else if let tag = AudioTagStructure.tagLength(reader, at: position), tag <= audioEnd - position {
                position += tag
            } else if StructureChecker.isZeroFilled(reader, from: position, to: audioEnd) {
                break  // Zero padding up to the end (or the trailing tags).
            } else {
                // Junk: players look for the next run of frames, so does this walk.
                guard let next = resync(reader, after: frames > 0 ? lastFrame : position, like: first, end: audioEnd) else {
                    skipped.add(at: position, count: audioEnd - position, "after the last frame")
                    break walk
                }
                guard next > position else {
                    return .corrupt(reason: "the frame at byte \(lastFrame) is cut short: the next frame starts at byte \(next), inside it (\(frames) frame(s) before it)")
                }
                skipped.add(at: position, count: next - position, "between frames")
                position = next
            }
        }
        if let declaredFrames = declared.frames, declaredFrames > frames + frames / 10 + 2 {
            return .corrupt(reason: "the \(declared.name) header declares \(declaredFrames) frames but the file holds \(frames)")
        }
        if let declaredBytes = declared.bytes, declaredBytes > frameBytes + frameBytes / 10 + 4096 {
            return .corrupt(reason: "the \(declared.name) header declares \(declaredBytes) bytes of audio but the frames hold \(frameBytes)")
        }
        return skipped.verdict
    }

    /// The first offset after `position` where ``AudioSync/framesToResync`` frames of the stream
    /// `first` began follow each other (or fewer that end exactly at `end`), or `nil`. Reads
    /// 64 KiB at a time.
    static func resync(_ reader: borrowing FileReader, after position: Int64, like first: [UInt8], end: Int64) -> Int64? {
        var from = position + 1
        while from < end {
            let piece = reader.read(at: from, count: Int(min(1 << 16, end - from)))
            guard piece.count >= 4 else { return nil }
            for i in 0...(piece.count - 4) where piece[i] == 0xFF && piece[i + 1] & 0xE0 == 0xE0 {
                if chains(reader, at: from + Int64(i), like: first, end: end) { return from + Int64(i) }
            }
            from += Int64(piece.count - 3)
        }
        return nil
    }

    /// Whether ``AudioSync/framesToResync`` frames of the stream `first` began follow each other
    /// from `position`, or fewer that end exactly at `end`.
    private static func chains(_ reader: borrowing FileReader, at position: Int64, like first: [UInt8], end: Int64) -> Bool {
        var position = position
        for _ in 0..<AudioSync.framesToResync {
            if position == end { return true }
            let header = reader.read(at: position, count: 4)
            guard let frame = MPEGAudioFrame(header, at: 0), sameStream(header, first), Int64(frame.length) <= end - position else { return false }
            position += Int64(frame.length)
        }
        return true
    }

    /// Version, layer and sample-rate bits match the first frame (a stream does not change them).
    private static func sameStream(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.u8(1) & 0x1E == b.u8(1) & 0x1E && a.u8(2) & 0x0C == b.u8(2) & 0x0C
    }

    /// The frame and byte counts a VBR header (Xing/Info or VBRI) in the first frame declares.
    struct VBRHeader {
        var name = ""
        var frames: Int64?
        var bytes: Int64?

        init(_ reader: borrowing FileReader, frameAt offset: Int64) {
            let frame = reader.read(at: offset, count: 64)
            guard frame.count >= 4 else { return }
            let mpeg1 = (frame[1] >> 3) & 0x03 == 3
            let mono = frame[2 + 1] >> 6 == 3
            let sideInfo = mpeg1 ? (mono ? 17 : 32) : (mono ? 9 : 17)
            let hasCRC = frame[1] & 0x01 == 0
            for candidate in [4 + sideInfo, 4 + sideInfo + (hasCRC ? 2 : 0)] {
                guard frame.matches("Xing", at: candidate) || frame.matches("Info", at: candidate) else { continue }
                name = frame.ascii(candidate, 4)
                let flags = frame.be32(candidate + 4)
                var field = candidate + 8
                if flags & 0x1 != 0, field + 4 <= frame.count {
                    frames = Int64(frame.be32(field))
                    field += 4
                }
                if flags & 0x2 != 0, field + 4 <= frame.count {
                    bytes = Int64(frame.be32(field))
                }
                return
            }
            if frame.matches("VBRI", at: 36), frame.count >= 54 {
                name = "VBRI"
                bytes = Int64(frame.be32(46))
                frames = Int64(frame.be32(50))
            }
        }
    }
}
