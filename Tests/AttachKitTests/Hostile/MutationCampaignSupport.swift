import Foundation
@testable import AttachKit

/// A length field found by walking a file's structure: where it is, how it is encoded, what it
/// says, and the bytes of the chunk it sizes (what a duplicate or a removal acts on).
struct LengthField: Sendable {
    enum Encoding: Sendable {
        case bigEndian, littleEndian
        /// EBML variable-size integer (the marker bit stays, the width is kept).
        case ebml
        /// ID3v2 syncsafe integer: 4 bytes, 7 bits each.
        case syncsafe
        /// ADTS `aac_frame_length`: 13 bits starting at bit 6 of the field's third byte.
        case adts
    }

    let format: String
    let offset: Int
    let width: Int
    let encoding: Encoding
    let value: UInt64
    /// The chunk this field sizes (header included), clamped to the file.
    let span: Range<Int>

    /// The largest value the field can hold.
    var maximum: UInt64 {
        switch encoding {
        case .bigEndian, .littleEndian: return width >= 8 ? UInt64.max : (1 << UInt64(8 * width)) - 1
        case .ebml: return (1 << UInt64(7 * width)) - 1
        case .syncsafe: return (1 << 28) - 1
        case .adts: return (1 << 13) - 1
        }
    }

    /// `bytes` with this field set to `newValue` (clamped to ``maximum``).
    func writing(_ newValue: UInt64, into bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        let v = min(newValue, maximum)
        switch encoding {
        case .bigEndian:
            for i in 0..<width { out[offset + i] = UInt8(truncatingIfNeeded: v >> UInt64(8 * (width - 1 - i))) }
        case .littleEndian:
            for i in 0..<width { out[offset + i] = UInt8(truncatingIfNeeded: v >> UInt64(8 * i)) }
        case .ebml:
            let marked = v | (1 << UInt64(7 * width))
            for i in 0..<width { out[offset + i] = UInt8(truncatingIfNeeded: marked >> UInt64(8 * (width - 1 - i))) }
        case .syncsafe:
            for i in 0..<4 { out[offset + i] = UInt8((v >> UInt64(7 * (3 - i))) & 0x7F) }
        case .adts:
            out[offset] = (out[offset] & 0xFC) | UInt8((v >> 11) & 0x03)
            out[offset + 1] = UInt8((v >> 3) & 0xFF)
            out[offset + 2] = (out[offset + 2] & 0x1F) | UInt8((v & 0x07) << 5)
        }
        return out
    }

    var description: String {
        "\(format) length @\(offset) (\(width) B \(encoding), value \(value), chunk \(span.lowerBound)..<\(span.upperBound))"
    }
}

/// Finds the length fields of the formats TestMedia holds, by walking just enough of each
/// structure: ISO-BMFF boxes, PNG chunks, RIFF/AIFF chunks, EBML elements, JPEG segments, GIF
/// sub-blocks, FLAC metadata blocks, Ogg lacing, ID3v2 and ADTS frame sizes, MPEG PES lengths,
/// BMP header sizes. Bounded: at most ``limit`` fields per file.
enum LengthFieldFinder {
    static let limit = 2_000

    static func fields(in b: [UInt8]) -> [LengthField] {
        func starts(_ text: String, at offset: Int = 0) -> Bool {
            let t = Array(text.utf8)
            return b.count >= offset + t.count && Array(b[offset..<offset + t.count]) == t
        }
        var found: [LengthField] = []
        if b.count > 8, b[0] == 0x89, starts("PNG", at: 1) { png(b, &found) }
        else if starts("RIFF") || starts("RF64") { riff(b, from: 0, to: b.count, &found) }
        else if starts("FORM") { aiff(b, &found) }
        else if b.count > 4, b[0] == 0x1A, b[1] == 0x45, b[2] == 0xDF, b[3] == 0xA3 { ebml(b, from: 0, to: b.count, depth: 0, &found) }
        else if b.count > 3, b[0] == 0xFF, b[1] == 0xD8 { jpeg(b, &found) }
        else if starts("GIF8") { gif(b, &found) }
        else if starts("fLaC") { flac(b, from: 4, &found) }
        else if starts("OggS") { ogg(b, &found) }
        else if starts("BM") { bmp(b, &found) }
        else if starts("ftyp", at: 4) { boxes(b, from: 0, to: b.count, depth: 0, &found) }
        else if starts("ID3") { id3(b, &found) }
        else if b.count > 2, b[0] == 0xFF, b[1] & 0xF6 == 0xF0 { adts(b, from: 0, &found) }
        else if b.count > 4, b[0] == 0x47 || (b[0] == 0 && b[1] == 0 && b[2] == 1) { pes(b, &found) }
        return Array(found.prefix(limit))
    }

