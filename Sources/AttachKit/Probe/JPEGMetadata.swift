/// The metadata segments before a JPEG's frame header: where its EXIF (APP1 `Exif\0\0`) segments
/// are and the orientation the first one gives, and whether it embeds an ICC profile (APP2
/// `ICC_PROFILE`). Read for a camera raw's embedded preview, whose orientation the raw's own
/// replaces (``withOrientation(_:_:)``). Walks the marker segments only, like
/// ``JPEGFrameHeader``; never reads entropy-coded data.
struct JPEGMetadata: Sendable, Equatable {
    /// Byte ranges of the APP1 EXIF segments, marker and length included.
    var exifSegments: [Range<Int64>] = []
    /// The orientation (1...8) the first EXIF's IFD0 gives; `nil` without one.
    var orientation: Int?
    var hasICCProfile = false

    /// Segments walked before giving up (as ``JPEGFrameHeader/maximumSegments``).
    static let maximumSegments = JPEGFrameHeader.maximumSegments

    /// The metadata of the JPEG in `reader` (a file, or a ``FileReader/window(at:count:)`` on a
    /// preview); `nil` when it does not start with `SOI`.
    static func read(_ reader: borrowing FileReader) -> JPEGMetadata? {
        var window = ByteWindow(capacity: 1 << 14)
        guard window.byte(at: 0, in: reader) == 0xFF, window.byte(at: 1, in: reader) == 0xD8 else { return nil }
        var metadata = JPEGMetadata()
        var position: Int64 = 2
        for _ in 0..<maximumSegments {
            guard window.byte(at: position, in: reader) == 0xFF else { break }
            var codeOffset = position + 1
            while window.byte(at: codeOffset, in: reader) == 0xFF { codeOffset += 1 }
            guard let code = window.byte(at: codeOffset, in: reader), code != 0xDA, code != 0xD9,
                  !(0xC0...0xCF).contains(code) || [0xC4, 0xC8, 0xCC].contains(code) else { break }
            let length = Int64(window.bytes(at: codeOffset + 1, count: 2, in: reader).be16(0))
            guard length >= 2 else { break }
            let payload = codeOffset + 3
            let signature = window.bytes(at: payload, count: 12, in: reader)
            if code == 0xE1, signature.matches([0x45, 0x78, 0x69, 0x66, 0, 0], at: 0) {
                metadata.exifSegments.append(position..<(payload + length - 2))
                if metadata.orientation == nil, let tiff = reader.window(at: payload + 6, count: length - 8) {
                    metadata.orientation = orientation(tiff)
                }
            }
            if code == 0xE2, signature.matches("ICC_PROFILE", at: 0) { metadata.hasICCProfile = true }
            position = payload + length - 2
        }
        return metadata
    }

    /// IFD0's Orientation (tag 0x0112) of the TIFF structure in `reader`, 1...8; `nil` otherwise.
    static func orientation(_ reader: borrowing FileReader) -> Int? {
        guard let header = TIFFHeader(reader.read(at: 0, count: 16)),
              let ifd0 = header.directory(reader, at: header.firstIFD, limit: 256),
              let value = header.number(reader, ifd0[0x0112]), (1...8).contains(value) else { return nil }
        return Int(value)
    }

    /// `jpeg` with its EXIF segments (this metadata's ``exifSegments``) replaced by one that gives
    /// only `orientation`, right after `SOI`: what a camera raw's preview is decoded from, so the
    /// decoder turns it upright as the raw says.
    func withOrientation(_ jpeg: [UInt8], _ orientation: Int) -> [UInt8] {
        var kept: [UInt8] = []
        kept.reserveCapacity(jpeg.count + 64)
        var from = 2
        for segment in exifSegments where Int(segment.lowerBound) >= from && Int(segment.upperBound) <= jpeg.count {
            kept += jpeg[from..<Int(segment.lowerBound)]
            from = Int(segment.upperBound)
        }
        kept += jpeg[min(from, jpeg.count)...]
        // Big-endian TIFF, IFD0 of one entry: Orientation (0x0112), SHORT, 1 value.
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1,
                             0, UInt8(clamping: orientation), 0, 0, 0, 0, 0, 0]
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + kept
    }
}
