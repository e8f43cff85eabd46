/// The pictures a HEIF or AVIF file shows, read from its `meta` box alone (no decoder opened):
/// what libheif will have to build in memory for each. A grid (`grid` derived item) is decoded
/// whole: libheif allocates the full output canvas, then decodes every tile the `iref dimg` box
/// lists (a tile listed 100 times is decoded 100 times) and pastes it in.
///
/// Boxes read: `pitm` (primary item), `iinf`/`infe` (item types, hidden flag), `iref` (`dimg`
/// tiles, `auxl` auxiliary images, `thmb` thumbnails), `iprp`/`ipco`/`ipma` (per-item `ispe`
/// size, `pixi` bit depth, `hvcC`/`av1C` chroma format and bit depth, `auxC` alpha type),
/// `iloc` and `idat` (the grid's and overlay's own data: rows, columns and output size).
/// Every box body is read once, at most ``maximumBoxBytes``; counts are bounded by the bytes.
struct HEIFItems {
    /// One picture the file shows (a top-level image item) and what decoding it whole takes.
    struct Picture: Sendable, Equatable {
        var itemID: UInt32
        /// `hvc1`, `av01`, `grid`, `iovl`, `iden`...
        var type: String
        /// The canvas libheif allocates: the largest of the item's `ispe`, the size its codec's
        /// header codes (an HEVC SPS, an AV1 sequence header) and the size its derivation data
        /// (grid, overlay) declares.
        var width: Int
        var height: Int
        /// Coded pictures decoded to build it (tile references; 1 for a coded image).
        var tileReferences: Int
        /// Different items among those references.
        var distinctTiles: Int
        /// The largest tile (its `ispe`, or its SPS's size when larger); the canvas itself for a
        /// coded image.
        var tileWidth: Int
        var tileHeight: Int
        /// Bits per sample (`pixi`, `hvcC`, `av1C`; 8 when none says).
        var bitDepth: Int
        /// Samples per pixel of the coded picture: 1 (monochrome), 1.5 (4:2:0), 2 (4:2:2), 3 (4:4:4).
        var samplesPerPixel: Double
        /// An `auxl` alpha image belongs to it (decoded whole too).
        var hasAlpha: Bool

        var pixels: Int64 { Int64(width) * Int64(height) }
    }

    /// The largest box body read (a grid of a few thousand tiles needs a few tens of KB).
    static let maximumBoxBytes = 4 << 20
    /// Items, properties and references considered (hostile counts stop here).
    static let maximumEntries = 1 << 16

    private struct Item {
        var type: String
        var hidden: Bool
    }

    private struct Properties {
        var width = 0, height = 0
        /// The size the codec's own header codes (an `hvcC` record's SPS), 0 when unknown.
        var codedWidth = 0, codedHeight = 0
        var bitDepth: Int?
        var samplesPerPixel: Double?
        var alphaAuxiliary = false
    }

    private var items: [UInt32: Item] = [:]
    private var references: [String: [(from: UInt32, to: [UInt32])]] = [:]
    private var properties: [UInt32: Properties] = [:]
    private var derivationData: [UInt32: [UInt8]] = [:]