    static func be(_ b: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
        (0..<width).reduce(0) { $0 << 8 | UInt64(b[at + $1]) }
    }

    static func le(_ b: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
        (0..<width).reversed().reduce(0) { $0 << 8 | UInt64(b[at + $1]) }
    }

    static func span(_ start: Int, _ length: UInt64, in b: [UInt8]) -> Range<Int> {
        start..<Int(min(UInt64(b.count), UInt64(start) + min(length, UInt64(b.count))))
    }

    // ISO-BMFF: 32-bit (or 64-bit) box sizes, into the boxes that hold boxes.
    static let boxParents: [String: Int] = [
        "moov": 8, "trak": 8, "mdia": 8, "minf": 8, "stbl": 8, "edts": 8, "dinf": 8, "udta": 8, "mvex": 8,
        "moof": 8, "traf": 8, "mfra": 8, "iprp": 8, "ipco": 8, "meta": 12, "dref": 16, "stsd": 16,
        "avc1": 86, "hvc1": 86, "hev1": 86, "av01": 86, "mp4v": 86, "mp4a": 36, "alac": 36, "sinf": 8, "wave": 8,
    ]

    static func boxes(_ b: [UInt8], from: Int, to end: Int, depth: Int, _ found: inout [LengthField]) {
        var at = from
        while at + 8 <= end, found.count < limit {
            var size = be(b, at, 4)
            let type = String(decoding: b[at + 4..<at + 8], as: UTF8.self)
            if size == 1, at + 16 <= end {
                size = be(b, at + 8, 8)
                found.append(LengthField(format: "box \(type)", offset: at + 8, width: 8, encoding: .bigEndian, value: size, span: span(at, size, in: b)))
            } else {
                if size == 0 { size = UInt64(end - at) }
                found.append(LengthField(format: "box \(type)", offset: at, width: 4, encoding: .bigEndian, value: size, span: span(at, size, in: b)))
            }
            guard size >= 8, UInt64(at) + size <= UInt64(end) else { return }
            if depth < 8, let header = boxParents[type], header < Int(size) {
                boxes(b, from: at + header, to: at + Int(size), depth: depth + 1, &found)
            }
            at += Int(size)
        }
    }

    static func png(_ b: [UInt8], _ found: inout [LengthField]) {
        var at = 8
        while at + 12 <= b.count, found.count < limit {
            let length = be(b, at, 4)
            let type = String(decoding: b[at + 4..<at + 8], as: UTF8.self)
            found.append(LengthField(format: "png \(type)", offset: at, width: 4, encoding: .bigEndian, value: length, span: span(at, length + 12, in: b)))
            guard length < UInt64(b.count) else { return }
            at += Int(length) + 12
        }
    }

    static func riff(_ b: [UInt8], from: Int, to end: Int, _ found: inout [LengthField]) {
        var at = from
        while at + 8 <= end, found.count < limit {
            let id = String(decoding: b[at..<at + 4], as: UTF8.self)
            let size = le(b, at + 4, 4)
            found.append(LengthField(format: "riff \(id)", offset: at + 4, width: 4, encoding: .littleEndian, value: size, span: span(at, size + 8, in: b)))
            let next = Int(min(UInt64(at) + 8 + size + (size & 1), UInt64(end)))
            if id == "RIFF" || id == "RF64" || id == "LIST" { riff(b, from: at + 12, to: next, &found) }
            guard next > at + 8 || size == 0 else { return }
            at = max(next, at + 8)
        }
    }

