/// PNG layout through ``PNGChunks/walk(_:verifyCRC:)``: the signature, a 13-byte `IHDR` first,
/// every chunk inside the file with a matching CRC, and an `IEND` chunk (none means truncated).
/// Bytes after `IEND` are ignored, as decoders do.
enum PNGStructure {
    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        let summary = PNGChunks.walk(reader, verifyCRC: true)
        if let problem = summary.problem { return .corrupt(reason: problem) }
        guard summary.sawIDAT else { return .corrupt(reason: "no IDAT chunk: the PNG holds no image data") }
        return .intact
    }
}
