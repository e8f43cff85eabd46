/// MPEG audio (MP3, and layers I/II) layout, from the first frame (after any ID3v2 tag):
/// - every frame follows the previous one directly, with the same MPEG version, layer and sample
///   rate. Tags (ID3v2, APEv2, ID3v1, Lyrics3) are skipped, wherever they sit, and zero bytes from
///   the last frame to the end are padding. Junk before the first frame or after the last one
///   (no run of ``AudioSync/framesToResync`` frames follows it), and a last frame cut off by the
///   end of the file, are stepped over as players do and make the file recoverable
///   (``SkippedBytes``: a copy leaves them out). Junk between frames is corrupt: bytes inserted
///   into a frame cannot be told from bytes after it, and that frame is damaged.
/// - only the last frame may be cut off by the end of the file (decoders drop it; files in the
///   wild end that way, e.g. mutagen's `xing.mp3` test file): a frame that is followed by
///   anything but the end of the file must be complete.
/// - a Xing/Info or VBRI header in the first frame must not declare much more than the file holds:
///   more than 10% (plus 2) more frames than counted, or more than 10% (plus 4 KiB) more bytes
///   than the frames occupy, is corrupt (a header copied from a longer file, or a cut-off file).
enum MPEGAudioStructure {
    /// What a walk over the frames found.
    struct Walk {
        var frames: Int64 = 0
        var frameBytes: Int64 = 0
        /// Decoded samples per channel the whole frames hold, and their rate.
        var samples: Int64 = 0
        var sampleRate = 0
        var skipped = SkippedBytes()
        /// Why the frames are broken (`nil` when they are not).
        var problem: String?
    }

    static func check(_ reader: borrowing FileReader, from start: Int64) -> StructureVerdict {
        let walked = walk(reader, from: start)
        if let problem = walked.problem { return .corrupt(reason: problem) }
        let declared = VBRHeader(reader, frameAt: start)
        if let declaredFrames = declared.frames, declaredFrames > walked.frames + walked.frames / 10 + 2 {
            return .corrupt(reason: "the \(declared.name) header declares \(declaredFrames) frames but the file holds \(walked.frames)")
        }
        if let declaredBytes = declared.bytes, declaredBytes > walked.frameBytes + walked.frameBytes / 10 + 4096 {
            return .corrupt(reason: "the \(declared.name) header declares \(declaredBytes) bytes of audio but the frames hold \(walked.frameBytes)")
        }
        return walked.skipped.verdict
    }

    /// The seconds the whole frames from `start` last, counted frame by frame (`nil` when they are
    /// broken, or there are none): exact where libavformat estimates a stream without a Xing/VBRI
    /// header from its first frame's bitrate (a variable-bitrate 10 s file read as 40 s).
    static func duration(_ reader: borrowing FileReader, from start: Int64) -> Double? {
        let walked = walk(reader, from: start)
        guard walked.problem == nil, walked.sampleRate > 0, walked.frames > 0 else { return nil }
        return Double(walked.samples) / Double(walked.sampleRate)
    }

    /// Walks the frames from `start` to the trailing tags (see the type's rules).
    static func walk(_ reader: borrowing FileReader, from start: Int64) -> Walk {
        var walked = Walk()
        var window = ByteWindow()
        let first = window.bytes(at: start, count: 4, in: reader)
        guard let firstFrame = MPEGAudioFrame(first, at: 0) else {
            walked.problem = "no MPEG audio frame header at byte \(start)"
            return walked
        }
        walked.sampleRate = firstFrame.sampleRate
        let audioEnd = AudioTagStructure.trailingTagsStart(reader, floor: start)
        let tagsEnd = AudioSync.tagsEnd(reader)
        if start > tagsEnd { walked.skipped.add(at: tagsEnd, count: start - tagsEnd, "before the first frame") }
        var position = start
        var lastFrame = start
        walk: while position < audioEnd {
            let header = window.bytes(at: position, count: 4, in: reader)
            if let frame = MPEGAudioFrame(header, at: 0), sameStream(header, first) {
                let length = Int64(frame.length)
                guard length <= audioEnd - position else {
                    // The file ends inside its last frame: decoders drop that frame and play the
                    // rest; a copy leaves it out.
                    walked.skipped.add(at: position, count: audioEnd - position,
                                       "in a last frame cut short (\(audioEnd - position) of \(length) bytes)", junk: false)
                    break walk
                }
                lastFrame = position
                position += length
                walked.frames += 1
                walked.frameBytes += length
                walked.samples += Int64(frame.samplesPerFrame)
            } else if let tag = AudioTagStructure.tagLength(reader, at: position), tag <= audioEnd - position {
                position += tag
            } else if StructureChecker.isZeroFilled(reader, from: position, to: audioEnd) {
                break  // Zero padding up to the end (or the trailing tags).
            } else {
                // Junk after the last frame is left out of a copy. Between frames it is not: bytes
                // inserted into a frame look the same as bytes after it, and that frame is damaged.
                guard let next = resync(reader, after: walked.frames > 0 ? lastFrame : position, like: first, end: audioEnd) else {
                    walked.skipped.add(at: position, count: audioEnd - position, "after the last frame")
                    break walk
                }
                walked.problem = next > position
                    ? "no frame sync at byte \(position) after \(walked.frames) frame(s): garbage between frames (the next frame is at byte \(next))"
                    : "the frame at byte \(lastFrame) is cut short: the next frame starts at byte \(next), inside it (\(walked.frames) frame(s) before it)"
                return walked
            }
        }
        return walked
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