    /// The pictures of the file at top level (not tiles, thumbnails or auxiliary images), primary
    /// first; `nil` when the file has no readable `meta` box.
    static func pictures(_ reader: borrowing FileReader) -> [Picture]? {
        guard let meta = topLevelMeta(reader) else { return nil }
        var parsed = HEIFItems()
        var primary: UInt32?
        var locations: [UInt32: Location] = [:]
        var idat: (offset: Int64, size: Int64)?
        var position = ISOBMFFStructure.metaChildrenStart(reader, meta: meta)
        var boxes = 0
        while position < meta.end, boxes < 64, let box = try? ISOBMFFStructure.header(reader, at: position, end: meta.end) {
            boxes += 1
            position = box.end
            if box.type == "idat" { idat = (box.dataOffset, box.size - box.headerSize) }
            guard ["pitm", "iinf", "iref", "iprp", "iloc"].contains(box.type) else { continue }
            guard box.size - box.headerSize <= Int64(maximumBoxBytes) else { return nil }
            let body = reader.read(at: box.dataOffset, count: Int(box.size - box.headerSize))
            switch box.type {
            case "pitm": primary = body.u8(0) == 0 ? body.be16(4) : body.be32(4)
            case "iinf": parsed.readItems(body)
            case "iref": parsed.readReferences(body)
            case "iprp": parsed.readProperties(body)
            default: locations = Self.readLocations(body)
            }
        }
        for (id, item) in parsed.items where ["grid", "iovl"].contains(item.type) {
            guard let location = locations[id] else { continue }
            parsed.derivationData[id] = location.bytes(reader, idat: idat)
        }
        // An AV1 item's data starts with its sequence header: the size the decoder will allocate.
        for (id, item) in parsed.items where item.type == "av01" {
            guard let location = locations[id], let coded = AV1PictureSize.of(obus: location.bytes(reader, idat: idat)) else { continue }
            var properties = parsed.properties[id] ?? Properties()
            properties.codedWidth = max(properties.codedWidth, coded.width)
            properties.codedHeight = max(properties.codedHeight, coded.height)
            parsed.properties[id] = properties
        }
        return parsed.topLevelPictures(primary: primary)
    }

    /// Primary item types libheif 1.15 cannot decode, named for people: ISO/IEC 23001-17
    /// uncompressed and generically compressed images (`unci`, with or without `cmpC`) and VVC.
    static let undecodableItemTypes: [String: String] = [
        "unci": "an uncompressed or generically compressed HEIF image ('unci' item, ISO/IEC 23001-17)",
        "vvc1": "a VVC (H.266) HEIF image ('vvc1' item)",
    ]

    /// What libheif 1.15 cannot decode in this file: a low-overhead HEIF (a top-level `mini` box
    /// where `meta` would be) or a first picture of an ``undecodableItemTypes`` type, worded as
    /// ``StructureVerdict/cannotDecodeReason(_:decoder:)``; `nil` otherwise.
    static func undecodableReason(_ reader: borrowing FileReader) -> String? {
        if topLevelMeta(reader) == nil {
            guard topLevelBox("mini", reader) != nil else { return nil }
            return StructureVerdict.cannotDecodeReason("a low-overhead HEIF ('mini' box instead of 'meta')", decoder: "libheif 1.15")
        }
        guard let type = pictures(reader)?.first?.type, let name = undecodableItemTypes[type] else { return nil }
        return StructureVerdict.cannotDecodeReason(name, decoder: "libheif 1.15")
    }

    private static func topLevelMeta(_ reader: borrowing FileReader) -> ISOBMFFStructure.Box? {
        topLevelBox("meta", reader)
    }

    private static func topLevelBox(_ type: String, _ reader: borrowing FileReader) -> ISOBMFFStructure.Box? {
        var position: Int64 = 0
        var boxes = 0
        while position < reader.size, boxes < 64, let box = try? ISOBMFFStructure.header(reader, at: position, end: reader.size) {
            if box.type == type { return box }
            boxes += 1
            position = box.end
        }
        return nil
    }

    // MARK: Pictures

    private func topLevelPictures(primary: UInt32?) -> [Picture] {
        // Not shown on their own: tiles and overlay inputs (targets of `dimg`), thumbnails and
        // auxiliary images (sources of `thmb`/`auxl`), hidden items.
        var inner = Set((references["dimg"] ?? []).flatMap(\.to))
        inner.formUnion((references["thmb"] ?? []).map(\.from))
        inner.formUnion((references["auxl"] ?? []).map(\.from))
        let imageTypes: Set<String> = ["hvc1", "av01", "grid", "iovl", "iden", "jpeg", "vvc1", "unci"]
        let shown = items.filter { imageTypes.contains($0.value.type) && !$0.value.hidden && !inner.contains($0.key) }
            .keys.sorted { ($0 == primary ? 0 : 1, $0) < ($1 == primary ? 0 : 1, $1) }
        return shown.map(picture)
    }