    static func aiff(_ b: [UInt8], _ found: inout [LengthField]) {
        found.append(LengthField(format: "aiff FORM", offset: 4, width: 4, encoding: .bigEndian, value: be(b, 4, 4), span: 0..<b.count))
        var at = 12
        while at + 8 <= b.count, found.count < limit {
            let size = be(b, at + 4, 4)
            let id = String(decoding: b[at..<at + 4], as: UTF8.self)
            found.append(LengthField(format: "aiff \(id)", offset: at + 4, width: 4, encoding: .bigEndian, value: size, span: span(at, size + 8, in: b)))
            guard size < UInt64(b.count) else { return }
            at += 8 + Int(size) + Int(size & 1)
        }
    }

    static let ebmlMasters: Set<UInt64> = [
        0x1A45_DFA3, 0x1853_8067, 0x114D_9B74, 0x4DBB, 0x1549_A966, 0x1654_AE6B, 0xAE, 0xE0, 0xE1, 0x1F43_B675,
        0xA0, 0x1C53_BB6B, 0xBB, 0xB7, 0x1254_C367, 0x7373, 0x67C8, 0x63C0, 0x6D80, 0x1941_A469, 0x1043_A770,
    ]

    static func ebml(_ b: [UInt8], from: Int, to end: Int, depth: Int, _ found: inout [LengthField]) {
        var at = from
        while at < end, found.count < limit {
            let idWidth = b[at].leadingZeroBitCount + 1
            guard idWidth <= 4, at + idWidth < end else { return }
            let id = be(b, at, idWidth)
            let sizeAt = at + idWidth
            let sizeWidth = b[sizeAt].leadingZeroBitCount + 1
            guard sizeWidth <= 8, sizeAt + sizeWidth <= end else { return }
            let raw = be(b, sizeAt, sizeWidth) & ((1 << UInt64(7 * sizeWidth)) - 1)
            let unknown = raw == (1 << UInt64(7 * sizeWidth)) - 1
            let dataAt = sizeAt + sizeWidth
            let size = unknown ? UInt64(end - dataAt) : raw
            let name = "ebml 0x" + String(id, radix: 16)
            found.append(LengthField(format: name, offset: sizeAt, width: sizeWidth, encoding: .ebml, value: raw, span: span(at, size + UInt64(dataAt - at), in: b)))
            guard size <= UInt64(end - dataAt) else { return }
            if depth < 6, ebmlMasters.contains(id) { ebml(b, from: dataAt, to: dataAt + Int(size), depth: depth + 1, &found) }
            at = dataAt + Int(size)
        }
    }

    static func jpeg(_ b: [UInt8], _ found: inout [LengthField]) {
        var at = 2
        while at + 4 <= b.count, found.count < limit {
            guard b[at] == 0xFF else { return }
            let marker = b[at + 1]
            if marker == 0xFF { at += 1; continue }
            if marker == 0xD9 { return }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { at += 2; continue }
            let length = be(b, at + 2, 2)
            found.append(LengthField(format: "jpeg FF" + String(marker, radix: 16, uppercase: true), offset: at + 2, width: 2, encoding: .bigEndian,
                                     value: length, span: span(at, length + 2, in: b)))
            at += 2 + Int(length)
            guard marker == 0xDA else { continue }
            // Entropy-coded data: skip to the next marker that is not stuffing or a restart.
            while at + 1 < b.count, !(b[at] == 0xFF && b[at + 1] != 0 && !(0xD0...0xD7).contains(b[at + 1])) { at += 1 }
        }
    }

    static func gif(_ b: [UInt8], _ found: inout [LengthField]) {
        guard b.count > 13 else { return }
        var at = 13 + (b[10] & 0x80 != 0 ? 3 << (Int(b[10] & 7) + 1) : 0)
        func subBlocks(_ found: inout [LengthField]) {
            while at < b.count, b[at] != 0, found.count < limit {
                let length = UInt64(b[at])
                found.append(LengthField(format: "gif sub-block", offset: at, width: 1, encoding: .bigEndian, value: length, span: span(at, length + 1, in: b)))
                at += 1 + Int(length)
            }
            at += 1
        }
        while at < b.count, found.count < limit {
            switch b[at] {
            case 0x21: at += 2; subBlocks(&found)
            case 0x2C:
                guard at + 10 < b.count else { return }
                let local = b[at + 9] & 0x80 != 0 ? 3 << (Int(b[at + 9] & 7) + 1) : 0
                at += 10 + local + 1
                subBlocks(&found)
            default: return
            }
        }
    }

