/// RIFF layout (WAV, AVI, WebP) and its 64-bit variants RF64/BW64: the RIFF size against the file
/// size, then a walk of the top-level chunks inside it (each chunk's size inside the RIFF, odd
/// sizes padded to even), then the chunks each form requires:
/// - WAVE: `fmt ` (at least 14 bytes) before `data`; a `data` chunk holding less than one sample
///   frame (`fmt `'s block align; a 0-byte `data`) is refused as "no samples".
/// - AVI: a `LIST hdrl` first and a `LIST movi`.
/// - WEBP: a `VP8 `, `VP8L` or `VP8X` chunk first; an extended (`VP8X`) file also needs image data
///   (`VP8 `, `VP8L` or `ANMF` frames).
/// - QLCM (QCP, RFC 3625): a `fmt ` chunk first, of at least ``QCPHeader/formatBytes``, and a
///   `data` chunk; a `data` chunk of 0 bytes is refused as "no samples".
///
/// Sizes:
/// - RF64/BW64 take the RIFF size and the `data` size from the `ds64` chunk that must come first
///   (the 32-bit fields then hold `0xFFFFFFFF`).
/// - Streaming writers (FFmpeg to a pipe, recorders that never rewrite the header) leave the RIFF
///   size at `0` or `0xFFFFFFFF`. Only in such a file may a chunk with the size `0` or `0xFFFFFFFF`
///   run to the end of the file. With a real RIFF size, a chunk claiming more bytes than the file
///   holds (a WAV "with 4 GB of data" in a small file) is corrupt.
/// - A RIFF size up to 8 bytes past the end of the file is accepted (a last odd-sized chunk
///   without its pad byte; writers that count the 8-byte RIFF header in the size), and so are fewer
///   than 8 zero bytes where no chunk header fits (padding). Chunk sizes are held against the end
///   of the file, so a RIFF size that is too small is not mistaken for damage. Bytes after the
///   RIFF size (AVI `AVIX` extensions, appended tags) are not walked.
enum RIFFStructure {
    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        let header = reader.read(at: 0, count: 12)
        guard header.count == 12 else {
            return .corrupt(reason: "the RIFF header needs 12 bytes but the file has \(reader.size) (truncated)")
        }
        let magic = header.ascii(0, 4), form = header.ascii(8, 4)
        let declared = Int64(header.le32(4))
        var riffEnd: Int64
        var streaming = false
        var largeDataSize: Int64?
        var position: Int64 = 12
        switch magic {
        case "RIFF":
            streaming = declared == 0 || declared == 0xFFFF_FFFF
            riffEnd = streaming ? reader.size : 8 + declared
        case "RF64", "BW64":
            let ds64 = reader.read(at: 12, count: 32)
            guard ds64.count >= 32, ds64.matches("ds64", at: 0), ds64.le32(4) >= 24 else {
                return .corrupt(reason: "\(magic) file without a ds64 chunk at byte 12")
            }
            let riffSize = ds64.le64(8), dataSize = ds64.le64(16)
            guard riffSize <= UInt64(Int64.max - 8), dataSize <= UInt64(Int64.max) else {
                return .corrupt(reason: "the ds64 chunk declares impossible sizes (RIFF \(riffSize), data \(dataSize))")
            }
            riffEnd = 8 + Int64(riffSize)
            largeDataSize = Int64(dataSize)
        default:
            return .corrupt(reason: "no RIFF/RF64 signature at byte 0")
        }
        guard riffEnd <= reader.size + 8 else {
            return .corrupt(reason: "the \(magic) header says the file has \(riffEnd) bytes but it ends at byte \(reader.size) (truncated)")
        }
        let end = min(riffEnd, reader.size)
        var chunks: [String] = []
        var listTypes: [String] = []
        var formatSize: Int64 = 0
        var blockAlign: Int64 = 1
        var data: (offset: Int64, size: Int64)?
        while position < end {
            let chunkHeader = reader.read(at: position, count: 12)
            guard end - position >= 8, chunkHeader.count >= 8 else {
                if StructureChecker.isZeroFilled(reader, from: position, to: end) { break }
                return .corrupt(reason: "\(end - position) stray byte(s) at byte \(position) where a chunk header should be (truncated chunk)")
            }
            let id = chunkHeader.ascii(0, 4)
            guard isChunkID(chunkHeader) else {
                return .corrupt(reason: "invalid chunk id at byte \(position)")
            }
            let raw = Int64(chunkHeader.le32(4))
            var size = raw
            if id == "data", raw == 0xFFFF_FFFF, let largeDataSize { size = largeDataSize }
            let dataStart = position + 8
            let available = reader.size - dataStart
            if size > available {
                guard streaming, raw == 0 || raw == 0xFFFF_FFFF else {
                    return .corrupt(reason: "chunk '\(id)' at byte \(position) claims \(size) bytes but only \(available) remain (the file ends at byte \(reader.size))")
                }
                size = available
            } else if streaming, raw == 0, id == "data" || id == "LIST" && chunkHeader.matches("movi", at: 8) {
                size = available  // A streaming writer's unpatched zero size: the data runs to the end.
            }
            chunks.append(id)
            if id == "LIST" { listTypes.append(chunkHeader.ascii(8, 4)) }
            if id == "fmt " {
                formatSize = size
                let format = reader.read(at: dataStart, count: 14)
                if format.count == 14 { blockAlign = max(1, Int64(format.le16(12))) }
            }
            if id == "data", data == nil { data = (position, size) }
            position = dataStart + size + (size & 1)
        }
        let verdict = requiredChunks(form: form, chunks: chunks, listTypes: listTypes, formatSize: formatSize)
        if form == "QLCM", verdict == .intact, let data, data.size == 0 {
            return .noSamples("the 'data' chunk at byte \(data.offset) holds no speech packet")
        }
        if form == "WAVE", verdict == .intact, let data, data.size < blockAlign {
            return .noSamples("the 'data' chunk at byte \(data.offset) holds \(data.size) byte(s), less than one sample frame (\(blockAlign) bytes)")
        }
        return verdict
    }

    private static func requiredChunks(form: String, chunks: [String], listTypes: [String], formatSize: Int64) -> StructureVerdict {
        switch form {
        case "WAVE":
            guard let format = chunks.firstIndex(of: "fmt ") else { return .corrupt(reason: "WAV without a 'fmt ' chunk") }
            guard let data = chunks.firstIndex(of: "data") else { return .corrupt(reason: "WAV without a 'data' chunk") }
            guard format < data else { return .corrupt(reason: "WAV 'data' chunk comes before 'fmt '") }
            guard formatSize >= 14 else { return .corrupt(reason: "WAV 'fmt ' chunk has only \(formatSize) bytes") }
        case "AVI ":
            guard chunks.first == "LIST", listTypes.first == "hdrl" else { return .corrupt(reason: "AVI without a 'LIST hdrl' header first") }
            guard listTypes.contains("movi") else { return .corrupt(reason: "AVI without a 'LIST movi' chunk") }
        case "WEBP":
            guard let first = chunks.first, ["VP8 ", "VP8L", "VP8X"].contains(first) else {
                return .corrupt(reason: "WebP whose first chunk is not VP8, VP8L or VP8X")
            }
            guard chunks.contains(where: { ["VP8 ", "VP8L", "ANMF"].contains($0) }) else {
                return .corrupt(reason: "extended WebP without image data (no VP8, VP8L or ANMF chunk)")
            }
        case "QLCM":
            guard chunks.first == "fmt " else { return .corrupt(reason: "QCP whose first chunk is not 'fmt '") }
            guard formatSize >= QCPHeader.formatBytes else {
                return .corrupt(reason: "QCP 'fmt ' chunk has \(formatSize) bytes, fewer than the \(QCPHeader.formatBytes) RFC 3625 defines")
            }
            guard chunks.contains("data") else { return .corrupt(reason: "QCP without a 'data' chunk") }
        default:
            return .notChecked
        }
        return .intact
    }

    /// Four printable ASCII characters (spaces allowed).
    private static func isChunkID(_ bytes: [UInt8]) -> Bool {
        (0..<4).allSatisfy { (0x20...0x7E).contains(bytes.u8($0)) }
    }
}
