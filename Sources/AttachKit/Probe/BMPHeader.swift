/// A BMP file header and the fields of its DIB header that say what the picture is, for every
/// DIB header size in use: OS/2 1.x (12 bytes), OS/2 2.x (16 or 64), `BITMAPINFOHEADER` (40),
/// `BITMAPV2INFOHEADER` (52), `BITMAPV3INFOHEADER` (56), `BITMAPV4HEADER` (108) and
/// `BITMAPV5HEADER` (124).
struct BMPHeader {
    /// The DIB header sizes that exist.
    static let dibSizes: Set<Int64> = [12, 16, 40, 52, 56, 64, 108, 124]
    /// The DIB header sizes FFmpeg 5.1's BMP decoder takes (`libavcodec/bmp.c`): not 16 or 52.
    static let ffmpegDIBSizes: Set<Int64> = [12, 40, 56, 64, 108, 124]

    let dibSize: Int64
    let width: Int64
    /// Negative for top-down rows.
    let height: Int64
    let planes: UInt32
    let bitCount: UInt32
    /// `BI_RGB` (0) unless a header of 40 bytes or more says otherwise.
    let compression: UInt32
    /// Where the pixel rows start.
    let pixelOffset: Int64

    /// The header at the start of `bytes` (at least 26 bytes, 54 for the long headers), or `nil`
    /// without the `BM` signature or with a DIB header size that does not exist.
    init?(_ bytes: [UInt8]) {
        guard bytes.matches("BM", at: 0), bytes.count >= 26 else { return nil }
        dibSize = Int64(bytes.le32(14))
        guard Self.dibSizes.contains(dibSize) else { return nil }
        pixelOffset = Int64(bytes.le32(10))
        if dibSize == 12 {
            (width, height) = (Int64(bytes.le16(18)), Int64(bytes.le16(20)))
            (planes, bitCount, compression) = (bytes.le16(22), bytes.le16(24), 0)
        } else {
            (width, height) = (Int64(Int32(bitPattern: bytes.le32(18))), Int64(Int32(bitPattern: bytes.le32(22))))
            (planes, bitCount) = (bytes.le16(26), bytes.le16(28))
            compression = dibSize >= 40 ? bytes.le32(30) : 0
        }
    }

    /// What FFmpeg's BMP decoder cannot take in this header, `nil` when it reads it.
    var ffmpegRefusal: String? {
        guard !Self.ffmpegDIBSizes.contains(dibSize) else { return nil }
        let name = dibSize == 52 ? "BITMAPV2INFOHEADER" : "OS/2 2.x"
        return "BMP with a \(dibSize)-byte \(name) header is not read here (FFmpeg 5.1's BMP decoder does not take it)"
    }
}
