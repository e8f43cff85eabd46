/// PNG layout through ``PNGChunks/walk(_:verifyCRC:)``: the signature, a 13-byte `IHDR` first,
/// every chunk inside the file with a matching CRC, and an `IEND` chunk (none means truncated).
/// Bytes after `IEND` are ignored, as decoders do. The image data are inflated too, each
/// animation frame's on its own (``PNGFrameRows``): rows and checksum, which the decoders that
/// show them do not check.
enum PNGStructure {
    static func check(_ reader: borrowing FileReader, maxPixels: Int64) -> StructureVerdict {
        let summary = PNGChunks.walk(reader, verifyCRC: true)
        if let problem = summary.problem { return .corrupt(reason: problem) }
        guard summary.sawIDAT else { return .corrupt(reason: "no IDAT chunk: the PNG holds no image data") }
        // An acTL past 2^31 - 1 frames is invalid: decoders show the still image (Pillow, libpng).
        let declared = summary.animationFrames.flatMap { $0 <= Int(Int32.max) ? $0 : nil } ?? 0
        return PNGFrameRows.check(reader, declaredFrames: declared, maxPixels: maxPixels)
    }
}