    static func flac(_ b: [UInt8], from: Int, _ found: inout [LengthField]) {
        var at = from
        while at + 4 <= b.count, found.count < limit {
            let length = be(b, at + 1, 3)
            found.append(LengthField(format: "flac block \(b[at] & 0x7F)", offset: at + 1, width: 3, encoding: .bigEndian, value: length, span: span(at, length + 4, in: b)))
            if b[at] & 0x80 != 0 { return }
            at += 4 + Int(length)
        }
    }

    static func ogg(_ b: [UInt8], _ found: inout [LengthField]) {
        var at = 0
        while at + 27 <= b.count, b[at] == 0x4F, found.count < limit {
            let segments = Int(b[at + 26])
            guard at + 27 + segments <= b.count else { return }
            let body = b[at + 27..<at + 27 + segments].reduce(0) { $0 + Int($1) }
            let page = 27 + segments + body
            if segments > 0 {
                found.append(LengthField(format: "ogg lacing", offset: at + 27, width: 1, encoding: .bigEndian, value: UInt64(b[at + 27]), span: span(at, UInt64(page), in: b)))
            }
            at += page
        }
    }

    static func bmp(_ b: [UInt8], _ found: inout [LengthField]) {
        guard b.count > 54 else { return }
        for (name, offset) in [("bfSize", 2), ("bfOffBits", 10), ("biSize", 14), ("biSizeImage", 34)] {
            found.append(LengthField(format: "bmp \(name)", offset: offset, width: 4, encoding: .littleEndian, value: le(b, offset, 4), span: 14..<54))
        }
    }

    static func id3(_ b: [UInt8], _ found: inout [LengthField]) {
        guard b.count > 10 else { return }
        let size = (6..<10).reduce(UInt64(0)) { $0 << 7 | UInt64(b[$1] & 0x7F) }
        found.append(LengthField(format: "id3v2", offset: 6, width: 4, encoding: .syncsafe, value: size, span: span(0, size + 10, in: b)))
    }

    static func adts(_ b: [UInt8], from: Int, _ found: inout [LengthField]) {
        var at = from
        while at + 7 <= b.count, b[at] == 0xFF, b[at + 1] & 0xF6 == 0xF0, found.count < 400 {
            let length = UInt64(b[at + 3] & 0x03) << 11 | UInt64(b[at + 4]) << 3 | UInt64(b[at + 5] >> 5)
            found.append(LengthField(format: "adts frame", offset: at + 3, width: 3, encoding: .adts, value: length, span: span(at, length, in: b)))
            guard length >= 7 else { return }
            at += Int(length)
        }
    }

    /// MPEG program and transport streams: the 16-bit length of each PES packet or system header.
    static func pes(_ b: [UInt8], _ found: inout [LengthField]) {
        var at = 0
        while at + 6 <= b.count, found.count < 400 {
            if b[at] == 0, b[at + 1] == 0, b[at + 2] == 1, b[at + 3] >= 0xBB {
                let length = be(b, at + 4, 2)
                found.append(LengthField(format: "pes 0x" + String(b[at + 3], radix: 16), offset: at + 4, width: 2, encoding: .bigEndian,
                                         value: length, span: span(at, length + 6, in: b)))
                at += 6
            } else {
                at += 1
            }
        }
    }
}

/// One mutant: the fixture it came from, what was done to it (enough to rebuild it by hand) and
/// its bytes. Mutant `index` of seed `seed` is rebuilt alone by ``MutantFactory/mutant(_:)``.
struct Mutant: Sendable {
    let index: Int
    let fixture: String
    let recipe: String
    let bytes: [UInt8]

    /// `m0042-STEM.EXT`: unique per mutant, with the fixture's extension (so validation sees the
    /// name a sender would have used, and every prepare writes its own output).
    var fileName: String {
        String(format: "m%04d-", index) + (fixture as NSString).lastPathComponent
    }
}

/// Builds mutants of a few fixtures deterministically: bit flips, byte runs set to 0x00/0xFF,
/// truncations, length fields set to other values, splices of two fixtures, chunks removed or
/// duplicated. Each mutant has its own generator (`seed + index`), so any one can be rebuilt alone.
struct MutantFactory {
    enum Operator: String, CaseIterable {
        case bitFlips = "bit-flips", byteRun = "byte-run", truncation, lengthField = "length-field"
        case splice, removeChunk = "remove-chunk", duplicateChunk = "duplicate-chunk"
    }

