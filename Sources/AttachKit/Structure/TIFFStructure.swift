/// TIFF (and BigTIFF) layout: the byte-order mark and magic number, then the chain of IFDs (IFD0
/// first; loops are corrupt), each IFD's entry table inside the file, and every strip or tile —
/// offset plus byte count — inside the file. IFD0 must declare a non-zero width and height and
/// where its pixels are (strips, tiles, or an old-style JPEG stream).
///
/// Other tags' out-of-line values (EXIF, maker notes) are not checked: decoders ignore broken ones.
///
/// IFD tables and strip/tile arrays of a real file do not overlap, so together they hold less than
/// the file; a chain that makes the walk read more than twice the file size (IFDs pointing into
/// each other's tables) is corrupt. That keeps the walk linear in the file size whatever the bytes.
///
/// Each IFD is a page: a chain longer than the frame cap is refused as over that cap (a multi-page
/// scan is not broken for having many pages), and the offsets remembered to find loops stay few.
enum TIFFStructure {
    /// IFDs walked at most whatever the cap, so the offsets kept to find loops stay bounded.
    private static let maximumIFDs = 1_000_000
    /// Strip/tile entries compared per read, so any count checks in constant memory.
    private static let valuesPerRead = 4096

    /// How the file encodes numbers.
    private struct Layout {
        let littleEndian: Bool
        let big: Bool
        var entrySize: Int64 { big ? 20 : 12 }
        var countSize: Int64 { big ? 8 : 2 }
        var offsetSize: Int64 { big ? 8 : 4 }

        func value(_ bytes: [UInt8], at i: Int, size: Int) -> UInt64 {
            switch size {
            case 1: return UInt64(bytes.u8(i))
            case 2: return UInt64(littleEndian ? bytes.le16(i) : bytes.be16(i))
            case 4: return UInt64(littleEndian ? bytes.le32(i) : bytes.be32(i))
            default: return littleEndian ? bytes.le64(i) : bytes.be64(i)
            }
        }
    }

    /// One IFD entry: where its values are and how they are stored.
    private struct Entry {
        let tag: UInt32
        let typeSize: Int
        let count: UInt64
        /// Offset of the first value (inside the entry when they fit there).
        let valuesOffset: Int64
    }

    /// - Parameter maxPages: IFDs (pages) allowed; more is ``StructureVerdict/overCap(_:)``.
    ///   Default ``SafetyLimits/maxFrames``.
    static func check(_ reader: borrowing FileReader, maxPages: Int = SafetyLimits().maxFrames) -> StructureVerdict {
        let head = reader.read(at: 0, count: 16)
        let littleEndian: Bool
        if head.matches([0x49, 0x49], at: 0) { littleEndian = true } else if head.matches([0x4D, 0x4D], at: 0) { littleEndian = false } else {
            return .corrupt(reason: "no TIFF byte-order mark at byte 0")
        }
        let magic = littleEndian ? head.le16(2) : head.be16(2)
        guard magic == 42 || magic == 43 else { return .corrupt(reason: "TIFF magic number \(magic) is neither 42 nor 43") }
        let layout = Layout(littleEndian: littleEndian, big: magic == 43)
        guard head.count >= (layout.big ? 16 : 8) else {
            return .corrupt(reason: "the TIFF header is cut off: the file has \(reader.size) bytes (truncated)")
        }
        var next = layout.value(head, at: layout.big ? 8 : 4, size: Int(layout.offsetSize))
        var visited: Set<UInt64> = []
        var index = 0
        var budget = ReadBudget(remaining: 2 * reader.size + 4096)
        do throws(StructureProblem) {
            while next != 0 {
                guard visited.insert(next).inserted else { throw StructureProblem("IFD \(index) at byte \(next) was already read: the IFD chain loops") }
                guard index < min(maxPages, maximumIFDs) else {
                    return .overCap(SafetyViolation(cap: "maxFrames", detail: "more than \(min(maxPages, maximumIFDs)) pages (IFDs)"))
                }
                next = try checkIFD(reader, at: next, index: index, layout: layout, budget: &budget)
                index += 1
            }
        } catch {
            return .corrupt(reason: error.reason)
        }
        return index > 0 ? .intact : .corrupt(reason: "the TIFF header points to no IFD (offset 0)")
    }

