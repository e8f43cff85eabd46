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

    /// An offset or size entry: where its values are and how they are stored.
    private typealias Entry = TIFFHeader.Entry

    /// - Parameters:
    ///   - maxPages: IFDs (pages) allowed; more is ``StructureVerdict/overCap(_:)``. Default
    ///     ``SafetyLimits/maxFrames``.
    ///   - requiresPicture: IFD0 must declare a non-zero width and height and where its pixels are
    ///     (default `true`); `false` for a camera raw, whose IFD0 may describe neither (a Panasonic
    ///     RW2 gives the sensor's size in tags of its own), and whose byte-order mark may come
    ///     with its own magic number (``TIFFHeader/rawMagics``).
    static func check(_ reader: borrowing FileReader, maxPages: Int = SafetyLimits().maxFrames, requiresPicture: Bool = true) -> StructureVerdict {
        let head = reader.read(at: 0, count: 16)
        guard let mark = TIFFHeader.magic(head) else { return .corrupt(reason: "no TIFF byte-order mark at byte 0") }
        guard mark.magic == 42 || mark.magic == 43 || (!requiresPicture && TIFFHeader.rawMagics.contains(mark.magic)) else {
            return .corrupt(reason: "TIFF magic number \(mark.magic) is neither 42 nor 43")
        }
        guard let layout = TIFFHeader(head) else {
            return .corrupt(reason: "the TIFF header is cut off: the file has \(reader.size) bytes (truncated)")
        }
        var next = layout.firstIFD
        var visited: Set<UInt64> = []
        var index = 0
        var budget = ReadBudget(remaining: 2 * reader.size + 4096)
        do throws(StructureProblem) {
            while next != 0 {
                guard visited.insert(next).inserted else { throw StructureProblem("IFD \(index) at byte \(next) was already read: the IFD chain loops") }
                guard index < min(maxPages, maximumIFDs) else {
                    return .overCap(SafetyViolation(cap: "maxFrames", detail: "more than \(min(maxPages, maximumIFDs)) pages (IFDs)"))
                }
                next = try checkIFD(reader, at: next, index: index, layout: layout, requiresPicture: requiresPicture, budget: &budget)
                index += 1
            }
        } catch {
            return .corrupt(reason: error.reason)
        }
        return index > 0 ? .intact : .corrupt(reason: "the TIFF header points to no IFD (offset 0)")
    }

    /// Checks one IFD and returns the offset of the next (0 at the end of the chain).
    private static func checkIFD(_ reader: borrowing FileReader, at offset: UInt64, index: Int, layout: TIFFHeader,
                                 requiresPicture: Bool, budget: inout ReadBudget) throws(StructureProblem) -> UInt64 {
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
        if index == 0, requiresPicture {
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

    /// Decodes an entry (``TIFFHeader/entry(_:at:fileOffset:)``); it must be of a type that holds
    /// offsets or sizes, and its values must lie inside the file.
    private static func entry(_ bytes: [UInt8], at i: Int, fileOffset: Int64, layout: TIFFHeader, reader: borrowing FileReader) throws(StructureProblem) -> Entry {
        let entry = layout.entry(bytes, at: i, fileOffset: fileOffset)
        // SHORT, LONG, IFD, LONG8, IFD8.
        guard [3, 4, 13, 16, 18].contains(entry.type) else {
            throw StructureProblem("tag \(entry.tag) at byte \(fileOffset) has a type that cannot hold offsets or sizes")
        }
        guard entry.count <= UInt64(reader.size) / UInt64(entry.typeSize) else {
            throw StructureProblem("tag \(entry.tag) at byte \(fileOffset) declares \(entry.count) values, more than the file could hold")
        }
        let length = entry.byteCount
        guard length > UInt64(layout.offsetSize) else { return entry }
        let valuesOffset = UInt64(entry.valuesOffset)
        guard valuesOffset <= UInt64(reader.size), length <= UInt64(reader.size) - valuesOffset else {
            throw StructureProblem("the \(entry.count) values of tag \(entry.tag) at byte \(valuesOffset) run past the end of the file at byte \(reader.size)")
        }
        return entry
    }

    private static func firstValue(_ reader: borrowing FileReader, _ entry: Entry, layout: TIFFHeader) throws(StructureProblem) -> UInt64 {
        guard entry.count > 0 else { return 0 }
        return layout.value(reader.read(at: entry.valuesOffset, count: entry.typeSize), at: 0, size: entry.typeSize)
    }

    /// Every strip (or tile) offset plus its byte count must end inside the file; without byte
    /// counts, each offset must be inside the file.
    private static func extentsInsideFile(_ reader: borrowing FileReader, offsets: Entry?, counts: Entry?, what: String, ifd: Int,
                                          layout: TIFFHeader, budget: inout ReadBudget) throws(StructureProblem) {
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