    /// The operators in the proportions the campaign uses (length fields most, they reach the parsers).
    static let schedule: [Operator] = [.bitFlips, .lengthField, .byteRun, .truncation, .lengthField, .bitFlips, .splice,
                                       .removeChunk, .lengthField, .duplicateChunk, .byteRun, .truncation, .lengthField]

    let seed: UInt64
    /// Fixture paths relative to TestMedia, each repeated by its weight (mutant i uses entry i mod count).
    let rotation: [String]
    private let bytes: [String: [UInt8]]
    private let fields: [String: [LengthField]]

    init(seed: UInt64, fixtures: [(path: String, weight: Int)]) throws {
        self.seed = seed
        rotation = fixtures.flatMap { Array(repeating: $0.path, count: $0.weight) }
        var bytes: [String: [UInt8]] = [:], fields: [String: [LengthField]] = [:]
        for (path, _) in fixtures {
            let content = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture(path))))
            bytes[path] = content
            fields[path] = LengthFieldFinder.fields(in: content)
        }
        self.bytes = bytes
        self.fields = fields
    }

    /// The length fields found in a fixture (for the campaign's summary and its sanity test).
    func lengthFields(_ fixture: String) -> [LengthField] { fields[fixture] ?? [] }

    /// Mutant `index`: always the same bytes for the same seed, fixtures and index.
    func mutant(_ index: Int) -> Mutant {
        var rng = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let fixture = rotation[index % rotation.count]
        let original = bytes[fixture]!
        let op = Self.schedule[(index / rotation.count + index) % Self.schedule.count]
        var (recipe, result) = apply(op, to: original, fixture: fixture, rng: &rng)
        if Self.same(result, original), !result.isEmpty {
            let bit = Int.random(in: 0..<result.count * 8, using: &rng)
            result[bit / 8] ^= UInt8(1 << (bit % 8))
            recipe += " + flip bit \(bit % 8) of byte \(bit / 8) (the operator changed nothing)"
        }
        return Mutant(index: index, fixture: fixture, recipe: "\(op.rawValue): \(recipe)", bytes: result)
    }

    /// Whether two byte arrays are equal, by `memcmp` (`==` compares element by element, which
    /// costs seconds over a campaign in a debug build).
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0 } }
    }

    /// An offset biased towards the headers: half the time in the first 4 KB.
    static func offset(in count: Int, rng: inout SplitMix64) -> Int {
        guard count > 1 else { return 0 }
        let upper = Bool.random(using: &rng) ? min(count, 4096) : count
        return Int.random(in: 0..<upper, using: &rng)
    }

    private func apply(_ op: Operator, to b: [UInt8], fixture: String, rng: inout SplitMix64) -> (String, [UInt8]) {
        let fields = self.fields[fixture] ?? []
        switch op {
        case .bitFlips: return Self.bitFlips(b, rng: &rng)
        case .byteRun: return Self.byteRun(b, rng: &rng)
        case .truncation:
            let at = Self.offset(in: b.count, rng: &rng)
            return ("truncated to \(at) of \(b.count) bytes", Array(b[..<at]))
        case .lengthField:
            guard !fields.isEmpty else { return Self.bitFlips(b, rng: &rng) }
            return Self.lengthField(b, fields.randomElement(using: &rng)!, rng: &rng)
        case .splice: return splice(b, fixture: fixture, rng: &rng)
        case .removeChunk, .duplicateChunk:
            let chunks = fields.filter { !$0.span.isEmpty && $0.span.count < b.count }
            guard let chunk = chunks.randomElement(using: &rng) else { return Self.byteRun(b, rng: &rng) }
            let s = chunk.span
            if op == .removeChunk { return ("removed bytes \(s) (\(chunk.description))", Array(b[..<s.lowerBound] + b[s.upperBound...])) }
            return ("duplicated bytes \(s) right after themselves (\(chunk.description))", Array(b[..<s.upperBound] + b[s] + b[s.upperBound...]))
        }
    }

    static func bitFlips(_ b: [UInt8], rng: inout SplitMix64) -> (String, [UInt8]) {
        guard !b.isEmpty else { return ("empty", b) }
        var out = b
        var flipped: [String] = []
        for _ in 0..<Int.random(in: 1...8, using: &rng) {
            let at = offset(in: b.count, rng: &rng), bit = Int.random(in: 0..<8, using: &rng)
            out[at] ^= UInt8(1 << bit)
            flipped.append("\(at).\(bit)")
        }
        return ("flipped byte.bit \(flipped.joined(separator: " "))", out)
    }

    static func byteRun(_ b: [UInt8], rng: inout SplitMix64) -> (String, [UInt8]) {
        guard !b.isEmpty else { return ("empty", b) }
        let value: UInt8 = Bool.random(using: &rng) ? 0x00 : 0xFF
        let length = Int.random(in: 0..<10, using: &rng) == 0 ? Int.random(in: 65...4096, using: &rng) : Int.random(in: 1...64, using: &rng)
        let at = offset(in: b.count, rng: &rng)
        let end = min(b.count, at + length)
        var out = b
        for i in at..<end { out[i] = value }
        return ("bytes \(at)..<\(end) set to 0x\(String(value, radix: 16))", out)
    }

    static func lengthField(_ b: [UInt8], _ field: LengthField, rng: inout SplitMix64) -> (String, [UInt8]) {
        let v = field.value, size = UInt64(b.count)
        let choices: [(String, UInt64)] = [
            ("maximum", field.maximum), ("doubled plus one", v &* 2 &+ 1), ("plus one", v &+ 1),
            ("plus a few", v &+ UInt64.random(in: 2...64, using: &rng)), ("plus the file size", v &+ size),
            ("0x7FFFFFFF", 0x7FFF_FFFF), ("0x80000000", 0x8000_0000), ("zero", 0), ("minus one", v == 0 ? 1 : v - 1),
        ]
        let (name, newValue) = choices.randomElement(using: &rng)!
        let written = min(newValue, field.maximum)
        return ("\(field.description) set to \(written) (\(name))", field.writing(newValue, into: b))
    }

    private func splice(_ b: [UInt8], fixture: String, rng: inout SplitMix64) -> (String, [UInt8]) {
        let donorName = Set(rotation).subtracting([fixture]).sorted().randomElement(using: &rng) ?? fixture
        let donor = bytes[donorName]!
        let head = Self.offset(in: b.count, rng: &rng), tail = Self.offset(in: donor.count, rng: &rng)
        return ("first \(head) bytes + \(donorName) from byte \(tail) on", Array(b[..<head] + donor[tail...]))
    }
}