    private func picture(_ id: UInt32) -> Picture {
        let type = items[id]?.type ?? ""
        let own = properties[id] ?? Properties()
        var tiles = (references["dimg"] ?? []).filter { $0.from == id }.flatMap(\.to).prefix(Self.maximumEntries).map { $0 }
        if tiles.isEmpty { tiles = [id] }
        // What the decoder allocates is what the codec's header codes, when it says more than `ispe`.
        var width = max(own.width, own.codedWidth), height = max(own.height, own.codedHeight)
        if let data = derivationData[id], let size = Self.derivedSize(type: type, data: data) {
            width = max(width, size.width)
            height = max(height, size.height)
        }
        var tileWidth = 0, tileHeight = 0, bitDepth = own.bitDepth ?? 8
        var samples = own.samplesPerPixel ?? 1.5
        for tile in Set(tiles) {
            let coded = properties[tile] ?? Properties()
            tileWidth = max(tileWidth, coded.width, coded.codedWidth)
            tileHeight = max(tileHeight, coded.height, coded.codedHeight)
            bitDepth = max(bitDepth, coded.bitDepth ?? 8)
            samples = max(samples, coded.samplesPerPixel ?? 1.5)
        }
        if width == 0 || height == 0 { (width, height) = (tileWidth, tileHeight) }
        let alpha = (references["auxl"] ?? []).contains { $0.to.contains(id) && properties[$0.from]?.alphaAuxiliary == true }
        return Picture(itemID: id, type: type, width: width, height: height, tileReferences: tiles.count,
                       distinctTiles: Set(tiles).count, tileWidth: tileWidth, tileHeight: tileHeight,
                       bitDepth: bitDepth, samplesPerPixel: samples, hasAlpha: alpha)
    }

    /// The output size a grid (ISO/IEC 23008-12 6.6.2.3) or overlay (6.6.2.2) declares in its data.
    static func derivedSize(type: String, data: [UInt8]) -> (width: Int, height: Int)? {
        let wide = data.u8(1) & 1 == 1
        let at: Int
        switch type {
        case "grid": at = 4                  // version, flags, rows - 1, columns - 1
        case "iovl": at = 2 + 4 * 2          // version, flags, four 16-bit fill values
        default: return nil
        }
        guard data.count >= at + (wide ? 8 : 4) else { return nil }
        return wide ? (Int(data.be32(at)), Int(data.be32(at + 4))) : (Int(data.be16(at)), Int(data.be16(at + 2)))
    }

    // MARK: Boxes

    /// `iinf`: a full box with an entry count, then one `infe` box per item (version 2: 16-bit
    /// ID, version 3: 32-bit ID; flag 1 = hidden).
    private mutating func readItems(_ body: [UInt8]) {
        var position = body.u8(0) == 0 ? 6 : 8
        while position + 12 <= body.count, items.count < Self.maximumEntries {
            let size = Int(body.be32(position))
            guard size >= 12, position + size <= body.count, body.ascii(position + 4, 4) == "infe" else { return }
            let version = body.u8(position + 8)
            let hidden = body.u8(position + 11) & 1 == 1
            if version >= 2 {
                let id = version == 2 ? body.be16(position + 12) : body.be32(position + 12)
                let typeAt = position + 12 + (version == 2 ? 2 : 4) + 2
                items[id] = Item(type: body.ascii(typeAt, 4), hidden: hidden)
            }
            position += size
        }
    }

