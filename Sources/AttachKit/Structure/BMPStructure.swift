/// BMP layout: the file header, a DIB header of a known size inside the file, a positive width, a
/// non-zero height (negative = top-down rows), each at most 65,536 pixels; one plane; a known bit
/// depth; and the pixel data offset inside the file. For uncompressed pixels (`BI_RGB`,
/// `BI_BITFIELDS`) the rows themselves must fit between that offset and the end of the file.
enum BMPStructure {
    private static let maximumSide: Int64 = 65_536

    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        let bytes = reader.read(at: 0, count: 54)
        guard bytes.matches("BM", at: 0) else { return .corrupt(reason: "no BM signature at byte 0") }
        let dibSize = Int64(bytes.le32(14))
        guard BMPHeader.dibSizes.contains(dibSize) else {
            return .corrupt(reason: "unknown DIB header size \(dibSize)")
        }
        guard 14 + dibSize <= reader.size, let header = BMPHeader(bytes) else {
            return .corrupt(reason: "the \(dibSize)-byte DIB header is cut off: the file has \(reader.size) bytes (truncated)")
        }
        let (width, height, planes, bitCount, compression) = (header.width, header.height, header.planes, header.bitCount, header.compression)
        guard width > 0, width <= maximumSide, height != 0, abs(height) <= maximumSide else {
            return .corrupt(reason: "BMP declares \(width)x\(height) pixels: width must be 1...\(maximumSide) and height non-zero, at most \(maximumSide) either way")
        }
        guard planes == 1 else { return .corrupt(reason: "BMP declares \(planes) colour planes (must be 1)") }
        guard [1, 2, 4, 8, 16, 24, 32, 64].contains(bitCount) || (bitCount == 0 && [4, 5].contains(compression)) else {
            return .corrupt(reason: "BMP declares \(bitCount) bits per pixel")
        }
        let pixelOffset = header.pixelOffset
        guard pixelOffset >= 14 + dibSize, pixelOffset < reader.size else {
            return .corrupt(reason: "the pixel data offset \(pixelOffset) lies outside the file (\(reader.size) bytes) or inside its headers")
        }
        if compression == 0 || compression == 3 || compression == 6 {
            let rowBytes = (width * Int64(bitCount) + 31) / 32 * 4
            let needed = rowBytes * abs(height)
            guard needed <= reader.size - pixelOffset else {
                return .corrupt(reason: "\(width)x\(abs(height)) pixels at \(bitCount) bits need \(needed) bytes from byte \(pixelOffset) but the file ends at byte \(reader.size) (truncated)")
            }
        }
        return .intact
    }
}
