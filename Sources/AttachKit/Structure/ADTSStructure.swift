/// Raw AAC (ADTS) layout, from the first frame (after any ID3v2 tag): every frame follows the
/// previous one directly with the same MPEG version, profile and sample rate, the last frame is
/// complete, and nothing but tags (ID3v2, APEv2, ID3v1, Lyrics3) sits between or after frames
/// (zero bytes from the last frame to the end are padding).
enum ADTSStructure {
    /// What a walk over the frames found.
    struct Walk {
        /// The first frame's header (`nil` when there is no frame at the start).
        var first: ADTSFrame?
        var frames: Int64 = 0
        /// Bytes the whole frames occupy, headers included.
        var frameBytes: Int64 = 0
        /// PCM samples per channel the frames hold at the core rate (1024 per raw data block).
        var samples: Int64 = 0
        /// The most raw data blocks one frame declares beyond its first (0 in every encoder's output).
        var extraRawDataBlocks = 0
        /// Why the frames are broken (`nil` when they are not).
        var problem: String?
        /// The walk stopped at its frame cap before the end of the audio (nothing known past it).
        var capped = false
    }

    static func check(_ reader: borrowing FileReader, from start: Int64) -> StructureVerdict {
        let walked = walk(reader, from: start)
        if let problem = walked.problem { return .corrupt(reason: problem) }
        return .intact
    }

    /// Walks the frames from `start` to the trailing tags (see the type's rules), reading each
    /// frame's header only (in place in a 64 KiB ``ByteWindow``: one `pread` for every few dozen
    /// frames, an ADTS frame being at most 8 KiB; the headers are never copied out), and stops with a problem at the first frame
    /// that breaks them. Stops after `maximumFrames` frames (``Walk/capped``) when given;
    /// default none.
    static func walk(_ reader: borrowing FileReader, from start: Int64, maximumFrames: Int64? = nil) -> Walk {
        var walked = Walk()
        var window = ByteWindow()
        let first = window.bytes(at: start, count: 7, in: reader)
        guard let firstFrame = ADTSFrame(first, at: 0) else {
            walked.problem = "no ADTS frame header at byte \(start)"
            return walked
        }
        walked.first = firstFrame
        let audioEnd = AudioTagStructure.trailingTagsStart(reader, floor: start)
        var position = start
        while position < audioEnd {
            if let maximumFrames, walked.frames >= maximumFrames {
                walked.capped = true
                break
            }
            let header = window.view(at: position, count: 7, in: reader)
            if let frame = ADTSFrame(header.bytes, at: header.index), sameStream(header.bytes, at: header.index, as: first) {
                let length = Int64(frame.length)
                guard length <= audioEnd - position else {
                    walked.problem = "frame \(walked.frames + 1) at byte \(position) needs \(length) bytes but the audio ends at byte \(audioEnd) (truncated)"
                    return walked
                }
                position += length
                walked.frames += 1
                walked.frameBytes += length
                walked.samples += Int64(frame.samples)
                walked.extraRawDataBlocks = max(walked.extraRawDataBlocks, frame.rawDataBlocks)
            } else if let tag = AudioTagStructure.tagLength(reader, at: position), tag <= audioEnd - position {
                position += tag
            } else if StructureChecker.isZeroFilled(reader, from: position, to: audioEnd) {
                break  // Zero padding up to the end (or the trailing tags).
            } else {
                walked.problem = "no ADTS frame sync at byte \(position) after \(walked.frames) frame(s): garbage between frames"
                return walked
            }
        }
        return walked
    }

    /// MPEG version, profile and sample-rate index of the header at `i` in `a` match the first frame's.
    private static func sameStream(_ a: [UInt8], at i: Int, as first: [UInt8]) -> Bool {
        a.u8(i + 1) & 0x08 == first.u8(1) & 0x08 && a.u8(i + 2) & 0xFC == first.u8(2) & 0xFC
    }
}
