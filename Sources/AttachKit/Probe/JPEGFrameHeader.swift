/// A JPEG's frame header (`SOFn`: precision, size, components and their sampling factors) and the
/// component count of its first scan (`SOS`), read by walking the marker segments from `SOI`; no
/// entropy-coded data is read. Tells how libjpeg will decode it: streaming row by row, or with
/// the whole image's coefficients in memory.
struct JPEGFrameHeader: Sendable, Equatable {
    struct Component: Sendable, Equatable {
        let horizontal: Int
        let vertical: Int
    }

    /// The `SOFn` marker code (`C0` baseline ... `CF`).
    let marker: UInt8
    /// Bits per sample (8, 12; 2...16 for lossless).
    let precision: Int
    let width: Int
    let height: Int
    let components: [Component]
    /// Components in the first scan; `nil` when no scan header was found.
    let firstScanComponents: Int?
    /// Whether a `DHP` segment (a hierarchical file's progression) came before the first scan.
    var definesHierarchy = false

    /// Marker segments walked before giving up (APPn, DQT, DHT... come before the first scan).
    static let maximumSegments = 1024

    /// Progressive DCT (`SOF2`, `SOF6`, `SOF10`, `SOF14`).
    var progressive: Bool { [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) }
    /// Lossless (`SOF3`, `SOF7`, `SOF11`, `SOF15`).
    var lossless: Bool { [0xC3, 0xC7, 0xCB, 0xCF].contains(marker) }
    /// Arithmetic entropy coding (`SOF9`–`SOF11`, `SOF13`–`SOF15`) instead of Huffman's.
    var arithmetic: Bool { marker >= 0xC9 }
    /// Hierarchical: differential frames (`SOF5`–`SOF7`, `SOF13`–`SOF15`) or a `DHP` segment.
    var hierarchical: Bool { [0xC5, 0xC6, 0xC7, 0xCD, 0xCE, 0xCF].contains(marker) || definesHierarchy }

    /// The library here that decodes this coding process, `nil` for none: libvips' libjpeg-turbo
    /// 2.1 reads 8-bit DCT JPEG, Huffman or arithmetic (not lossless, not hierarchical, not 12-bit:
    /// that build has no 12-bit decoder); FFmpeg 5.1's MJPEG decoder reads Huffman-coded JPEG that
    /// is not hierarchical, DCT at 8 or 12 bits and lossless (it answers "unsupported coding type"
    /// to arithmetic coding). Measured on files `jpegtran -arithmetic` and `ffmpeg -c:v ljpeg` write.
    var decoder: PictureDecoder? {
        if hierarchical { return nil }
        if precision == 8, !lossless { return .libvips }
        return arithmetic ? nil : .ffmpeg
    }

    /// The libraries that may decode a picture.
    enum PictureDecoder: Sendable { case libvips, ffmpeg }

    /// The coding process of this frame header by name: ``processName(marker:)``, hierarchical
    /// when a `DHP` segment says so.
    var process: String {
        definesHierarchy && !hierarchical ? "hierarchical " + Self.processName(marker: Int(marker)) : Self.processName(marker: Int(marker))
    }

    /// The coding process an `SOFn` marker names (ITU-T T.81 Table B.1): `baseline`, `extended
    /// sequential`, `progressive`, `lossless`, prefixed by `hierarchical` for differential frames
    /// and by `arithmetic-coded` for arithmetic coding; then the marker (`SOF9`).
    static func processName(marker: Int) -> String {
        let n = marker - 0xC0
        guard (0...15).contains(n), ![4, 8, 12].contains(n) else { return "SOF marker \(marker)" }
        let differential = [5, 6, 7, 13, 14, 15].contains(n)
        // T.81 names a differential frame's sequential DCT "sequential", the others "extended sequential".
        let kinds = ["baseline", differential ? "sequential" : "extended sequential", "progressive", "lossless"]
        let kind = kinds[n % 4]  // 0 baseline; then 1, 2, 3 by the low bits (4, 8, 12 are not frames)
        return (n >= 9 ? "arithmetic-coded " : "") + (differential ? "hierarchical " : "") + kind + " (SOF\(n))"
    }

