/// ISO base media layout (MP4, MOV, M4A, 3GP, HEIF, AVIF): the box tree against the file size,
/// then what each kind of file must hold.
///
/// - Box sizes: 32-bit size; `1` = a 64-bit size follows the type; `0` = the box runs to the end of
///   the file (or of its parent). Every box must fit in its parent, top-level boxes in the file.
///   The structural boxes are walked down to the sample tables (`moov/trak/mdia/minf/stbl`,
///   `moof/traf`, `mvex`, `edts`, `dinf`) and the top-level `meta` with `iprp`/`ipco` (HEIF/AVIF;
///   ISO's full-box `meta` and QuickTime's plain one are both understood).
///   Fewer than 8 trailing zero bytes (QuickTime's 4-byte terminator, padding) are accepted
///   where a box header would not fit.
/// - A movie (MP4, MOV, M4A, M4V, 3GP) must have a `moov`, or `moof` fragments. A HEIF/AVIF image
///   must have a `meta` (an image sequence may have a `moov` instead).
/// - Where a `moov` exists, its sample tables are read first (``ISOBMFFSampleTables``): tables
///   that do not fit their boxes or declare more sample bytes than the file holds are corrupt,
///   and more samples than ``SafetyLimits/maxSamples`` are over the cap, before libavformat
///   builds its index from them. Then libavformat reads them (edit lists ignored) and every
///   sample the tables declare must be in its index, every indexed sample inside the file
///   (``samplesInsideFile(path:fileSize:tables:)``); a movie whose tracks hold no sample at all,
///   with no `moof` fragment (an init segment alone), has nothing to show: "no samples", corrupt.
/// - The sample entries (`stsd`) decide two refusals before anything is decoded: encrypted media
///   (``encryption(_:entries:marker:)``) and codecs FFmpeg 5.1 cannot decode
///   (``undecodableCodec(_:entries:)``).
/// - Where a top-level `meta` has an `iloc`, every item extent stored in the file must lie inside it
///   (``itemLocationsInsideFile(_:meta:)``).
enum ISOBMFFStructure {
    /// One box header as found in the file.
    struct Box {
        let type: String
        let offset: Int64
        let headerSize: Int64
        /// Whole box, header included.
        let size: Int64
        var end: Int64 { offset + size }
        var dataOffset: Int64 { offset + headerSize }
    }

