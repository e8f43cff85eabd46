/// Walks a PNG's chunks (length, type, data, CRC) from the signature to `IEND`.
///
/// Used by the probe (APNG frame count and duration from `acTL`/`fcTL`) and by the structure check
/// (every chunk inside the file, CRCs right, `IHDR` first, `IEND` present).
struct PNGChunks {
    struct Chunk {
        let type: String
        /// Offset of the chunk's data.
        let dataOffset: Int64
        let length: Int
    }

    /// What a walk found.
    struct Summary {
        var chunks = 0
        var sawIHDR = false
        var sawIEND = false
        var sawIDAT = false
        /// `acTL` num_frames when the PNG is animated.
        var animationFrames: Int?
        /// Sum of the `fcTL` frame delays, seconds.
        var animationDuration: Double = 0
        /// The first problem met, if any.
        var problem: String?
    }

    /// Walks the file. With `verifyCRC` every chunk's data is read and checked (linear in the file
    /// size); without it only chunk headers and the animation chunks are read.
    static func walk(_ reader: borrowing FileReader, verifyCRC: Bool) -> Summary {
        var summary = Summary()
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard reader.read(at: 0, count: 8) == signature else {
            summary.problem = "bad PNG signature"
            return summary
        }
        var offset: Int64 = 8
        while offset < reader.size {
            let header = reader.read(at: offset, count: 8)
            guard header.count == 8 else {
                summary.problem = "truncated chunk header at byte \(offset)"
                return summary
            }
            let length = Int64(header.be32(0))
            let type = header.ascii(4, 4)
            guard length <= 0x7FFF_FFFF else {
                summary.problem = "chunk \(type.debugDescription) at byte \(offset) claims \(length) bytes"
                return summary
            }
            guard type.utf8.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }) else {
                summary.problem = "invalid chunk type at byte \(offset)"
                return summary
            }
            let end = offset + 12 + length
            guard end <= reader.size else {
                summary.problem = "chunk \(type) at byte \(offset) needs \(length) bytes but the file ends at \(reader.size) (truncated)"
                return summary
            }
            if summary.chunks == 0, type != "IHDR" || length != 13 {
                summary.problem = "the first chunk is \(type), not a 13-byte IHDR"
                return summary
            }
            summary.chunks += 1
            switch type {
            case "IHDR": summary.sawIHDR = true
            case "IDAT": summary.sawIDAT = true
            case "acTL":
                let data = reader.read(at: offset + 8, count: 8)
                if !summary.sawIDAT { summary.animationFrames = Int(data.be32(0)) }
            case "fcTL":
                let data = reader.read(at: offset + 8, count: 26)
                let numerator = Double(data.be16(20))
                var denominator = Double(data.be16(22))
                if denominator == 0 { denominator = 100 }
                summary.animationDuration += numerator / denominator
            default: break
            }
            if verifyCRC {
                var crc = CRC32.update(0, Array(type.utf8))
                var remaining = length
                var position = offset + 8
                while remaining > 0 {
                    let piece = reader.read(at: position, count: Int(min(remaining, 1 << 16)))
                    crc = CRC32.update(crc, piece)
                    remaining -= Int64(piece.count)
                    position += Int64(piece.count)
                }
                let stored = reader.read(at: offset + 8 + length, count: 4).be32(0)
                guard stored == crc else {
                    summary.problem = "CRC mismatch in chunk \(type) at byte \(offset)"
                    return summary
                }
            }
            offset = end
            if type == "IEND" {
                summary.sawIEND = true
                return summary
            }
        }
        summary.problem = "no IEND chunk: the file ends at byte \(reader.size) (truncated)"
        return summary
    }
}