/// One `attachkit serve` run fed a list of request lines from a writer thread (serve reads at
/// most jobs × 4 ahead, so the writer blocks as it should) while two readers collect stdout and
/// stderr. A watchdog kills serve and its workers if the run does not end in time.
struct ServeRun {
    let status: Int32?
    let answers: [JSONValue]
    let unparsable: [String]
    let log: String
    let seconds: Double
    let killedByWatchdog: Bool

    static func run(root: String, arguments: [String], lines: [String], timeout: Double) throws -> ServeRun {
        // A serve that died must fail the test, not kill the test process with SIGPIPE on the next write.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.attachkit)
        process.arguments = ["serve", "--allow", root] + arguments
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        let start = Date()
        try process.run()
        nonisolated(unsafe) var out = Data(), err = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { out = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { err = errors.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async {
            let writer = input.fileHandleForWriting
            for line in lines { guard (try? writer.write(contentsOf: Data((line + "\n").utf8))) != nil else { break } }
            try? writer.close()
        }
        let killed = ended.wait(timeout: .now() + timeout) == .timedOut
        if killed {
            for child in children(of: process.processIdentifier) { kill(child, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        group.wait()
        var answers: [JSONValue] = [], unparsable: [String] = []
        for line in String(decoding: out, as: UTF8.self).split(separator: "\n") {
            if let answer = try? JSONValue.parse(String(line)) { answers.append(answer) } else { unparsable.append(String(line)) }
        }
        return ServeRun(status: killed ? nil : process.terminationStatus, answers: answers, unparsable: unparsable,
                        log: String(decoding: err, as: UTF8.self), seconds: Date().timeIntervalSince(start), killedByWatchdog: killed)
    }

    /// Process ids whose parent is `pid` (serve's workers).
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == pid
        }
    }
}
