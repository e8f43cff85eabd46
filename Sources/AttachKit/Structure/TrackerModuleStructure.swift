/// The layout of the tracker modules after ProTracker (``ProTrackerStructure``): Scream Tracker 3
/// (`SCRM`), FastTracker 2 (`Extended Module: `) and Impulse Tracker (`IMPM`). Each header names
/// where its instruments, samples and patterns lie and how long each is; libopenmpt plays what a
/// cut file no longer holds as silence, so a module whose parts run past the end of the file is
/// truncated (`corrupt`). Only headers are read: the tables, one header per part, and for a
/// compressed Impulse Tracker sample its block lengths. Nothing is decoded.
enum TrackerModuleStructure {
    /// A part of a module and where it ends; the check is that every part ends inside the file.
    private struct Part {
        let name: String
        let end: Int64
    }

    /// Parts of one kind read at most (instruments, samples, patterns, an instrument's samples):
    /// above what any tracker writes (4,000), so the reads a hostile count can cause stay bounded.
    private static let maxParts = 4096

    /// Checks a Scream Tracker 3 module: the header (96 bytes), the order list and the
    /// instrument and pattern parapointers (offsets ÷ 16), each instrument's 80-byte header, its
    /// sample data (length × 2 for 16-bit × 2 for stereo), each pattern's packed length.
    static func checkScreamTracker(_ reader: borrowing FileReader) -> StructureVerdict {
        let header = reader.read(at: 0, count: 0x60)
        guard header.count == 0x60 else { return cutHeader }
        let (orders, instruments, patterns) = (Int(header.le16(0x20)), Int(header.le16(0x22)), Int(header.le16(0x24)))
        let tables = reader.read(at: 0x60, count: orders + 2 * (instruments + patterns))
        var parts = [Part(name: "the order list and parapointers", end: 0x60 + Int64(orders + 2 * (instruments + patterns)))]
        for index in 0..<min(instruments, maxParts) {
            let start = Int64(tables.le16(orders + 2 * index)) * 16
            guard start > 0 else { continue }
            let instrument = reader.read(at: start, count: 0x50)
            parts.append(Part(name: "instrument \(index + 1)'s header", end: start + 0x50))
            guard instrument.count == 0x50, instrument[0] == 1 else { continue }
            let data = Int64(instrument.u8(0x0D) << 16 | instrument.le16(0x0E)) * 16
            let flags = instrument.u8(0x1F)
            let bytes = Int64(instrument.le32(0x10)) * (flags & 4 != 0 ? 2 : 1) * (flags & 2 != 0 ? 2 : 1)
            if data > 0, bytes > 0 { parts.append(Part(name: "instrument \(index + 1)'s sample (\(bytes) bytes)", end: data + bytes)) }
        }
        for index in 0..<min(patterns, maxParts) {
            let start = Int64(tables.le16(orders + 2 * (instruments + index))) * 16
            guard start > 0 else { continue }
            let length = reader.read(at: start, count: 2)
            parts.append(Part(name: "pattern \(index)", end: start + max(2, Int64(length.le16(0)))))
        }
        return verdict(parts, size: reader.size)
    }

    /// Checks a FastTracker 2 module (version 1.04, the one every tracker writes): the header
    /// (its size at byte 60), each pattern (header length + packed size), each instrument's
    /// header, its sample headers and then its samples' bytes. Earlier versions lay the parts out
    /// otherwise and are not checked.
    static func checkFastTracker(_ reader: borrowing FileReader) -> StructureVerdict {
        let header = reader.read(at: 0, count: 80)
        guard header.count == 80 else { return cutHeader }
        guard header.le16(58) == 0x0104 else { return .intact }
        var position = 60 + Int64(header.le32(60))
        var parts = [Part(name: "the header", end: position)]
        for index in 0..<min(Int(header.le16(70)), maxParts) where position <= reader.size {
            let pattern = reader.read(at: position, count: 9)
            guard pattern.count == 9 else { return verdict(parts + [Part(name: "pattern \(index)'s header", end: position + 9)], size: reader.size) }
            position += max(9, Int64(pattern.le32(0))) + Int64(pattern.le16(7))
            parts.append(Part(name: "pattern \(index)", end: position))
        }
        for index in 0..<min(Int(header.le16(72)), maxParts) where position <= reader.size {
            let instrument = reader.read(at: position, count: 33)
            guard instrument.count >= 29 else { return verdict(parts + [Part(name: "instrument \(index + 1)'s header", end: position + 29)], size: reader.size) }
            let samples = Int(instrument.le16(27))
            position += max(29, Int64(instrument.le32(0)))
            parts.append(Part(name: "instrument \(index + 1)'s header", end: position))
            guard samples > 0 else { continue }
            let sampleHeader = max(40, Int64(instrument.le32(29)))
            var data: Int64 = 0
            for sample in 0..<min(samples, 256) {
                let length = reader.read(at: position + Int64(sample) * sampleHeader, count: 4)
                data += Int64(length.le32(0))
            }
            position += Int64(samples) * sampleHeader
            parts.append(Part(name: "instrument \(index + 1)'s sample headers", end: position))
            position += data
            parts.append(Part(name: "instrument \(index + 1)'s samples (\(data) bytes)", end: position))
        }
        return verdict(parts, size: reader.size)
    }

