/// How a TIFF file encodes its numbers (byte order, classic or BigTIFF), and the reading of its
/// IFDs' entries: the one IFD reader that ``TIFFLayout`` (IFD0's pixel layout),
/// ``TIFFStructure`` (every IFD's extents) and ``CameraRawLayout`` (a camera raw's previews,
/// SubIFDs and EXIF) share. Every read is bounds-checked against the file; nothing is allocated
/// from a count the file declares.
struct TIFFHeader: Sendable, Equatable {
    /// `II` (Intel) byte order; `MM` (Motorola) otherwise.
    let littleEndian: Bool
    /// BigTIFF (magic 43): 8-byte counts and offsets, 20-byte entries.
    let big: Bool
    /// 42 (TIFF), 43 (BigTIFF), or a camera raw's own (``rawMagics``).
    let magic: UInt32
    /// Where IFD0 is.
    let firstIFD: UInt64

    /// Magic numbers of camera raws laid out as TIFF under their own signature: Olympus ORF
    /// (`IIRO`/`MMOR`: 0x4F52, `IIRS`: 0x5352) and Panasonic RW2 (`IIU\0`: 0x55).
    static let rawMagics: Set<UInt32> = [0x4F52, 0x5352, 0x55]

    /// Bytes of one IFD entry, of an IFD's entry count, and of an offset.
    var entrySize: Int64 { big ? 20 : 12 }
    var countSize: Int64 { big ? 8 : 2 }
    var offsetSize: Int64 { big ? 8 : 4 }

    /// The header at the start of `head` (8 bytes, 16 for BigTIFF); `nil` without a byte-order
    /// mark, with another magic number, or cut short.
    init?(_ head: [UInt8]) {
        if head.matches([0x49, 0x49], at: 0) { littleEndian = true } else if head.matches([0x4D, 0x4D], at: 0) { littleEndian = false } else {
            return nil
        }
        let magic = littleEndian ? head.le16(2) : head.be16(2)
        guard magic == 42 || magic == 43 || Self.rawMagics.contains(magic) else { return nil }
        self.magic = magic
        big = magic == 43
        guard head.count >= (big ? 16 : 8) else { return nil }
        firstIFD = Self.value(head, at: big ? 8 : 4, size: big ? 8 : 4, littleEndian: littleEndian)
    }

    /// The byte-order mark and magic number alone, for a file cut before its first IFD offset.
    static func magic(_ head: [UInt8]) -> (littleEndian: Bool, magic: UInt32)? {
        guard head.count >= 4, head.matches([0x49, 0x49], at: 0) || head.matches([0x4D, 0x4D], at: 0) else { return nil }
        let little = head.matches([0x49, 0x49], at: 0)
        return (little, little ? head.le16(2) : head.be16(2))
    }

    /// The unsigned number of `size` bytes (1, 2, 4 or 8) at `i` of `bytes`, in the file's byte order.
    func value(_ bytes: [UInt8], at i: Int, size: Int) -> UInt64 {
        Self.value(bytes, at: i, size: size, littleEndian: littleEndian)
    }

    private static func value(_ bytes: [UInt8], at i: Int, size: Int, littleEndian: Bool) -> UInt64 {
        switch size {
        case 1: return UInt64(bytes.u8(i))
        case 2: return UInt64(littleEndian ? bytes.le16(i) : bytes.be16(i))
        case 4: return UInt64(littleEndian ? bytes.le32(i) : bytes.be32(i))
        default: return littleEndian ? bytes.le64(i) : bytes.be64(i)
        }
    }

    /// One IFD entry: its tag and type, how many values, and where they are.
    struct Entry: Sendable, Equatable {
        let tag: UInt32
        let type: UInt32
        /// Bytes of one value (0 for a type TIFF does not define).
        let typeSize: Int
        let count: UInt64
        /// File offset of the first value (inside the entry when all of them fit there).
        let valuesOffset: Int64

        /// Bytes the values take (saturating).
        var byteCount: UInt64 { count.multipliedReportingOverflow(by: UInt64(typeSize)).overflow ? .max : count * UInt64(typeSize) }
    }

    /// Bytes of one value of TIFF field type `type` (TIFF 6.0 and BigTIFF); 0 for an unknown type.
    static func typeSize(_ type: UInt32) -> Int {
        switch type {
        case 1, 2, 6, 7: return 1             // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: return 2                   // SHORT, SSHORT
        case 4, 9, 11, 13: return 4           // LONG, SLONG, FLOAT, IFD
        case 5, 10, 12, 16, 17, 18: return 8  // RATIONAL, SRATIONAL, DOUBLE, LONG8, SLONG8, IFD8
        default: return 0
        }
    }