    /// Whether libjpeg keeps every coefficient of the image until the last scan (its
    /// `has_multiple_scans`, jdinput.c): a progressive JPEG, or a sequential one whose first scan
    /// does not carry every component. Otherwise it decodes one MCU row at a time.
    var buffersWholeImage: Bool {
        progressive || (firstScanComponents.map { $0 < components.count } ?? false)
    }

    /// Bytes of libjpeg's whole-image coefficient buffer (jdcoefct.c, one virtual array per
    /// component): 64 coefficients × 2 bytes (`JCOEF`) per 8×8 block, with each component's block
    /// counts rounded up to its sampling factors. DCT scaling (shrink-on-load) does not shrink it:
    /// the scale only changes the inverse DCT's output. About 3 B/px at 4:2:0, 6 B/px at 4:4:4.
    var coefficientBytes: Int64 {
        let hMax = components.map(\.horizontal).max() ?? 1, vMax = components.map(\.vertical).max() ?? 1
        return components.reduce(Int64(0)) { total, c in
            let blocksWide = Self.roundUp(Self.divideUp(Int64(width) * Int64(c.horizontal), Int64(8 * hMax)), Int64(c.horizontal))
            let blocksHigh = Self.roundUp(Self.divideUp(Int64(height) * Int64(c.vertical), Int64(8 * vMax)), Int64(c.vertical))
            return total + blocksWide * blocksHigh * 64 * 2
        }
    }

    /// The frame header of the JPEG in `reader`, or `nil` when the walk finds no `SOFn` with a
    /// size (a broken file: the structure check reports it).
    static func read(_ reader: borrowing FileReader) -> JPEGFrameHeader? {
        var window = ByteWindow(capacity: 1 << 14)
        guard window.byte(at: 0, in: reader) == 0xFF, window.byte(at: 1, in: reader) == 0xD8 else { return nil }
        var position: Int64 = 2
        var frame: (marker: UInt8, bytes: [UInt8])?
        var hierarchy = false
        for _ in 0..<maximumSegments {
            guard window.byte(at: position, in: reader) == 0xFF else { break }
            var codeOffset = position + 1
            while window.byte(at: codeOffset, in: reader) == 0xFF { codeOffset += 1 }
            guard let code = window.byte(at: codeOffset, in: reader) else { break }
            position = codeOffset + 1
            if code == 0x01 || (0xD0...0xD7).contains(code) { continue }
            let length = Int64(window.bytes(at: position, count: 2, in: reader).be16(0))
            guard length >= 2 else { break }
            if (0xC0...0xCF).contains(code), ![0xC4, 0xC8, 0xCC].contains(code) {
                frame = (code, window.bytes(at: position, count: Int(min(length, 2 + 6 + 3 * 255)), in: reader))
            }
            if code == 0xDE { hierarchy = true }
            if code == 0xDA || code == 0xD9 {
                let scan = code == 0xDA ? Int(window.bytes(at: position + 2, count: 1, in: reader).u8(0)) : nil
                return frame.flatMap { make(marker: $0.marker, segment: $0.bytes, firstScan: scan, hierarchy: hierarchy) }
            }
            position += length
        }
        return frame.flatMap { make(marker: $0.marker, segment: $0.bytes, firstScan: nil, hierarchy: hierarchy) }
    }

    /// From the `SOFn` segment (length, precision, height, width, count, then 3 bytes per component).
    private static func make(marker: UInt8, segment: [UInt8], firstScan: Int?, hierarchy: Bool) -> JPEGFrameHeader? {
        let count = Int(segment.u8(7))
        guard segment.count >= 8 + 3 * count, count > 0 else { return nil }
        let components = (0..<count).map { i -> Component in
            let factors = segment.u8(8 + 3 * i + 1)
            return Component(horizontal: max(1, Int(factors >> 4)), vertical: max(1, Int(factors & 0x0F)))
        }
        let height = Int(segment.be16(3)), width = Int(segment.be16(5))
        guard width > 0, height > 0 else { return nil }
        return JPEGFrameHeader(marker: marker, precision: Int(segment.u8(2)), width: width, height: height,
                               components: components, firstScanComponents: firstScan, definesHierarchy: hierarchy)
    }

    private static func divideUp(_ a: Int64, _ b: Int64) -> Int64 { (a + b - 1) / b }
    private static func roundUp(_ a: Int64, _ b: Int64) -> Int64 { divideUp(a, b) * b }
}
