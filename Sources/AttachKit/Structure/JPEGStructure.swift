/// JPEG layout: `SOI`, then marker segments whose lengths stay inside the file, a frame header
/// (`SOFn`) before the first scan (`SOS`), each scan's entropy-coded data (with `FF00` stuffing and
/// `RSTn` markers) running to the next marker, and finally `EOI`.
///
/// A missing `EOI` means the file was cut short. Bytes after `EOI` are allowed: Ultra HDR and MPF
/// files append a second JPEG (the gain map or a preview) there.
///
/// An arithmetic-coded JPEG cut short with its `EOI` put back has every marker right, and libjpeg
/// decodes it without a warning (zeros stand in for the missing data, T.81 D.2.6): a sequential
/// one is decoded too (``arithmeticDataCheck(_:maxPixels:)``) when it is at most `maxPixels` large.
enum JPEGStructure {
    /// - Parameter whole: what `reader` holds, as the messages name its end: "the file", or "the
    ///   preview" for a camera raw's embedded JPEG read through a window.
    static func check(_ reader: borrowing FileReader, maxPixels: Int64, whole: String = "the file") -> StructureVerdict {
        let verdict = checkMarkers(reader, whole: whole)
        guard case .intact = verdict else { return verdict }
        return arithmeticDataCheck(reader, maxPixels: maxPixels)
    }

    /// Bytes per row of blocks, before a scan's data ran out, from which the data are taken for
    /// cut: ``arithmeticDataCheck(_:maxPixels:)``.
    static let detailedRowBytes = 16

    /// Decodes a sequential arithmetic-coded JPEG's scan (libjpeg-turbo at 1/8 scale) and calls it
    /// cut when its data reach a marker with at least two rows of blocks left after rows that took
    /// at least ``detailedRowBytes`` each.
    ///
    /// An encoder drops its final zero bytes (libjpeg drops them all), and a run of blocks that
    /// are exactly flat codes to zero bytes, so a synthetic picture whose last rows are one flat
    /// colour legitimately ends early (a 1280×720 grey fill is 5 bytes of data for 45 rows); a
    /// picture with detail does not, unless its last two rows of blocks or more are exactly one
    /// colour (a letterbox bar): such a file is taken for cut, the one way this check errs. The same cannot be told for a progressive file's refinement
    /// scans (a detailed top over a smooth bottom ends them early), so those are not judged, nor
    /// are other JPEGs or pictures over `maxPixels`: ``StructureVerdict/intact`` here.
    static func arithmeticDataCheck(_ reader: borrowing FileReader, maxPixels: Int64) -> StructureVerdict {
        guard let frame = JPEGFrameHeader.read(reader), frame.arithmetic, !frame.progressive, frame.decoder == .libvips,
              Int64(frame.width) * Int64(frame.height) <= maxPixels else { return .intact }
        let scan: JPEGEntropyScan
        do {
            scan = try JPEGEntropyScan.scan(reader.read(at: 0, count: Int(reader.size)))
        } catch {
            return .corrupt(reason: "the arithmetic-coded data do not decode (libjpeg-turbo: \(error.message))")
        }
        guard let early = scan.earlyMarker, early.rowsAfter >= 2,
              early.scanBytes >= detailedRowBytes * max(1, early.rowsBefore) else { return .intact }
        let rows = early.rowsBefore + early.rowsAfter
        return .corrupt(reason: "the arithmetic-coded data stop after \(early.rowsBefore) of the picture's \(rows) rows of blocks (\(early.scanBytes) bytes): the file was cut, and decoders fill the rest from no data")
    }

