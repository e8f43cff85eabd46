/// What a camera raw's header says besides its sensor data: who made it, the sensor's size, its
/// orientation, and where every JPEG it embeds is (full-size previews, smaller previews,
/// thumbnails). ``CameraRawPreview`` chooses among them.
///
/// TIFF-based raws (NEF, ARW, CR2, DNG, ORF, RW2, PEF) are read through ``TIFFHeader``: IFD0 and
/// the IFDs chained after it, their SubIFDs (tag 0x014A) and EXIF IFD (0x8769), two levels deep
/// at most, ``maximumIFDs`` in all, each IFD seen once (a list of SubIFDs naming one many times is
/// read through: ``maximumSubIFDOffsets``; SubIFDs past the cap are said, ``unread``). A JPEG is an IFD's
/// JPEGInterchangeFormat/Length (0x0201/0x0202), or its single strip when its Compression is JPEG
/// (6 or 7), or a Panasonic RW2's JpgFromRaw (0x002E). A Fujifilm RAF gives its JPEG and its
/// sensor size in its own header; a Canon CR3 its preview and thumbnail in Canon's boxes
/// (``readCR3(_:)``). Maker notes are not read (an Olympus ORF keeps its preview there). Everything is bounds-checked; nothing is allocated from a count the file declares.
///
/// Whatever the header points to past the end of the file (an IFD, a list of SubIFDs, a JPEG, a
/// strip or tile, a box, RAF's directory or sensor data) is kept in words (``cut``): the raw was
/// cut short. Without a usable preview that makes it corrupt; with one, recoverable
/// (``CameraRawPreview``, ``CameraRawStructure``), the same for every raw.
struct CameraRawLayout: Sendable, Equatable {
    /// Where one embedded JPEG is in the file.
    struct JPEG: Sendable, Equatable, Hashable {
        let offset: Int64
        let length: Int64
    }

    var make: String?
    var model: String?
    /// IFD0's Orientation (1...8); `nil` when the raw gives none.
    var orientation: Int?
    /// A DNG's DNGVersion (tag 0xC612), `nil` for other files.
    var dngVersion: [Int]?
    /// Whether some IFD holds sensor data: a CFA or LinearRaw picture, or a maker's raw compression.
    var holdsSensorData = false
    var sensorWidth: Int?
    var sensorHeight: Int?
    /// Every embedded JPEG found, in the order found.
    var jpegs: [JPEG] = []
    /// The first JPEG the header places (in part) past the end of the file, in words.
    var cutJPEG: String?
    /// The first other structure the header points to past the end of the file, in words: an IFD
    /// or its entry table, a list of SubIFDs, a strip or tile (the sensor data's), a box, RAF's
    /// directory or sensor data.
    var cutData: String?
    /// IFDs the walk did not read, in words: SubIFDs over ``maximumIFDs`` or
    /// ``maximumSubIFDOffsets``, or IFDs the file ends in; `nil` when it read every one listed.
    var unread: String?

    /// What the header points to past the end of the file (a cut JPEG first), in words; `nil`
    /// when everything it points to is inside the file.
    var cut: String? { cutJPEG ?? cutData }

    /// Strips or tiles checked per IFD at most.
    static let maximumExtents = 4096

    /// IFDs read at most.
    static let maximumIFDs = 64
    /// SubIFD offsets read at most, in all (repeated ones are read once each as IFDs).
    static let maximumSubIFDOffsets = 1 << 16
    /// Entries read per IFD at most (a raw's IFDs hold a few dozen).
    static let maximumEntries = 1024

    /// Compression values that only sensor data uses: Nikon's (34713), Sony's (32767), Pentax's
    /// (65535), Samsung's and Nikon's packed formats (32769, 32770).
    private static let rawCompressions: Set<UInt64> = [32767, 32769, 32770, 34713, 65535]
    /// PhotometricInterpretation of sensor data: CFA (32803), LinearRaw (34892).
    private static let rawPhotometrics: Set<UInt64> = [32803, 34892]

