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
        guard let header = TIFFHeader(reader.read(at: 0, count: 16)),
              let ifd0 = header.directory(reader, at: header.firstIFD, limit: maximumEntries) else { return nil }
        var layout = TIFFLayout()
        for entry in ifd0.entries where [256, 257, 258, 277, 278, 322, 323].contains(entry.tag) {
            // SHORT, LONG, LONG8 (BitsPerSample of an RGB picture: the first of three).
            guard [3, 4, 16].contains(entry.type), let first = header.number(reader, entry) else { continue }
            let number = Int(min(first, UInt64(Int32.max)))
            switch entry.tag {
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
