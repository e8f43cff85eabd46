extension ISOBMFFStructure {
    /// The largest `iloc` box read whole (a HEIC grid of a few hundred tiles needs a few KB).
    private static let maximumItemLocationBytes = 4 << 20

    /// Every extent of every HEIF item stored in this file (construction method 0, data reference
    /// 0) must lie inside it: a truncated HEIC keeps its `meta` but loses the tiles in `mdat`.
    /// An extent length of 0 means "to the end of the file" and only its start is checked.
    /// - Throws: ``StructureProblem`` for an extent past the end, or an `iloc` that is malformed.
    static func itemLocationsInsideFile(_ reader: borrowing FileReader, meta: Box) throws(StructureProblem) {
        let childStart = metaChildrenStart(reader, meta: meta)
        guard childStart < meta.end else { return }
        let children = try walk(reader, from: childStart, to: meta.end, depth: 1)
        guard let iloc = children.first(where: { $0.type == "iloc" }) else { return }
        let length = iloc.size - iloc.headerSize
        guard length <= Int64(maximumItemLocationBytes) else { return }
        var body = ByteCursor(bytes: reader.read(at: iloc.dataOffset, count: Int(length)))
        let malformed = StructureProblem("the 'iloc' box at byte \(iloc.offset) is malformed or cut short")

        guard let version = body.read(1), let _ = body.read(3), let sizes = body.read(1), let sizes2 = body.read(1) else { throw malformed }
        guard version <= 2 else { return }  // A future version: not understood, not judged.
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0x0F)
        let baseOffsetSize = Int(sizes2 >> 4), indexSize = version >= 1 ? Int(sizes2 & 0x0F) : 0
        let fieldSizes = [offsetSize, lengthSize, baseOffsetSize, indexSize]
        guard fieldSizes.allSatisfy({ [0, 4, 8].contains($0) }) else { throw malformed }
        guard let itemCount = body.read(version < 2 ? 2 : 4) else { throw malformed }
        for _ in 0..<itemCount {
            guard let itemID = body.read(version < 2 ? 2 : 4) else { throw malformed }
            var method: UInt64 = 0
            if version >= 1 {
                guard let field = body.read(2) else { throw malformed }
                method = field & 0x0F
            }
            guard let dataReference = body.read(2), let baseOffset = body.read(baseOffsetSize),
                  let extentCount = body.read(2) else { throw malformed }
            // Extents with no fields hold nothing to check (and must not spin a hostile count).
            guard offsetSize + lengthSize + indexSize > 0 else { continue }
            for _ in 0..<extentCount {
                guard body.read(indexSize) != nil, let offset = body.read(offsetSize),
                      let extentLength = body.read(lengthSize) else { throw malformed }
                guard method == 0, dataReference == 0 else { continue }
                let (start, overflow) = baseOffset.addingReportingOverflow(offset)
                let fileSize = UInt64(reader.size)
                guard !overflow, start <= fileSize, extentLength <= fileSize - start else {
                    throw StructureProblem("item \(itemID) has an extent of \(extentLength) bytes at byte \(start), past the end of the file at byte \(reader.size) (truncated)")
                }
            }
        }
    }
}

/// Reads big-endian unsigned fields of 0...8 bytes from a byte array; `nil` once the bytes run out.
struct ByteCursor {
    let bytes: [UInt8]
    private(set) var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The next `count`-byte big-endian field (a 0-byte field reads as 0).
    mutating func read(_ count: Int) -> UInt64? {
        guard count >= 0, count <= 8, position + count <= bytes.count else { return nil }
        var value: UInt64 = 0
        for k in 0..<count { value = value << 8 | UInt64(bytes[position + k]) }
        position += count
        return value
    }
}