    /// The layout of the raw in `reader`, read as `container` says (RAF by its header, CR3 not at
    /// all, the others as TIFF); `nil` when it cannot be read that way.
    static func read(_ reader: borrowing FileReader, container: Container) -> CameraRawLayout? {
        switch container {
        case .raf: return readRAF(reader)
        case .cr3: return readCR3(reader)
        default: return readTIFF(reader)
        }
    }

    /// A TIFF-based raw: the walk described above.
    static func readTIFF(_ reader: borrowing FileReader) -> CameraRawLayout? {
        guard let header = TIFFHeader(reader.read(at: 0, count: 16)) else { return nil }
        var layout = CameraRawLayout()
        var queue: [(offset: UInt64, depth: Int)] = [(header.firstIFD, 0)]
        // Every IFD queued, once: at most ``maximumIFDs``.
        var queued: Set<UInt64> = [header.firstIFD]
        var subIFDOffsetsRead = 0
        var subIFDsCapped = false
        var exifSize: (width: Int, height: Int)?
        var ifd0 = true
        while !queue.isEmpty {
            let (offset, depth) = queue.removeFirst()
            guard offset != 0 else { continue }
            guard let ifd = header.directory(reader, at: offset, limit: maximumEntries) else {
                if offset >= UInt64(reader.size) {
                    layout.noteUnread("the IFD at byte \(offset) lies past the end of the file at byte \(reader.size)")
                }
                continue
            }
            if ifd.cut { layout.noteUnread("the entry table of the IFD at byte \(offset) runs past the end of the file at byte \(reader.size)") }
            if ifd0 {
                layout.make = header.text(reader, ifd[0x010F])
                layout.model = header.text(reader, ifd[0x0110])
                layout.orientation = header.number(reader, ifd[0x0112]).flatMap { (1...8).contains($0) ? Int($0) : nil }
                if let version = ifd[0xC612] { layout.dngVersion = header.numbers(reader, version, limit: 4).map { Int($0) } }
                // Panasonic: the sensor's size (tags 2 and 3) and a JPEG of its own (0x2E).
                if TIFFHeader.rawMagics.contains(header.magic) {
                    layout.holdsSensorData = true
                    if let width = header.number(reader, ifd[0x0002]), let height = header.number(reader, ifd[0x0003]) {
                        layout.noteSensor(width: width, height: height)
                    }
                    if let jpeg = ifd[0x002E], jpeg.type == 7 { layout.add(JPEG(offset: jpeg.valuesOffset, length: Int64(clamping: jpeg.count)), in: reader) }
                }
                ifd0 = false
            }
            func enqueue(_ next: UInt64, depth: Int) -> Bool {
                guard next != 0, !queued.contains(next) else { return true }
                guard queued.count < maximumIFDs else { return false }
                queued.insert(next)
                queue.append((next, depth))
                return true
            }
            if depth == 0 { _ = enqueue(ifd.next, depth: 0) }
            if depth < 2 {
                if let subIFDs = ifd[0x014A] {
                    if header.valuesRunPastEnd(reader, subIFDs) {
                        layout.noteUnread("the \(subIFDs.count) SubIFD offsets of the IFD at byte \(offset) (at byte \(subIFDs.valuesOffset)) run past the end of the file at byte \(reader.size)")
                    }
                    // Read in pieces, each IFD queued once: a list naming a few IFDs many times is read through.
                    var first: UInt64 = 0
                    reading: while first < subIFDs.count, !subIFDsCapped {
                        guard subIFDOffsetsRead < maximumSubIFDOffsets else {
                            layout.unread = "its SubIFD lists name more than \(maximumSubIFDOffsets) IFDs, and the rest were not read"
                            subIFDsCapped = true
                            break
                        }
                        let piece = header.numbers(reader, subIFDs, from: first, limit: min(4096, maximumSubIFDOffsets - subIFDOffsetsRead))
                        guard !piece.isEmpty else { break }
                        subIFDOffsetsRead += piece.count
                        first += UInt64(piece.count)
                        for next in piece {
                            guard enqueue(next, depth: depth + 1) else {
                                layout.unread = "its SubIFDs make more than the \(maximumIFDs) IFDs read here, and the rest were not read"
                                subIFDsCapped = true
                                break reading
                            }
                        }
                    }
                }
                if let exif = header.number(reader, ifd[0x8769]) { _ = enqueue(exif, depth: depth + 1) }
            }
            if let width = header.number(reader, ifd[0xA002]), let height = header.number(reader, ifd[0xA003]), width > 0, height > 0 {
                exifSize = (Int(min(width, 1 << 20)), Int(min(height, 1 << 20)))
            }
            let compression = header.number(reader, ifd[0x0103])
            let photometric = header.number(reader, ifd[0x0106])
            if let start = header.number(reader, ifd[0x0201]), let length = header.number(reader, ifd[0x0202]) {
                layout.add(JPEG(offset: Int64(clamping: start), length: Int64(clamping: length)), in: reader)
            } else if compression == 6 || compression == 7, let strips = ifd[0x0111], strips.count == 1,
                      let start = header.number(reader, strips), let length = header.number(reader, ifd[0x0117]) {
                layout.add(JPEG(offset: Int64(clamping: start), length: Int64(clamping: length)), in: reader)
            }
            if let cut = cutExtent(ifd, at: offset, header: header, reader: reader) { layout.noteCut(cut) }
            if photometric.map(rawPhotometrics.contains) == true || compression.map(rawCompressions.contains) == true {
                layout.holdsSensorData = true
                if let width = header.number(reader, ifd[0x0100]), let height = header.number(reader, ifd[0x0101]) {
                    layout.noteSensor(width: width, height: height)
                }
            }
        }
        if layout.sensorWidth == nil, let exifSize { (layout.sensorWidth, layout.sensorHeight) = (exifSize.width, exifSize.height) }
        return layout
    }