    /// `iref`: a full box holding one box per reference type: from-item, count, to-items
    /// (16-bit IDs in version 0, 32-bit in version 1).
    private mutating func readReferences(_ body: [UInt8]) {
        let idSize = body.u8(0) == 0 ? 2 : 4
        var position = 4
        var total = 0
        while position + 8 + idSize + 2 <= body.count {
            let size = Int(body.be32(position))
            guard size >= 8, position + size <= body.count else { return }
            let type = body.ascii(position + 4, 4)
            var cursor = ByteCursor(bytes: Array(body[(position + 8)..<(position + size)]))
            if let from = cursor.read(idSize), let count = cursor.read(2) {
                var to: [UInt32] = []
                for _ in 0..<min(Int(count), Self.maximumEntries - total) {
                    guard let id = cursor.read(idSize) else { break }
                    to.append(UInt32(truncatingIfNeeded: id))
                }
                total += to.count
                references[type, default: []].append((UInt32(truncatingIfNeeded: from), to))
            }
            position += size
        }
    }

    /// `iprp`: `ipco` lists the properties (1-based), `ipma` associates them with items.
    private mutating func readProperties(_ body: [UInt8]) {
        var listed: [Properties?] = []
        var position = 0
        while position + 8 <= body.count {
            let size = Int(body.be32(position))
            guard size >= 8, position + size <= body.count else { return }
            let child = Array(body[(position + 8)..<(position + size)])
            switch body.ascii(position + 4, 4) {
            case "ipco": listed = Self.readPropertyList(child)
            case "ipma": associate(child, listed: listed)
            default: break
            }
            position += size
        }
    }

    private static func readPropertyList(_ body: [UInt8]) -> [Properties?] {
        var listed: [Properties?] = []
        var position = 0
        while position + 8 <= body.count, listed.count < maximumEntries {
            let size = Int(body.be32(position))
            guard size >= 8, position + size <= body.count else { break }
            let data = Array(body[(position + 8)..<(position + size)])
            var property = Properties()
            switch body.ascii(position + 4, 4) {
            case "ispe":                           // full box, width, height
                property.width = Int(min(data.be32(4), UInt32(Int32.max)))
                property.height = Int(min(data.be32(8), UInt32(Int32.max)))
            case "pixi":                           // full box, channel count, bits per channel
                let channels = Int(data.u8(4))
                property.bitDepth = (0..<channels).map { Int(data.u8(5 + $0)) }.max()
            case "hvcC":                           // chroma_format_idc at 16, bit_depth_luma - 8 at 17
                property.samplesPerPixel = [1, 1.5, 2, 3][Int(data.u8(16) & 3)]
                property.bitDepth = Int(data.u8(17) & 7) + 8
                if let coded = HEVCPictureSize.of(hvcC: data) { (property.codedWidth, property.codedHeight) = coded }
            case "av1C":                           // high_bitdepth, twelve_bit, monochrome, subsampling x/y
                let flags = data.u8(2)
                property.bitDepth = flags & 0x40 == 0 ? 8 : (flags & 0x20 == 0 ? 10 : 12)
                property.samplesPerPixel = flags & 0x10 != 0 ? 1 : (flags & 0x0C == 0x0C ? 1.5 : (flags & 0x0C == 0 ? 3 : 2))
                if data.count > 4, let coded = AV1PictureSize.of(obus: Array(data.dropFirst(4))) { (property.codedWidth, property.codedHeight) = coded }
            case "auxC":                           // full box, then the auxiliary type URN
                let urn = data.count > 4 ? String(decoding: data[4...].prefix { $0 != 0 }, as: UTF8.self) : ""
                property.alphaAuxiliary = urn.hasSuffix(":alpha") || urn == "urn:mpeg:hevc:2015:auxid:1"
            default:
                listed.append(nil)
                position += size
                continue
            }
            listed.append(property)
            position += size
        }
        return listed
    }

