/// Pictures FFmpeg's decoders read without noticing that the data stops early (they fill the rest
/// with black): the checks that tell a whole file from a truncated one, from the header alone.
enum RasterStructure {
    /// QOI (qoiformat.org specification): a 14-byte header (`qoif`, width and height big-endian,
    /// channels 3 or 4, colour space 0 or 1) and a stream that ends with the 8-byte marker
    /// `00 00 00 00 00 00 00 01`. A file without its end marker was cut off.
    static func checkQOI(_ reader: borrowing FileReader) -> StructureVerdict {
        let header = reader.read(at: 0, count: 14)
        guard header.count == 14, header.matches("qoif", at: 0) else { return .corrupt(reason: "no QOI header") }
        guard header.be32(4) > 0, header.be32(8) > 0 else { return .corrupt(reason: "QOI declares \(header.be32(4))x\(header.be32(8)) pixels") }
        guard [3, 4].contains(header[12]), header[13] <= 1 else {
            return .corrupt(reason: "QOI declares \(header[12]) channels and colour space \(header[13])")
        }
        guard reader.size >= 22, reader.read(at: reader.size - 8, count: 8) == [0, 0, 0, 0, 0, 0, 0, 1] else {
            return .corrupt(reason: "the QOI stream has no end marker: the file was cut off (truncated)")
        }
        return .intact
    }

    /// Sun raster (`rasterfile.h`): a 32-byte big-endian header (magic `59 A6 6A 95`, width,
    /// height, depth, data length, type, colour map type and length) then the colour map and the
    /// data. For uncompressed types (0 old, 1 standard, 3 RGB) the rows, padded to 16 bits, must
    /// all be in the file; for run-length coded data, the length the header declares.
    static func checkSunRaster(_ reader: borrowing FileReader) -> StructureVerdict {
        let header = reader.read(at: 0, count: 32)
        guard header.count == 32, header.matches([0x59, 0xA6, 0x6A, 0x95], at: 0) else {
            return .corrupt(reason: "the Sun raster header is cut off")
        }
        let (width, height, depth) = (Int64(header.be32(4)), Int64(header.be32(8)), Int64(header.be32(12)))
        let (length, type, mapLength) = (Int64(header.be32(16)), header.be32(20), Int64(header.be32(28)))
        guard width > 0, height > 0, [1, 8, 24, 32].contains(depth) else {
            return .corrupt(reason: "Sun raster declares \(width)x\(height) pixels at \(depth) bits")
        }
        // Uncompressed rows have a known size; run-length coded data (type 2) has the header's
        // length (0 in old files: then the decoder judges).
        let rowBytes = (width * depth + 15) / 16 * 2
        let needed = 32 + mapLength + ([0, 1, 3].contains(type) ? rowBytes * height : length)
        guard needed <= reader.size else {
            return .corrupt(reason: "\(width)x\(height) pixels at \(depth) bits need \(needed) bytes but the file has \(reader.size) (truncated)")
        }
        return .intact
    }
}
