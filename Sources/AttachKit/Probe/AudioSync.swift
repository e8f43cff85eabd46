/// Finds where elementary audio (MPEG audio layers I–III, ADTS AAC, AC-3, E-AC-3, DTS, or FLAC
/// behind tags) starts: after every ID3v2 tag (they may chain), at the first of several
/// consecutive frame headers.
///
/// Frame sync is two bytes, weak evidence on its own, so a frame counts only with frames after it:
/// at the very start (or right after the tags) the next frame must follow, unless the file ends
/// first; further in — past junk some writers leave before the first frame — ``framesToResync``
/// consecutive frames must agree, as FFmpeg's own mp3 probe asks for several. Random bytes and
/// text never pass that.
enum AudioSync {
    /// How far past the tags the first frame is looked for: 1 MiB, as far as FFmpeg's format
    /// probe reads (a 100 kB binary prefix before an MP3 is found; it is junk the structure check
    /// reports as recoverable).
    static let window = 1 << 20
    /// Consecutive frames that must follow each other for a frame found after junk.
    static let framesToResync = 3
    /// ID3v2 tags skipped at most (each one is a read).
    static let maximumTags = 64

    /// Where the chain of ID3v2 tags at the start of the file ends (0 without a tag). Each tag's
    /// size is a synchsafe integer; the footer flag adds 10 bytes.
    static func tagsEnd(_ reader: borrowing FileReader) -> Int64 {
        var offset: Int64 = 0
        for _ in 0..<maximumTags {
            guard reader.read(at: offset, count: 3).matches("ID3", at: 0),
                  let length = AudioTagStructure.tagLength(reader, at: offset), length <= reader.size - offset else { break }
            offset += length
        }
        return offset
    }

    /// The elementary audio format and the offset of its first frame, or `nil`.
    static func find(_ reader: borrowing FileReader) -> (container: Container, offset: Int64)? {
        let start = tagsEnd(reader)
        if start > 0, reader.read(at: start, count: 4).matches("fLaC", at: 0) { return (.flac, start) }
        // Right after the tags one frame is enough (as before: a tag vouches for audio); at byte 0
        // the next frame must follow.
        if let container = chain(reader, at: start, required: start > 0 ? 1 : 2) { return (container, start) }
        let bytes = reader.read(at: start, count: window)
        for i in bytes.indices where bytes[i] == 0xFF || bytes[i] == 0x0B || bytes[i] == 0x7F {
            guard frame(Array(bytes[i..<min(i + 16, bytes.count)])) != nil else { continue }
            if let container = chain(reader, at: start + Int64(i), required: framesToResync) {
                return (container, start + Int64(i))
            }
        }
        return nil
    }

    /// The format when `required` frames of one stream follow each other from `position`. The
    /// chain may stop early at the end of the file or a trailing tag, after at least one frame
    /// (two when resynchronising).
    private static func chain(_ reader: borrowing FileReader, at position: Int64, required: Int) -> Container? {
        let minimumBeforeEnd = required >= framesToResync ? 2 : 1
        var position = position
        var stream: (container: Container, key: [UInt8])?
        var count = 0
        while count < required {
            let header = reader.read(at: position, count: 16)
            guard let found = frame(header), stream == nil || (found.container == stream?.container && found.key == stream?.key) else {
                let ended = position >= reader.size || header.matches("TAG", at: 0) || header.matches("APETAGEX", at: 0)
                return ended && count >= minimumBeforeEnd ? stream?.container : nil
            }
            stream = stream ?? (found.container, found.key)
            count += 1
            position += Int64(found.length)
            if position >= reader.size, count >= minimumBeforeEnd { return found.container }
        }
        return stream?.container
    }

    /// The frame header at the start of `h`: its format, length, and the bits that stay the same
    /// through one stream.
    private static func frame(_ h: [UInt8]) -> (container: Container, length: Int, key: [UInt8])? {
        if let mpeg = MPEGAudioFrame(h, at: 0) {
            return (mpeg.layer == 3 ? .mp3 : .mp2, mpeg.length, [h[1] & 0x1E, h[2] & 0x0C])
        }
        if let adts = ADTSFrame(h, at: 0) { return (.aacADTS, adts.length, [h[2] & 0x3C]) }
        if let ac3 = AC3Frame(h, at: 0) { return (ac3.enhanced ? .eac3 : .ac3, ac3.length, [h[4] >> 6]) }
        if let dts = DTSFrame(h, at: 0) { return (.dts, dts.length, []) }
        return nil
    }
}