    /// The entry at `i` of `bytes`, which were read from file offset `fileOffset`.
    func entry(_ bytes: [UInt8], at i: Int, fileOffset: Int64) -> Entry {
        let type = UInt32(value(bytes, at: i + 2, size: 2))
        let typeSize = Self.typeSize(type)
        let count = value(bytes, at: i + 4, size: big ? 8 : 4)
        let field = i + (big ? 12 : 8)
        let inline = typeSize > 0 && count <= UInt64(offsetSize) / UInt64(typeSize)
        let valuesOffset = inline ? fileOffset + Int64(field - i) : Int64(clamping: value(bytes, at: field, size: Int(offsetSize)))
        return Entry(tag: UInt32(value(bytes, at: i, size: 2)), type: type, typeSize: typeSize, count: count, valuesOffset: valuesOffset)
    }

    /// One IFD: its entries, and where the next one is (0 at the end of the chain).
    struct Directory: Sendable {
        let entries: [Entry]
        let next: UInt64
        /// Whether the file ends inside the entry table or its next offset (a file cut short).
        var cut = false

        /// The entry for `tag`, `nil` when the IFD has none.
        subscript(tag: UInt32) -> Entry? { entries.first { $0.tag == tag } }
    }

    /// The IFD at `offset`, its first `limit` entries at most (a longer table is read that far,
    /// and its next offset is then taken as 0); `nil` when the IFD is outside the file.
    func directory(_ reader: borrowing FileReader, at offset: UInt64, limit: Int) -> Directory? {
        guard offset >= 8, offset < UInt64(reader.size) else { return nil }
        let start = Int64(offset)
        let declared = value(reader.read(at: start, count: Int(countSize)), at: 0, size: Int(countSize))
        let count = Int(min(declared, UInt64(max(0, limit))))
        let table = reader.read(at: start + countSize, count: count * Int(entrySize))
        let whole = table.count / Int(entrySize)
        let entries = (0..<whole).map { entry(table, at: $0 * Int(entrySize), fileOffset: start + countSize + Int64($0) * entrySize) }
        guard declared <= UInt64(count), whole == count else { return Directory(entries: entries, next: 0, cut: whole < count) }
        let next = reader.read(at: start + countSize + Int64(count) * entrySize, count: Int(offsetSize))
        guard next.count == Int(offsetSize) else { return Directory(entries: entries, next: 0, cut: true) }
        return Directory(entries: entries, next: value(next, at: 0, size: Int(offsetSize)))
    }

    /// The first `limit` values of an integer entry (BYTE, SHORT, LONG, IFD, LONG8, IFD8, and the
    /// unsigned reading of their signed kinds) from its value `first` on; empty for other types or
    /// values outside the file.
    func numbers(_ reader: borrowing FileReader, _ entry: Entry, from first: UInt64 = 0, limit: Int = 64) -> [UInt64] {
        guard [1, 3, 4, 6, 8, 9, 13, 16, 17, 18].contains(entry.type), entry.typeSize > 0, entry.valuesOffset >= 0,
              first < entry.count, first <= UInt64(Int64.max) / UInt64(entry.typeSize) else { return [] }
        let n = Int(min(entry.count - first, UInt64(max(0, limit))))
        let (start, overflow) = entry.valuesOffset.addingReportingOverflow(Int64(first) * Int64(entry.typeSize))
        guard !overflow else { return [] }
        let bytes = reader.read(at: start, count: n * entry.typeSize)
        return (0..<(bytes.count / entry.typeSize)).map { value(bytes, at: $0 * entry.typeSize, size: entry.typeSize) }
    }

    /// Whether an entry's values (out of line) run past the end of the file.
    func valuesRunPastEnd(_ reader: borrowing FileReader, _ entry: Entry) -> Bool {
        let size = UInt64(reader.size)
        return entry.valuesOffset < 0 || UInt64(entry.valuesOffset) > size || entry.byteCount > size - UInt64(entry.valuesOffset)
    }

    /// The first value of an integer entry; `nil` when it has none.
    func number(_ reader: borrowing FileReader, _ entry: Entry?) -> UInt64? {
        guard let entry else { return nil }
        return numbers(reader, entry, limit: 1).first
    }

    /// An ASCII entry's text up to its first NUL, at most `limit` bytes, without trailing spaces;
    /// `nil` for another type or an empty text.
    func text(_ reader: borrowing FileReader, _ entry: Entry?, limit: Int = 128) -> String? {
        guard let entry, entry.type == 2, entry.valuesOffset >= 0 else { return nil }
        let bytes = reader.read(at: entry.valuesOffset, count: Int(min(entry.count, UInt64(max(0, limit)))))
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        let trimmed = String(text.reversed().drop { $0 == " " }.reversed())
        return trimmed.isEmpty ? nil : trimmed
    }
}