    /// Containers whose children are boxes (full boxes skip 4 bytes of version and flags first).
    private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "mvex", "moof", "traf", "edts", "dinf", "iprp", "ipco"]
    private static let maximumDepth = 12

    static func check(_ reader: borrowing FileReader, path: String, container: Container, limits: SafetyLimits = SafetyLimits()) -> StructureVerdict {
        do throws(StructureProblem) {
            var seen = BoxSummary()
            let topLevel = try walk(reader, from: 0, to: reader.size, depth: 0, seen: &seen)
            let types = Set(topLevel.map(\.type))
            if container.isHEIF {
                if let reason = HEIFItems.undecodableReason(reader) { return .undecodable(reason: reason) }
                guard types.contains("meta") || types.contains("moov") else {
                    return .corrupt(reason: "\(container) file without a 'meta' box (no image items)")
                }
            } else {
                guard types.contains("moov") || types.contains("moof") else {
                    return .corrupt(reason: "movie without a 'moov' box (and no 'moof' fragments)")
                }
            }
            let entries = try sampleEntries(reader, in: seen.sampleDescriptions)
            if let reason = encryption(reader, entries: entries, marker: seen.encryptionMarker) { return .encrypted(reason: reason) }
            if let verdict = undecodableCodec(reader, entries: entries) { return verdict }
            if let meta = topLevel.first(where: { $0.type == "meta" }) {
                try itemLocationsInsideFile(reader, meta: meta)
            }
            var tablesVouch = false
            if types.contains("moov") {
                let tables = ISOBMFFSampleTables.read(reader)
                if let problem = tables.inconsistency(fileSize: reader.size) ?? tables.disorder { return .corrupt(reason: problem) }
                if let violation = tables.violation(of: limits) { return .overCap(violation) }
                let samples = try samplesInsideFile(path: path, fileSize: reader.size, tables: tables)
                tablesVouch = samples > 0
                // An init segment (tracks with empty sample tables, `mvex`, no fragment after it)
                // holds nothing to show, whatever its `mvhd`/`mehd` declare. HEIF images are items.
                if samples == 0, seen.hasTracks, !types.contains("moof"), !(container.isHEIF && types.contains("meta")) {
                    return .noSamples("the 'moov' sample tables are empty and no 'moof' fragment follows (a fragmented MP4's init segment alone)")
                }
            }
            // Every sample is known to be inside the file when a movie's sample tables, holding
            // samples, say so and so do its fragments' runs (``ISOBMFFFragments``), if it has any.
            let fragmentsVouch = !types.contains("moof") || ISOBMFFFragments.samplesEnd(reader, topLevel: topLevel).map { $0 <= reader.size } == true
            let samplesVouch = types.contains("moov") && !container.isHEIF && fragmentsVouch && (tablesVouch || types.contains("moof"))
            if let overclaim = seen.overclaim {
                // Items and empty tables do not vouch for the samples.
                guard samplesVouch else {
                    return .corrupt(reason: "the 'mdat' box at byte \(topLevel.last?.offset ?? 0) claims more bytes than the file holds (truncated)")
                }
                return .recoverable(reason: overclaim)
            }
            if let junk = seen.trailingJunk {
                // Junk after the last box: harmless when what came before holds every sample or
                // every item (a HEIF's item locations, checked above).
                let vouched = container.isHEIF ? types.contains("meta") : samplesVouch
                guard vouched else {
                    return .corrupt(reason: "\(reader.size - junk) stray byte(s) at byte \(junk) where a box header should be (truncated box)")
                }
                var skipped = SkippedBytes()
                skipped.add(at: junk, count: reader.size - junk, "after the last box")
                return skipped.verdict
            }
            return .intact
        } catch {
            // Damaged and encrypted: DRM decides (a clean download of it would not play either).
            if let reason = encryptionReason(reader) { return .encrypted(reason: reason + "; the layout is damaged too: " + error.reason) }
            return .corrupt(reason: error.reason)
        }
    }

    /// The boxes between `start` and `end`, each checked to fit; children of structural boxes are
    /// walked too.
    @discardableResult
    static func walk(_ reader: borrowing FileReader, from start: Int64, to end: Int64, depth: Int) throws(StructureProblem) -> [Box] {
        var seen = BoxSummary()
        return try walk(reader, from: start, to: end, depth: depth, seen: &seen)
    }

    /// The boxes between `start` and `end` (returned); what the walk meets at any depth below them
    /// is noted in `seen` (bounded: the tree itself is never kept).
    @discardableResult
    static func walk(_ reader: borrowing FileReader, from start: Int64, to end: Int64, depth: Int,
                     seen: inout BoxSummary) throws(StructureProblem) -> [Box] {
        var boxes: [Box] = []
        var position = start
        while position < end {
            let remaining = end - position
            let atFileEnd = depth == 0 && end == reader.size
            if remaining < 8 {
                if StructureChecker.isZeroFilled(reader, from: position, to: end) { break }
                // After the last box: junk readers stop before (whether the boxes before it hold
                // everything is for ``check`` to say).
                if atFileEnd {
                    seen.trailingJunk = position
                    break
                }
                throw StructureProblem("\(remaining) stray byte(s) at byte \(position) where a box header should be (truncated box)")
            }
            let box: Box
            if atFileEnd, let media = overclaimingMediaData(reader, at: position, end: end) {
                box = media.box
                seen.overclaim = media.reason
            } else {
                do {
                    box = try header(reader, at: position, end: end)
                } catch {
                    // Bytes after the last box that are no box of the format (an unknown or
                    // invalid type running past the end) are junk, as is padding cut short (a
                    // `free` box holds nothing); a known box cut short is not.
                    let type = reader.read(at: position + 4, count: 4).ascii(0, 4)
                    guard atFileEnd, !boxes.isEmpty, !knownTopLevel.contains(type) || paddingBoxes.contains(type) else { throw error }
                    seen.trailingJunk = position
                    break
                }
            }
            if box.type == "mvhd" || box.type == "mdhd" { try timescaleIsSet(reader, header: box) }
            boxes.append(box)
            seen.note(box)
            if depth < maximumDepth, containers.contains(box.type) || (box.type == "meta" && depth == 0) {
                let childStart = box.type == "meta" ? metaChildrenStart(reader, meta: box) : box.dataOffset
                if childStart <= box.end {
                    try walk(reader, from: childStart, to: box.end, depth: depth + 1, seen: &seen)
                }
            }
            position = box.end
        }
        return boxes
    }

    /// Boxes that hold nothing (ISO/IEC 14496-12 §8.1.2 `free`, `skip`; QuickTime's `wide`): one
    /// cut short at the end of the file is junk after the last box, not a file cut short.
    static let paddingBoxes: Set<String> = ["free", "skip", "wide"]

    /// Top-level box types of the ISO base media family and HEIF: one of them running past the end
    /// of the file is a cut file, not junk after it.
    static let knownTopLevel: Set<String> = ["ftyp", "styp", "moov", "moof", "mdat", "meta", "free", "skip", "wide", "uuid",
                                             "mfra", "sidx", "ssix", "emsg", "prft", "pdin", "idat", "jumb", "mvex"]

    /// A top-level `mdat` that claims more bytes than the file holds, cut to the file's end, and
    /// the words for it; `nil` for any other box. Whether the damage is only that (every sample
    /// inside the file) is for the sample checks to say: when they pass, the file is recoverable.
    static func overclaimingMediaData(_ reader: borrowing FileReader, at offset: Int64, end: Int64) -> (box: Box, reason: String)? {
        let bytes = reader.read(at: offset, count: 16)
        guard end == reader.size, bytes.count >= 8, bytes.matches("mdat", at: 4) else { return nil }
        let size32 = Int64(bytes.be32(0))
        let claimed = size32 == 1 && bytes.count == 16 ? Int64(clamping: bytes.be64(8)) : size32
        let headerSize: Int64 = size32 == 1 ? 16 : 8
        guard size32 != 0, claimed > end - offset, end - offset >= headerSize else { return nil }
        let box = Box(type: "mdat", offset: offset, headerSize: headerSize, size: end - offset)
        return (box, "the 'mdat' box at byte \(offset) claims \(claimed) bytes where the file holds \(end - offset); every sample is inside the file")
    }

    /// A movie or media header (`mvhd`, `mdhd`) must give a time unit: with a timescale of 0 no
    /// duration or timestamp means anything (FFmpeg silently takes 1, so a 2 s clip "lasts" 2000 s).
    static func timescaleIsSet(_ reader: borrowing FileReader, header box: Box) throws(StructureProblem) {
        let bytes = reader.read(at: box.dataOffset, count: 24)
        guard bytes.count >= 4 else { throw StructureProblem("'\(box.type)' at byte \(box.offset) is too short for its header") }
        // Version 0: creation and modification times of 4 bytes each; version 1: 8 bytes each.
        let at = bytes.u8(0) == 1 ? 20 : 12
        guard bytes.count >= at + 4 else { throw StructureProblem("'\(box.type)' at byte \(box.offset) is too short for its timescale") }
        guard bytes.be32(at) != 0 else { throw StructureProblem("'\(box.type)' at byte \(box.offset) has a timescale of 0 (no unit of time)") }
    }

    /// Where a `meta` box's children start: ISO's `meta` is a full box (4 bytes of version and
    /// flags first), QuickTime's is a plain container; its first child, `hdlr`, tells which.
    static func metaChildrenStart(_ reader: borrowing FileReader, meta: Box) -> Int64 {
        reader.read(at: meta.dataOffset + 4, count: 4).matches("hdlr", at: 0) ? meta.dataOffset : meta.dataOffset + 4
    }

    /// The box header at `offset`; the box must end by `end`.
    static func header(_ reader: borrowing FileReader, at offset: Int64, end: Int64) throws(StructureProblem) -> Box {
        let bytes = reader.read(at: offset, count: 16)
        let type = bytes.ascii(4, 4)
        guard bytes.count >= 8, (4..<8).allSatisfy({ (0x20...0x7E).contains(bytes.u8($0)) || bytes.u8($0) == 0xA9 }) else {
            throw StructureProblem("invalid box type at byte \(offset)")
        }
        let size32 = bytes.be32(0)
        let headerSize: Int64
        let size: Int64
        switch size32 {
        case 0:
            headerSize = 8
            size = end - offset
        case 1:
            guard bytes.count == 16, end - offset >= 16 else {
                throw StructureProblem("box '\(type)' at byte \(offset) has a 64-bit size cut off by the end of its parent (truncated)")
            }
            let large = bytes.be64(8)
            guard large <= UInt64(Int64.max) else {
                throw StructureProblem("box '\(type)' at byte \(offset) claims \(large) bytes")
            }
            headerSize = 16
            size = Int64(large)
        default:
            headerSize = 8
            size = Int64(size32)
        }
        guard size >= headerSize else {
            throw StructureProblem("box '\(type)' at byte \(offset) has an invalid size \(size)")
        }
        guard size <= end - offset else {
            let limit = end == reader.size ? "the file ends at byte \(end)" : "its parent ends at byte \(end)"
            throw StructureProblem("box '\(type)' at byte \(offset) claims \(size) bytes but \(limit) (truncated)")
        }
        return Box(type: type, offset: offset, headerSize: headerSize, size: size)
    }
}
