/// Raw AAC (ADTS) layout, from the first frame (after any ID3v2 tag): every frame follows the
/// previous one directly with the same profile, sample rate and channel configuration (a change
/// is named: an M4A, which prepare writes, holds one configuration, and a frame of another before
/// the first frame is no junk; the MPEG version bit may differ from frame to frame, as no
/// decoder reads it), the last frame is complete, and
/// nothing but tags (ID3v2, APEv2, ID3v1, Lyrics3) sits between or after frames (zero bytes from
/// the last frame to the end are padding). As for MP3 (``MPEGAudioStructure``), junk before the
/// first frame or after the last one (no run of ``AudioSync/framesToResync`` frames follows it)
/// is stepped over as players do and makes the file recoverable (``SkippedBytes``); junk between
/// frames, and a frame cut short by the end of the file, are corrupt.
enum ADTSStructure {
    /// What a walk over the frames found.
    struct Walk {
        /// The first frame's header (`nil` when there is no frame at the start).
        var first: ADTSFrame?
        var frames: Int64 = 0
        /// Bytes the whole frames occupy, headers included.
        var frameBytes: Int64 = 0
        /// PCM samples per channel a full decode by FFmpeg 5.1 outputs at the core rate: 1024 per
        /// raw data block of each frame that holds a channel element (``ADTSPayload``), before
        /// ``primingSamples`` are taken off.
        var samples: Int64 = 0
        /// Frames that decode to nothing: a bare header, or only fill and data elements.
        var silentFrames: Int64 = 0
        /// Of ``silentFrames``, those after the last frame of sound (they move no sound in time).
        var trailingSilentFrames: Int64 = 0
        /// Samples (at the decoded rate) FFmpeg's decoder drops: 1024 for each frame that carries
        /// libfaac's stamp (its encoder delay; two libfaac files joined carry two), else 0.
        var primingSamples: Int64 = 0
        /// The most raw data blocks one frame declares beyond its first (0 in every encoder's output).
        var extraRawDataBlocks = 0
        /// Why the frames are broken (`nil` when they are not).
        var problem: String?
        /// Junk stepped over before the first frame or after the last one.
        var skipped = SkippedBytes()
        /// Of ``skipped``, junk after the last frame: every frame is known before it.
        var junkAfter = false
        /// The walk stopped at its frame cap before the end of the audio (nothing known past it).
        var capped = false
        /// Why FFmpeg 5.1 fails on frames the walk could count (`nil` when it does not): a bare
        /// header (its decoder errors "Input buffer exhausted before END element found"), or 1 to
        /// 9 bytes after the last frame (``unreadableTail(_:)``). The count stays exact (the probe
        /// uses it); the structure check calls the file corrupt.
        var unreadable: String?
    }

    static func check(_ reader: borrowing FileReader, from start: Int64) -> StructureVerdict {
        let walked = walk(reader, from: start)
        if let problem = walked.problem ?? walked.unreadable { return .corrupt(reason: problem) }
        return walked.skipped.verdict
    }