    /// Checks one IFD and returns the offset of the next (0 at the end of the chain).
    private static func checkIFD(_ reader: borrowing FileReader, at offset: UInt64, index: Int, layout: Layout,
                                 budget: inout ReadBudget) throws(StructureProblem) -> UInt64 {
        let size = UInt64(reader.size)
        guard offset >= 8, offset < size, UInt64(layout.countSize) <= size - offset else {
            throw StructureProblem("IFD \(index) at byte \(offset) lies outside the file (\(reader.size) bytes)")
        }
        let start = Int64(offset)
        let count = layout.value(reader.read(at: start, count: Int(layout.countSize)), at: 0, size: Int(layout.countSize))
        guard count > 0 else { throw StructureProblem("IFD \(index) at byte \(offset) has no entries") }
        let tableStart = start + layout.countSize
        guard count <= UInt64(reader.size - tableStart) / UInt64(layout.entrySize),
              Int64(count) * layout.entrySize + layout.offsetSize <= reader.size - tableStart else {
            throw StructureProblem("IFD \(index) at byte \(offset) has \(count) entries, running past the end of the file at byte \(reader.size) (truncated)")
        }
        let tableLength = Int64(count) * layout.entrySize
        try budget.spend(tableLength)
        var entries: [UInt32: Entry] = [:]
        var position = tableStart
        while position < tableStart + tableLength {
            let piece = reader.read(at: position, count: Int(min(tableStart + tableLength - position, layout.entrySize * 4096)))
            var i = 0
            while i + Int(layout.entrySize) <= piece.count {
                let tag = UInt32(layout.value(piece, at: i, size: 2))
                if [256, 257, 273, 279, 324, 325, 513].contains(tag) {
                    entries[tag] = try entry(piece, at: i, fileOffset: position + Int64(i), layout: layout, reader: reader)
                }
                i += Int(layout.entrySize)
            }
            position += Int64(piece.count)
        }
        if index == 0 {
            for (tag, name) in [(UInt32(256), "width"), (257, "height")] {
                guard let entry = entries[tag], try firstValue(reader, entry, layout: layout) > 0 else {
                    throw StructureProblem("IFD0 declares no image \(name) (or a zero one)")
                }
            }
            guard entries[273] != nil || entries[324] != nil || entries[513] != nil else {
                throw StructureProblem("IFD0 has neither strip nor tile offsets: the image data cannot be found")
            }
        }
        try extentsInsideFile(reader, offsets: entries[273], counts: entries[279], what: "strip", ifd: index, layout: layout, budget: &budget)
        try extentsInsideFile(reader, offsets: entries[324], counts: entries[325], what: "tile", ifd: index, layout: layout, budget: &budget)
        let nextBytes = reader.read(at: tableStart + tableLength, count: Int(layout.offsetSize))
        return layout.value(nextBytes, at: 0, size: Int(layout.offsetSize))
    }

    /// Decodes an entry; its values must lie inside the file.
    private static func entry(_ bytes: [UInt8], at i: Int, fileOffset: Int64, layout: Layout, reader: borrowing FileReader) throws(StructureProblem) -> Entry {
        let tag = UInt32(layout.value(bytes, at: i, size: 2))
        let typeSize: Int
        switch layout.value(bytes, at: i + 2, size: 2) {
        case 3: typeSize = 2       // SHORT
        case 4, 13: typeSize = 4   // LONG, IFD
        case 16, 18: typeSize = 8  // LONG8, IFD8
        default: throw StructureProblem("tag \(tag) at byte \(fileOffset) has a type that cannot hold offsets or sizes")
        }
        let count = layout.value(bytes, at: i + 4, size: layout.big ? 8 : 4)
        let valueField = i + (layout.big ? 12 : 8)
        guard count <= UInt64(reader.size) / UInt64(typeSize) else {
            throw StructureProblem("tag \(tag) at byte \(fileOffset) declares \(count) values, more than the file could hold")
        }
        let length = Int64(count) * Int64(typeSize)
        if length <= layout.offsetSize {
            return Entry(tag: tag, typeSize: typeSize, count: count, valuesOffset: fileOffset + Int64(valueField - i))
        }
        let valuesOffset = layout.value(bytes, at: valueField, size: Int(layout.offsetSize))
        guard valuesOffset <= UInt64(reader.size), UInt64(length) <= UInt64(reader.size) - valuesOffset else {
            throw StructureProblem("the \(count) values of tag \(tag) at byte \(valuesOffset) run past the end of the file at byte \(reader.size)")
        }
        return Entry(tag: tag, typeSize: typeSize, count: count, valuesOffset: Int64(valuesOffset))
    }

    private static func firstValue(_ reader: borrowing FileReader, _ entry: Entry, layout: Layout) throws(StructureProblem) -> UInt64 {
        guard entry.count > 0 else { return 0 }
        return layout.value(reader.read(at: entry.valuesOffset, count: entry.typeSize), at: 0, size: entry.typeSize)
    }

    /// Every strip (or tile) offset plus its byte count must end inside the file; without byte
    /// counts, each offset must be inside the file.
    private static func extentsInsideFile(_ reader: borrowing FileReader, offsets: Entry?, counts: Entry?, what: String, ifd: Int,
                                          layout: Layout, budget: inout ReadBudget) throws(StructureProblem) {
        guard let offsets else { return }
        let total = offsets.count
        try budget.spend(Int64(total) * Int64(offsets.typeSize + (counts?.typeSize ?? 0)))
        let size = UInt64(reader.size)
        var first: UInt64 = 0
        while first < total {
            let n = Int(min(UInt64(valuesPerRead), total - first))
            let starts = reader.read(at: offsets.valuesOffset + Int64(first) * Int64(offsets.typeSize), count: n * offsets.typeSize)
            var lengths: [UInt8] = []
            if let counts, first < counts.count {
                let m = Int(min(UInt64(n), counts.count - first))
                lengths = reader.read(at: counts.valuesOffset + Int64(first) * Int64(counts.typeSize), count: m * counts.typeSize)
            }
            for k in 0..<n {
                let start = layout.value(starts, at: k * offsets.typeSize, size: offsets.typeSize)
                var length: UInt64 = 0
                if let counts, (k + 1) * counts.typeSize <= lengths.count {
                    length = layout.value(lengths, at: k * counts.typeSize, size: counts.typeSize)
                }
                guard start <= size, length <= size - start else {
                    throw StructureProblem("IFD \(ifd) \(what) \(first + UInt64(k) + 1) of \(total) (\(length) bytes at byte \(start)) runs past the end of the file at byte \(reader.size)")
                }
            }
            first += UInt64(n)
        }
    }

    /// How many more table bytes the walk may read.
    private struct ReadBudget {
        var remaining: Int64

        mutating func spend(_ bytes: Int64) throws(StructureProblem) {
            remaining -= bytes
            guard remaining >= 0 else {
                throw StructureProblem("the IFDs and strip tables overlap: reading them would take more than twice the file's bytes")
            }
        }
    }
}