    /// Checks an Impulse Tracker module: the header (192 bytes), the order list and the offset
    /// tables of instruments, samples and patterns, each sample's header and data (IT 2.14
    /// compressed samples by their blocks' lengths), each pattern (8 bytes + its packed length).
    static func checkImpulseTracker(_ reader: borrowing FileReader) -> StructureVerdict {
        let header = reader.read(at: 0, count: 0xC0)
        guard header.count == 0xC0 else { return cutHeader }
        let (orders, instruments, samples, patterns) = (Int(header.le16(0x20)), Int(header.le16(0x22)), Int(header.le16(0x24)), Int(header.le16(0x26)))
        let tableStart = 0xC0 + orders
        let tables = reader.read(at: Int64(tableStart), count: 4 * (instruments + samples + patterns))
        var parts = [Part(name: "the order list and offset tables", end: Int64(tableStart + 4 * (instruments + samples + patterns)))]
        func offset(_ index: Int) -> Int64 { Int64(tables.le32(4 * index)) }
        for index in 0..<min(instruments, maxParts) where offset(index) > 0 {
            parts.append(Part(name: "instrument \(index + 1)'s header", end: offset(index) + 4))
        }
        var blockReads = 1 << 18
        for index in 0..<min(samples, maxParts) where offset(instruments + index) > 0 {
            let start = offset(instruments + index)
            let sample = reader.read(at: start, count: 0x50)
            parts.append(Part(name: "sample \(index + 1)'s header", end: start + 0x50))
            guard sample.count == 0x50, sample.u8(0x12) & 1 != 0 else { continue }
            let flags = sample.u8(0x12), length = Int64(sample.le32(0x30)), data = Int64(sample.le32(0x48))
            guard length > 0, data > 0 else { continue }
            let channels: Int64 = flags & 4 != 0 ? 2 : 1, width: Int64 = flags & 2 != 0 ? 2 : 1
            let end = flags & 8 != 0 ? compressedEnd(reader, from: data, samples: length, channels: channels, width: width, reads: &blockReads)
                                     : data + length * channels * width
            parts.append(Part(name: "sample \(index + 1)'s data", end: end))
        }
        for index in 0..<min(patterns, maxParts) where offset(instruments + samples + index) > 0 {
            let start = offset(instruments + samples + index)
            let length = reader.read(at: start, count: 2)
            parts.append(Part(name: "pattern \(index)", end: start + 8 + Int64(length.le16(0))))
        }
        return verdict(parts, size: reader.size)
    }

    /// Where an IT 2.14 compressed sample ends: per channel, one block per 32,768 samples
    /// (16,384 at 16 bits), each a 16-bit byte count and that many bytes. A block past the end of
    /// the file ends the walk there (the caller then finds the sample cut). `reads` is what is left
    /// of the module's budget of block reads; when it runs out, the rest is taken as present.
    private static func compressedEnd(_ reader: borrowing FileReader, from start: Int64, samples: Int64, channels: Int64, width: Int64,
                                      reads: inout Int) -> Int64 {
        let perBlock: Int64 = width == 2 ? 0x4000 : 0x8000
        let blocks = channels * ((samples + perBlock - 1) / perBlock)
        var position = start
        for _ in 0..<blocks {
            guard reads > 0 else { return position }
            reads -= 1
            let length = reader.read(at: position, count: 2)
            guard length.count == 2 else { return position + 2 }
            position += 2 + Int64(length.le16(0))
            guard position <= reader.size else { return position }
        }
        return position
    }

    private static let cutHeader = StructureVerdict.corrupt(reason: "the module header is cut off by the end of the file (truncated)")

    /// `corrupt` naming the first part that ends past `size` (truncated), else intact.
    private static func verdict(_ parts: [Part], size: Int64) -> StructureVerdict {
        guard let cut = parts.first(where: { $0.end > size }) else { return .intact }
        return .corrupt(reason: "\(cut.name) ends at byte \(cut.end), but the file ends at byte \(size) (truncated)")
    }
}