    private static func checkMarkers(_ reader: borrowing FileReader, whole: String) -> StructureVerdict {
        var window = ByteWindow()
        guard window.byte(at: 0, in: reader) == 0xFF, window.byte(at: 1, in: reader) == 0xD8 else {
            return .corrupt(reason: "no JPEG SOI marker at byte 0")
        }
        var position: Int64 = 2
        var sawFrame = false
        while true {
            guard let lead = window.byte(at: position, in: reader) else {
                return .corrupt(reason: "no EOI marker: \(whole) ends at byte \(reader.size) (truncated)")
            }
            guard lead == 0xFF else {
                return .corrupt(reason: "expected a JPEG marker at byte \(position), found \(hex(lead))")
            }
            // Any number of 0xFF fill bytes may precede the marker code.
            let markerOffset = position
            var codeOffset = position + 1
            while window.byte(at: codeOffset, in: reader) == 0xFF { codeOffset += 1 }
            guard let code = window.byte(at: codeOffset, in: reader) else {
                return .corrupt(reason: "no EOI marker: \(whole) ends at byte \(reader.size) (truncated)")
            }
            position = codeOffset + 1
            switch code {
            case 0xD9:
                return sawFrame ? .intact : .corrupt(reason: "EOI at byte \(markerOffset) before any frame header (SOF)")
            case 0xD8:
                return .corrupt(reason: "a second SOI marker at byte \(markerOffset) inside the image")
            case 0x00:
                return .corrupt(reason: "invalid marker FF00 at byte \(markerOffset) outside entropy-coded data")
            case 0x01, 0xD0...0xD7:
                continue  // TEM and RSTn stand alone: no length field.
            default:
                break
            }
            let lengthBytes = window.bytes(at: position, count: 2, in: reader)
            guard lengthBytes.count == 2 else {
                return .corrupt(reason: "marker \(name(code)) at byte \(markerOffset) has no length: \(whole) ends (truncated)")
            }
            let length = Int64(lengthBytes.be16(0))
            guard length >= 2 else {
                return .corrupt(reason: "marker \(name(code)) at byte \(markerOffset) has an invalid length \(length)")
            }
            guard length <= reader.size - position else {
                return .corrupt(reason: "segment \(name(code)) at byte \(markerOffset) needs \(length) bytes but \(whole) ends at byte \(reader.size) (truncated)")
            }
            if isFrameHeader(code) {
                let sof = window.bytes(at: position, count: 8, in: reader)
                let components = Int64(sof.u8(7))
                guard length >= 8, sof.count == 8, components > 0, length >= 8 + 3 * components else {
                    return .corrupt(reason: "frame header \(name(code)) at byte \(markerOffset) is malformed (length \(length))")
                }
                guard sof.be16(5) > 0 else {
                    return .corrupt(reason: "frame header \(name(code)) at byte \(markerOffset) declares a zero width")
                }
                sawFrame = true
            }
            position += length
            if code == 0xDA {
                guard sawFrame else {
                    return .corrupt(reason: "scan (SOS) at byte \(markerOffset) comes before any frame header (SOF)")
                }
                guard let next = nextMarker(reader, from: position) else {
                    return .corrupt(reason: "entropy-coded data from byte \(position) runs to the end of \(whole) (byte \(reader.size)) with no EOI (truncated)")
                }
                position = next
            }
        }
    }

    /// The offset of the first marker at or after `offset` in entropy-coded data: a 0xFF not
    /// followed by 0x00 (stuffing), 0xD0...0xD7 (restart markers) or a 0xFF (a fill byte: the
    /// marker is the last 0xFF of the run). `nil` when the file ends first.
    static func nextMarker(_ reader: borrowing FileReader, from offset: Int64) -> Int64? {
        var found: Int64?
        var pendingFF: Int64?
        reader.scan(from: offset) { chunkOffset, chunk in
            chunk.withUnsafeBufferPointer { bytes in
                var i = 0
                if let pending = pendingFF {
                    pendingFF = nil
                    if endsEntropyData(bytes[0]) { found = pending; return false }
                    // A fill byte: the 0xFF after it starts the marker (or stuffing) itself.
                    i = bytes[0] == 0xFF ? 0 : 1
                }
                while i < bytes.count {
                    if bytes[i] == 0xFF {
                        guard i + 1 < bytes.count else {
                            pendingFF = chunkOffset + Int64(i)
                            return true
                        }
                        if endsEntropyData(bytes[i + 1]) { found = chunkOffset + Int64(i); return false }
                        i += bytes[i + 1] == 0xFF ? 1 : 2
                    } else {
                        i += 1
                    }
                }
                return true
            }
        }
        return found
    }

    /// Whether the byte after a 0xFF in entropy-coded data makes it a real marker: not stuffing
    /// (0x00), not a restart marker (0xD0...0xD7), and not another 0xFF (T.81 B.1.1.2: any
    /// marker, a restart marker too, may be preceded by 0xFF fill bytes).
    private static func endsEntropyData(_ next: UInt8) -> Bool {
        next != 0x00 && next != 0xFF && !(0xD0...0xD7).contains(next)
    }

    /// SOF0...SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    static func isFrameHeader(_ code: UInt8) -> Bool {
        (0xC0...0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC
    }

    private static func name(_ code: UInt8) -> String {
        switch code {
        case 0xDA: return "SOS"
        case 0xC4: return "DHT"
        case 0xDB: return "DQT"
        case 0xDD: return "DRI"
        case 0xFE: return "COM"
        case 0xE0...0xEF: return "APP\(code - 0xE0)"
        case _ where isFrameHeader(code): return "SOF\(code - 0xC0)"
        default: return "FF" + String(code, radix: 16, uppercase: true)
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        "0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }
}