    /// A Fujifilm RAF: `FUJIFILMCCD-RAW `, the format version, the camera's id and name (32
    /// bytes at 28), then big-endian offsets: the JPEG at 84 (its length at 88), the metadata
    /// directory at 92 (its length at 96), the sensor data at 100 (its length at 104); the directory's entries (tag, size, data) give the sensor's size (0x0100: height,
    /// width). The camera's orientation is in the JPEG's own EXIF.
    static func readRAF(_ reader: borrowing FileReader) -> CameraRawLayout? {
        let head = reader.read(at: 0, count: 108)
        guard head.count >= 100, head.matches("FUJIFILMCCD-RAW ", at: 0) else { return nil }
        var layout = CameraRawLayout(make: "FUJIFILM", holdsSensorData: true)
        let name = String(decoding: head[28..<60].prefix { $0 != 0 }, as: UTF8.self)
        layout.model = name.isEmpty ? nil : name
        layout.add(JPEG(offset: Int64(head.be32(84)), length: Int64(head.be32(88))), in: reader)
        layout.noteExtent(offset: Int64(head.be32(92)), length: Int64(head.be32(96)), what: "metadata directory", in: reader)
        if head.count == 108 { layout.noteExtent(offset: Int64(head.be32(100)), length: Int64(head.be32(104)), what: "sensor data", in: reader) }
        let directory = Int64(head.be32(92))
        let count = min(Int(reader.read(at: directory, count: 4).be32(0)), 256)
        var position = directory + 4
        for _ in 0..<count {
            let entry = reader.read(at: position, count: 8)
            guard entry.count == 8 else { break }
            let size = Int64(entry.be16(2))
            if entry.be16(0) == 0x0100, size >= 4 {
                layout.noteSensor(width: UInt64(entry.be16(6)), height: UInt64(entry.be16(4)))
            }
            position += 4 + size
        }
        return layout
    }

