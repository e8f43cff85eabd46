/// How the first page of a TIFF stores its pixels (IFD0's tags), which is what libtiff decodes at
/// a time: one strip (`RowsPerStrip` rows; all rows when the tag is absent) or one tile
/// (`TileWidth` × `TileLength`), each of `SamplesPerPixel` × `BitsPerSample` per pixel.
struct TIFFLayout: Sendable, Equatable {
    var width = 0
    var height = 0
    var samplesPerPixel = 1
    var bitsPerSample = 8
    /// Rows per strip (striped files; the image height when one strip holds everything).
    var rowsPerStrip: Int?
    /// Tile size (tiled files).
    var tileWidth: Int?
    var tileHeight: Int?

    /// Bytes of one decoded pixel.
    var bytesPerPixel: Int64 { Int64(max(1, samplesPerPixel)) * Int64(max(1, (bitsPerSample + 7) / 8)) }

    /// Bytes of what libvips reads at a time: a row of tiles (its tile cache holds a row across),
    /// or one strip.
    var unitBytes: Int64 {
        if let tileWidth, let tileHeight, tileWidth > 0, tileHeight > 0 {
            let across = (Int64(width) + Int64(tileWidth) - 1) / Int64(tileWidth)
            return across * Int64(tileWidth) * Int64(tileHeight) * bytesPerPixel
        }
        let rows = min(Int64(height), Int64(rowsPerStrip ?? height))
        return rows * Int64(width) * bytesPerPixel
    }

    /// Entries read from IFD0 at most.
    static let maximumEntries = 4096

    /// IFD0 of the TIFF (or BigTIFF) in `reader`; `nil` when there is none or it gives no size.
    static func read(_ reader: borrowing FileReader) -> TIFFLayout? {
        let head = reader.read(at: 0, count: 16)
        let little = head.matches([0x49, 0x49], at: 0)
        guard little || head.matches([0x4D, 0x4D], at: 0) else { return nil }
        func value(_ bytes: [UInt8], _ i: Int, _ size: Int) -> UInt64 {
            switch size {
            case 1: return UInt64(bytes.u8(i))
            case 2: return UInt64(little ? bytes.le16(i) : bytes.be16(i))
            case 4: return UInt64(little ? bytes.le32(i) : bytes.be32(i))
            default: return little ? bytes.le64(i) : bytes.be64(i)
            }
        }
        let big = value(head, 2, 2) == 43
        let (countSize, entrySize, offsetSize) = big ? (8, 20, 8) : (2, 12, 4)
        let ifd = value(head, big ? 8 : 4, offsetSize)
        guard ifd >= 8, ifd < UInt64(reader.size) else { return nil }
        let count = Int(min(value(reader.read(at: Int64(ifd), count: countSize), 0, countSize), UInt64(maximumEntries)))
        let table = reader.read(at: Int64(ifd) + Int64(countSize), count: count * entrySize)
        var layout = TIFFLayout()
        let fieldSize = big ? 8 : 4
        for k in 0..<(table.count / entrySize) {
            let at = k * entrySize
            let tag = value(table, at, 2)
            guard [256, 257, 258, 277, 278, 322, 323].contains(tag) else { continue }
            let type = Int(value(table, at + 2, 2))
            let valueCount = value(table, at + 4, fieldSize)
            // SHORT (3), LONG (4), LONG8 (16): the first value sits in the entry when all fit
            // there, else at the offset the entry holds (BitsPerSample of an RGB picture).
            let size = type == 3 ? 2 : (type == 16 ? 8 : 4)
            var first = value(table, at + 4 + fieldSize, size)
            if valueCount > UInt64(fieldSize / size) {
                let offset = value(table, at + 4 + fieldSize, fieldSize)
                guard offset < UInt64(reader.size) else { continue }
                first = value(reader.read(at: Int64(offset), count: size), 0, size)
            }
            let number = Int(min(first, UInt64(Int32.max)))
            switch tag {
            case 256: layout.width = number
            case 257: layout.height = number
            case 258: layout.bitsPerSample = number
            case 277: layout.samplesPerPixel = number
            case 278: layout.rowsPerStrip = number
            case 322: layout.tileWidth = number
            case 323: layout.tileHeight = number
            default: break
            }
        }
        return layout.width > 0 && layout.height > 0 ? layout : nil
    }
}
