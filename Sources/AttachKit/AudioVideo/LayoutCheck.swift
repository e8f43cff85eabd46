/// Finds ISO-BMFF movies and sound files that pass validation yet are laid out in a way iOS
/// handles badly, so the ``Preparer`` remuxes them instead of passing them through: the `moov`
/// index after the media data (`mdat`), so the device must read the whole file before it can
/// start playing (faststart puts it first); a fragmented movie whose header declares the unknown
/// duration (all ones), which a player may show as days; a variable-bitrate MP3 without a
/// Xing/VBRI header, whose length players estimate from its first frame. (A sample entry iOS does not read its codec from,
/// HEVC tagged `hev1`, is a validation finding: ``Playability/sampleEntry(codec:tag:in:)``.)
///
/// Fragmented MP4 (`moov` first, then `moof`/`mdat` pairs) is fine as it is.
enum LayoutCheck {
    /// Why the file at `path` should be remuxed, or `nil` when its layout is fine (or it is not
    /// an ISO-BMFF movie or sound file).
    static func remuxReason(path: String, info: MediaInfo) -> String? {
        if info.container == .mp3, let estimated = info.estimatedDuration, let counted = info.duration {
            return "a variable-bitrate MP3 without a Xing header: players estimate about \(ClipText.seconds(estimated)) from its first frame, "
                + "its frames last \(ClipText.seconds(counted)) (the copy carries the header)"
        }
        guard info.kind == .video || info.kind == .audio,
              [.mp4, .m4a, .m4v].contains(info.container) else { return nil }
        if indexFollowsMedia(path: path) { return "the moov index follows the media data" }
        if let reader = try? FileReader(path: path), ISOBMFFSampleTables.read(reader).movieDurationUnknown {
            return "the header declares the unknown duration (a placeholder: the fragments give the real one)"
        }
        return nil
    }

    /// Whether the top-level `moov` box comes after the first `mdat` box.
    static func indexFollowsMedia(path: String) -> Bool {
        guard let reader = try? FileReader(path: path) else { return false }
        var offset: Int64 = 0
        for _ in 0..<64 {
            let header = reader.read(at: offset, count: 16)
            guard header.count >= 8 else { return false }
            var size = Int64(header[0]) << 24 | Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if size == 1, header.count >= 16 {
                size = header[8..<16].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            } else if size == 0 {
                size = reader.size - offset
            }
            if type == "moov" { return false }
            if type == "mdat" { return true }
            guard size >= 8 else { return false }
            offset += size
        }
        return false
    }
}