    /// Canon's `uuid` box inside a CR3's `moov` (metadata and thumbnail), and its top-level `uuid`
    /// box holding the `PRVW` preview.
    private static let canonMetadataUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
    private static let canonPreviewUUID: [UInt8] = [0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16]

    /// A Canon CR3 (ISO base media, brand `crx `), as its layout is published (lclevy's
    /// canon_cr3, Google's piex): in the `moov`'s Canon `uuid` box, `CMT1` holds a TIFF whose IFD0
    /// gives the make, model, orientation and full size, and `THMB` a 160×120 JPEG (its length at
    /// byte 16 of the box, the JPEG at 24); the top-level preview `uuid` box holds, 8 bytes after
    /// its UUID, the `PRVW` box (1620×1080 on Canon's cameras: its length at byte 20, the JPEG at
    /// 24). The full-size JPEG a CR3 also carries (its first track's sample in `mdat`) is not read.
    static func readCR3(_ reader: borrowing FileReader) -> CameraRawLayout? {
        var layout = CameraRawLayout(holdsSensorData: true)
        for box in layout.boxes(reader, from: 0, to: reader.size) {
            if box.type == "moov" {
                for inner in layout.boxes(reader, from: box.dataOffset, to: box.end) where inner.type == "uuid"
                    && reader.read(at: inner.dataOffset, count: 16) == canonMetadataUUID {
                    for item in layout.boxes(reader, from: inner.dataOffset + 16, to: inner.end) {
                        switch item.type {
                        case "CMT1": layout.readCanonIFD0(reader, at: item.dataOffset, count: item.end - item.dataOffset)
                        case "THMB": layout.addBoxedJPEG(reader, box: item, lengthAt: 16, dataAt: 24)
                        default: break
                        }
                    }
                }
            }
            if box.type == "uuid", reader.read(at: box.dataOffset, count: 16) == canonPreviewUUID {
                for item in layout.boxes(reader, from: box.dataOffset + 16 + 8, to: box.end) where item.type == "PRVW" {
                    layout.addBoxedJPEG(reader, box: item, lengthAt: 20, dataAt: 24)
                }
            }
        }
        return layout
    }

    /// The boxes from `start` to `end` (``ISOBMFFStructure/header(_:at:end:)``), 64 at most,
    /// up to the first that cannot be read; that one is kept in ``cutData`` when it runs past the
    /// end of the file (the sensor data's `mdat`, the preview's `uuid`... cut short).
    private mutating func boxes(_ reader: borrowing FileReader, from start: Int64, to end: Int64) -> [ISOBMFFStructure.Box] {
        var found: [ISOBMFFStructure.Box] = []
        var position = start
        while position < end, found.count < 64 {
            guard let box = try? ISOBMFFStructure.header(reader, at: position, end: end) else {
                if let whole = try? ISOBMFFStructure.header(reader, at: position, end: .max), whole.end > reader.size {
                    noteCut("the '\(whole.type)' box (\(whole.size) bytes at byte \(whole.offset)) runs past the end of the file at byte \(reader.size)")
                }
                break
            }
            found.append(box)
            position = box.end
        }
        return found
    }

    /// A CR3's `CMT1`: a TIFF whose IFD0 gives the make, model, orientation and full size.
    private mutating func readCanonIFD0(_ reader: borrowing FileReader, at offset: Int64, count: Int64) {
        guard let tiff = reader.window(at: offset, count: count), let header = TIFFHeader(tiff.read(at: 0, count: 16)),
              let ifd0 = header.directory(tiff, at: header.firstIFD, limit: Self.maximumEntries) else { return }
        make = header.text(tiff, ifd0[0x010F])
        model = header.text(tiff, ifd0[0x0110])
        orientation = header.number(tiff, ifd0[0x0112]).flatMap { (1...8).contains($0) ? Int($0) : nil }
        if let width = header.number(tiff, ifd0[0x0100]), let height = header.number(tiff, ifd0[0x0101]) { noteSensor(width: width, height: height) }
    }