    /// Walks the frames from `start` to the trailing tags (see the type's rules), reading each
    /// frame's header (in place in a 64 KiB ``ByteWindow``: one `pread` for every few dozen
    /// frames, an ADTS frame being at most 8 KiB; nothing is copied out) and the first elements
    /// of its payload (``ADTSPayload``), and stops with a problem at the first frame that breaks
    /// them. Stops after `maximumFrames` frames (``Walk/capped``) when given; default none.
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
        let tagsEnd = AudioSync.tagsEnd(reader)
        if start > tagsEnd {
            if let frameLike = frameLike(reader, from: tagsEnd, to: start) {
                walked.problem = "\(start - tagsEnd) byte(s) before the first frame at byte \(start) are no junk: \(frameLike)"
                return walked
            }
            walked.skipped.add(at: tagsEnd, count: start - tagsEnd, "before the first frame")
        }
        var position = start
        while position < audioEnd {
            if let maximumFrames, walked.frames >= maximumFrames {
                walked.capped = true
                break
            }
            let header = window.view(at: position, count: 7, in: reader)
            let frame = ADTSFrame(header.bytes, at: header.index)
            let change = frame == nil ? nil : change(header.bytes, at: header.index, from: first)
            if let change, chains(reader, at: position, like: Array(header.bytes[header.index..<header.index + 7]), end: audioEnd) {
                // Frames of another rate or profile that chain on: a stream appended, not junk.
                walked.problem = "\(change) at frame \(walked.frames + 1) (byte \(position)): a stream keeps one rate, profile and channel layout (an M4A holds one), so it cannot be copied"
                return walked
            }
            if let frame, change == nil {
                let length = Int64(frame.length)
                guard length <= audioEnd - position else {
                    walked.problem = "frame \(walked.frames + 1) at byte \(position) needs \(length) bytes but the audio ends at byte \(audioEnd) (truncated)"
                    return walked
                }
                count(frame, at: position, in: reader, window: &window, into: &walked)
                position += length
            } else if let tag = AudioTagStructure.tagLength(reader, at: position), tag <= audioEnd - position {
                position += tag
            } else if StructureChecker.isZeroFilled(reader, from: position, to: audioEnd) {
                break  // Zero padding up to the end (or the trailing tags).
            } else if walked.frames > 0, let next = resync(reader, after: position, like: first, end: audioEnd) {
                if let change {
                    // Whole frames of another configuration that do not go on as a stream of it.
                    walked.problem = "a frame where \(change) at byte \(position) after \(walked.frames) frame(s), and the first stream goes on at byte \(next): a stream keeps one rate, profile and channel layout"
                } else {
                    walked.problem = "no ADTS frame sync at byte \(position) after \(walked.frames) frame(s): garbage between frames (the next frame is at byte \(next))"
                }
                return walked
            } else if walked.frames > 0 {
                if let unskippable = unskippableTail(reader, from: position, to: audioEnd) {
                    walked.problem = "\(audioEnd - position) byte(s) after the last frame at byte \(position) that are no frame: \(unskippable)"
                    return walked
                }
                walked.skipped.add(at: position, count: audioEnd - position, "after the last frame")
                walked.junkAfter = true
                position = audioEnd
                break
            } else {
                walked.problem = "no ADTS frame sync at byte \(position)"
                return walked
            }
        }
        if !walked.capped, walked.unreadable == nil, let tail = unreadableTail(reader.size - position) {
            walked.unreadable = "\(reader.size - position) byte(s) after the last frame at byte \(position): \(tail)"
        }
        return walked
    }

    /// Why FFmpeg 5.1's ADTS reader fails on `count` bytes after the last frame (zero padding and
    /// trailing tags included), or `nil`: it reads a 7-byte header, and when that holds no frame
    /// sync 3 more bytes to look for an ID3v2 tag, and fails ("Input/output error") when the file
    /// ends before either read is done, so on 1 to 9 bytes. From 10 on it scans for the next sync
    /// and ends cleanly at the end of the file.
    static func unreadableTail(_ count: Int64) -> String? {
        guard (1...9).contains(count) else { return nil }
        return "FFmpeg 5.1's ADTS reader fails on 1 to 9 bytes after the last frame (it reads 7 for a header, then 3 more for an ID3v2 tag)"
    }

    /// Why bytes `from..<start` before the first frame (at `start`) are not junk a reader
    /// steps over, or `nil` when they are: FFmpeg 5.1's ADTS reader (`adts_aac_read_header`'s
    /// resync) takes the first frame sync (`0xFFF`) from the end of the ID3v2 tags for the first
    /// frame, without checking that another follows. Reads at most the first MiB. A whole header there is named: of another rate or
    /// profile it is a stream of that rate joined in front (prepare would label the M4A with one
    /// rate for both), else a frame that does not lead to the next.
    static func frameLike(_ reader: borrowing FileReader, from: Int64, to start: Int64) -> String? {
        // With the first frame's first byte: a last junk byte 0xFF makes a sync with it.
        let junk = reader.read(at: from, count: Int(min(start - from, 1 << 20)) + 1)
        let firstHeader = reader.read(at: start, count: 7)
        guard let sync = junk.indices.dropLast().first(where: { junk[$0] == 0xFF && junk[$0 + 1] & 0xF0 == 0xF0 }) else { return nil }
        let header = reader.read(at: from + Int64(sync), count: 7)
        if ADTSFrame(header, at: 0) != nil {
            if let change = change(firstHeader, at: 0, from: header) {
                return "an ADTS frame at byte \(from + Int64(sync)), and \(change) at the first frame: a stream keeps one rate, profile and channel layout (an M4A holds one), so it cannot be copied"
            }
            return "an ADTS frame header at byte \(from + Int64(sync)) that does not lead to the next frame, which FFmpeg 5.1's ADTS reader would take for a frame"
        }
        return "a frame sync at byte \(from + Int64(sync)) that FFmpeg 5.1's ADTS reader would take for a frame"
    }

    /// Adds the whole frame `frame` at `position` to `walked`: its bytes, and the samples a
    /// decode outputs for it (none when its payload holds no channel element).
    private static func count(_ frame: ADTSFrame, at position: Int64, in reader: borrowing FileReader, window: inout ByteWindow, into walked: inout Walk) {
        walked.frames += 1
        walked.frameBytes += Int64(frame.length)
        walked.extraRawDataBlocks = max(walked.extraRawDataBlocks, frame.rawDataBlocks)
        var content = (audio: true, libfaac: false)
        if frame.rawDataBlocks == 0 {
            let payload = min(frame.length - frame.headerLength, ADTSPayload.maximumBytes)
            if payload <= 0 {
                content = (false, false)
                if walked.unreadable == nil {
                    walked.unreadable = "frame \(walked.frames) at byte \(position) is a bare header (no payload), on which FFmpeg 5.1's AAC decoder fails (\"Input buffer exhausted before END element found\")"
                }
            } else {
                let bytes = window.view(at: position + Int64(frame.headerLength), count: payload, in: reader)
                content = ADTSPayload.read(bytes.bytes, at: bytes.index, count: min(payload, bytes.bytes.count - bytes.index))
            }
        }
        if content.audio {
            walked.samples += Int64(frame.samples)
            walked.trailingSilentFrames = 0
        } else {
            walked.silentFrames += 1
            walked.trailingSilentFrames += 1
        }
        if content.libfaac { walked.primingSamples += 1024 }
    }

    /// Why FFmpeg 5.1's ADTS reader cannot step over the junk from `position` to `end` after the
    /// last frame (so a copy could not leave it out), or `nil` when it can: it fails on 1 to 9
    /// bytes (``unreadableTail(_:)``), takes a frame sync (`0xFFF`) among the junk for a frame,
    /// and scans at most its probe size (1 MiB here, under FFmpeg's 5 MB) for the next sync.
    static func unskippableTail(_ reader: borrowing FileReader, from position: Int64, to end: Int64) -> String? {
        let count = end - position
        if let short = unreadableTail(reader.size - position) { return short }
        if count > 1 << 20 { return "more than 1 MiB, past what FFmpeg 5.1's ADTS reader scans for a frame" }
        let junk = reader.read(at: position, count: Int(count))
        if let sync = junk.indices.dropLast().first(where: { junk[$0] == 0xFF && junk[$0 + 1] & 0xF0 == 0xF0 }) {
            return "a frame sync at byte \(position + Int64(sync)) that FFmpeg 5.1's ADTS reader would take for a frame"
        }
        return nil
    }

    /// The first offset after `position` where ``AudioSync/framesToResync`` frames of the stream
    /// `first` follow each other (or fewer that end exactly at `end`), or `nil`. Reads 64 KiB at
    /// a time.
    static func resync(_ reader: borrowing FileReader, after position: Int64, like first: [UInt8], end: Int64) -> Int64? {
        var from = position + 1
        while from < end {
            let piece = reader.read(at: from, count: Int(min(1 << 16, end - from)))
            guard piece.count >= 7 else { return nil }
            for i in 0...(piece.count - 7) where piece[i] == 0xFF && piece[i + 1] & 0xF6 == 0xF0 {
                if chains(reader, at: from + Int64(i), like: first, end: end) { return from + Int64(i) }
            }
            from += Int64(piece.count - 6)
        }
        return nil
    }

    /// Whether ``AudioSync/framesToResync`` frames of the stream `first` follow each other from
    /// `position`, or fewer that end exactly at `end`.
    private static func chains(_ reader: borrowing FileReader, at position: Int64, like first: [UInt8], end: Int64) -> Bool {
        var position = position
        for _ in 0..<AudioSync.framesToResync {
            if position == end { return true }
            let header = reader.read(at: position, count: 7)
            guard let frame = ADTSFrame(header, at: 0), change(header, at: 0, from: first) == nil,
                  Int64(frame.length) <= end - position else { return false }
            position += Int64(frame.length)
        }
        return true
    }

    /// What the header at `i` in `a` changes from the first frame's (profile, sample rate,
    /// channel configuration: an M4A's one decoder configuration holds each), named ("the sample
    /// rate changes from 44100 to 48000 Hz"); `nil` when nothing. The MPEG version bit (ID) is not
    /// compared: FFmpeg's ADTS parser and decoder skip it, and an M4A does not keep it, so a
    /// stream that mixes MPEG-2 and MPEG-4 headers decodes and copies as one.
    private static func change(_ a: [UInt8], at i: Int, from first: [UInt8]) -> String? {
        guard let now = ADTSFrame(a, at: i), let was = ADTSFrame(first, at: 0) else { return nil }
        if now.rateIndex != was.rateIndex { return "the sample rate changes from \(was.sampleRate) to \(now.sampleRate) Hz" }
        if now.profile != was.profile { return "the profile changes from AAC \(was.profileName) to AAC \(now.profileName)" }
        if now.channelConfiguration != was.channelConfiguration {
            return "the channel configuration changes from \(was.channelConfiguration) to \(now.channelConfiguration)"
        }
        return nil
    }
}
