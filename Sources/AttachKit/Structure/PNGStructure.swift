/// PNG layout through ``PNGChunks/walk(_:verifyCRC:)``: the signature, a 13-byte `IHDR` first,
/// every chunk inside the file with a matching CRC, and an `IEND` chunk (none means truncated).
/// Bytes after `IEND` are ignored, as decoders do. An animated PNG's frames are inflated too
/// (``APNGFrameRows``): the decoder that shows them does not notice missing rows.
enum PNGStructure {
    static func check(_ reader: borrowing FileReader, maxPixels: Int64) -> StructureVerdict {
        let summary = PNGChunks.walk(reader, verifyCRC: true)
        if let problem = summary.problem { return .corrupt(reason: problem) }
        guard summary.sawIDAT else { return .corrupt(reason: "no IDAT chunk: the PNG holds no image data") }
        // An acTL past 2^31 - 1 frames is invalid: decoders show the still image (Pillow, libpng).
        guard let declared = summary.animationFrames, declared <= Int(Int32.max) else { return .intact }
        return APNGFrameRows.check(reader, declaredFrames: declared, maxPixels: maxPixels)
    }
}