    /// A JPEG inside a box: its length (big-endian, 4 bytes) at `lengthAt` bytes into the box, its
    /// data at `dataAt`; kept when it fits in the box.
    private mutating func addBoxedJPEG(_ reader: borrowing FileReader, box: ISOBMFFStructure.Box, lengthAt: Int64, dataAt: Int64) {
        let length = Int64(reader.read(at: box.offset + lengthAt, count: 4).be32(0))
        guard box.offset + dataAt <= box.end - length else { return }
        add(JPEG(offset: box.offset + dataAt, length: length), in: reader)
    }

    /// The first strip (0x0111/0x0117) or tile (0x0144/0x0145) of `ifd` that runs past the end of
    /// the file, in words; `nil` when none of the first ``maximumExtents`` does.
    private static func cutExtent(_ ifd: TIFFHeader.Directory, at offset: UInt64, header: TIFFHeader, reader: borrowing FileReader) -> String? {
        for (offsets, counts, what) in [(UInt32(0x0111), UInt32(0x0117), "strip"), (0x0144, 0x0145, "tile")] {
            guard let starts = ifd[offsets], let lengths = ifd[counts] else { continue }
            let a = header.numbers(reader, starts, limit: maximumExtents), b = header.numbers(reader, lengths, limit: maximumExtents)
            for (k, (start, length)) in zip(a, b).enumerated() where start > UInt64(reader.size) || length > UInt64(reader.size) - start {
                return "the IFD at byte \(offset): \(what) \(k + 1) of \(starts.count) (\(length) bytes at byte \(start)) runs past the end of the file at byte \(reader.size)"
            }
        }
        return nil
    }

    /// Keeps `jpeg` when it lies inside the file and starts with `SOI`, once; one placed past the
    /// end of the file, or starting inside it with `SOI` but ending past it, is said in ``cutJPEG``.
    private mutating func add(_ jpeg: JPEG, in reader: borrowing FileReader) {
        guard jpeg.offset >= 0, jpeg.length >= 4, !jpegs.contains(jpeg) else { return }
        let startsJPEG = reader.read(at: jpeg.offset, count: 3) == [0xFF, 0xD8, 0xFF]
        if jpeg.offset <= reader.size - jpeg.length {
            if startsJPEG { jpegs.append(jpeg) }
        } else if startsJPEG || jpeg.offset >= reader.size, cutJPEG == nil {
            let place = jpeg.offset >= reader.size ? "lies past" : "runs past"
            cutJPEG = "its embedded JPEG of \(jpeg.length) bytes at byte \(jpeg.offset) \(place) the end of the file at byte \(reader.size)"
        }
    }

    /// Keeps `what` in ``cutData`` when `length` bytes at `offset` run past the end of the file.
    private mutating func noteExtent(offset: Int64, length: Int64, what: String, in reader: borrowing FileReader) {
        guard length > 0, offset > reader.size || length > reader.size - offset else { return }
        noteCut("the \(what) (\(length) bytes at byte \(offset)) runs past the end of the file at byte \(reader.size)")
    }

    /// An IFD (or a list of them) the file ends in: kept in ``cutData`` and ``unread``, since what
    /// it holds (the sensor data, the preview) was not read.
    private mutating func noteUnread(_ cut: String) {
        noteCut(cut)
        if unread == nil { unread = cut }
    }

    /// Keeps `cut` in ``cutData`` unless an earlier one is there.
    private mutating func noteCut(_ cut: String) {
        if cutData == nil { cutData = cut }
    }

    /// The sensor is the largest raw image seen.
    private mutating func noteSensor(width: UInt64, height: UInt64) {
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else { return }
        if Int(width) * Int(height) > (sensorWidth ?? 0) * (sensorHeight ?? 0) { (sensorWidth, sensorHeight) = (Int(width), Int(height)) }
    }
}