    /// `ipma`: per item, its property indexes (7 bits, or 15 with flag 1; the top bit says essential).
    private mutating func associate(_ body: [UInt8], listed: [Properties?]) {
        var cursor = ByteCursor(bytes: body)
        guard let version = cursor.read(1), let flags = cursor.read(3), let count = cursor.read(4) else { return }
        for _ in 0..<min(Int(count), Self.maximumEntries) {
            guard let id = cursor.read(version < 1 ? 2 : 4), let associations = cursor.read(1) else { return }
            var merged = properties[UInt32(truncatingIfNeeded: id)] ?? Properties()
            for _ in 0..<associations {
                guard let entry = cursor.read(flags & 1 == 1 ? 2 : 1) else { return }
                let index = Int(entry & (flags & 1 == 1 ? 0x7FFF : 0x7F))
                guard index >= 1, index <= listed.count, let property = listed[index - 1] else { continue }
                if property.width > 0 { (merged.width, merged.height) = (property.width, property.height) }
                if let depth = property.bitDepth { merged.bitDepth = max(merged.bitDepth ?? 0, depth) }
                if let samples = property.samplesPerPixel { merged.samplesPerPixel = samples }
                if property.codedWidth > 0 { (merged.codedWidth, merged.codedHeight) = (property.codedWidth, property.codedHeight) }
                merged.alphaAuxiliary = merged.alphaAuxiliary || property.alphaAuxiliary
            }
            properties[UInt32(truncatingIfNeeded: id)] = merged
        }
    }

    /// Where an item's bytes are: its first extent, in the file (construction method 0) or in `idat` (1).
    private struct Location {
        var method: UInt64
        var offset: UInt64
        var length: UInt64

        /// The first bytes of the item (a derivation's data is 8 to 12 bytes, 64 are plenty).
        func bytes(_ reader: borrowing FileReader, idat: (offset: Int64, size: Int64)?) -> [UInt8] {
            let count = Int(min(length == 0 ? 64 : length, 64))
            switch method {
            case 0: return offset < UInt64(Int64.max) ? reader.read(at: Int64(offset), count: count) : []
            case 1:
                guard let idat, offset < UInt64(idat.size) else { return [] }
                return reader.read(at: idat.offset + Int64(offset), count: min(count, Int(UInt64(idat.size) - offset)))
            default: return []
            }
        }
    }

    /// `iloc` (versions 0...2), as ``ISOBMFFStructure/itemLocationsInsideFile(_:meta:)`` reads it;
    /// keeps each item's first extent.
    private static func readLocations(_ body: [UInt8]) -> [UInt32: Location] {
        var cursor = ByteCursor(bytes: body)
        var locations: [UInt32: Location] = [:]
        guard let version = cursor.read(1), version <= 2, cursor.read(3) != nil, let sizes = cursor.read(1),
              let sizes2 = cursor.read(1) else { return [:] }
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0x0F)
        let baseOffsetSize = Int(sizes2 >> 4), indexSize = version >= 1 ? Int(sizes2 & 0x0F) : 0
        guard let count = cursor.read(version < 2 ? 2 : 4) else { return [:] }
        for _ in 0..<min(Int(count), maximumEntries) {
            guard let id = cursor.read(version < 2 ? 2 : 4) else { break }
            var method: UInt64 = 0
            if version >= 1 {
                guard let field = cursor.read(2) else { break }
                method = field & 0x0F
            }
            guard cursor.read(2) != nil, let base = cursor.read(baseOffsetSize), let extents = cursor.read(2) else { break }
            // Extents with no fields hold nothing (and must not spin a hostile count).
            guard offsetSize + lengthSize + indexSize > 0 else { continue }
            for extent in 0..<extents {
                guard cursor.read(indexSize) != nil, let offset = cursor.read(offsetSize),
                      let length = cursor.read(lengthSize) else { return locations }
                if extent == 0 {
                    let (start, overflow) = base.addingReportingOverflow(offset)
                    if !overflow { locations[UInt32(truncatingIfNeeded: id)] = Location(method: method, offset: start, length: length) }
                }
            }
        }
        return locations
    }
}
