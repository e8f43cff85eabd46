/// Picture sizes AttachKit reads itself when no decoder here gives them: TGA (nothing here decodes
/// it) and BMP headers FFmpeg's BMP decoder does not take (``BMPHeader/ffmpegRefusal``). Such a
/// picture is identified at its right size, and refused as `unsupported` when it is prepared.
enum PictureHeaderFallback {
    /// Fills the size, frame count and codec of `info` from the file's own header; `false` when the
    /// format has no fallback or its header gives no size.
    static func read(_ reader: borrowing FileReader, into info: inout MediaInfo) -> Bool {
        switch info.container {
        case .tga:
            // 18-byte header: width and height at 12 and 14, bits per pixel at 16 (TGA 2.0 spec).
            let header = reader.read(at: 0, count: 18)
            guard header.count == 18, header.le16(12) > 0, header.le16(14) > 0 else { return false }
            (info.width, info.height) = (Int(header.le16(12)), Int(header.le16(14)))
            info.hasAlpha = header[16] == 32
        case .bmp:
            guard let header = BMPHeader(reader.read(at: 0, count: 54)), header.ffmpegRefusal != nil,
                  header.width > 0, header.height != 0 else { return false }
            (info.width, info.height) = (Int(clamping: header.width), Int(clamping: abs(header.height)))
        default:
            return false
        }
        info.frames = 1
        info.codec = Codec(info.container.rawValue)
        return true
    }
}
