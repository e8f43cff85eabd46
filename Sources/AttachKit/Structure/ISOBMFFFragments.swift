/// Where a fragmented MP4's samples lie: each `moof`'s track fragments (`traf`) say, in `tfhd`
/// and `trun`, where their run of samples starts and how long each sample is. What vouches for
/// every sample of a file whose last `mdat` claims more bytes than it holds: when every run ends
/// inside the file, the overclaim lies outside the samples (recoverable), as the sample tables
/// vouch for an unfragmented movie.
enum ISOBMFFFragments {
    /// Runs read at most (a movie of one-second fragments of a few tracks for hours); a file with
    /// more is not vouched for.
    static let maxRuns = 100_000

    /// Why the file is a media segment rather than a movie: `moof` fragments (after a `styp`,
    /// `sidx`...) with no `moov` among the top-level boxes, as a DASH or HLS player fetches them,
    /// to be joined after the initialization segment that describes their tracks. `nil` when a
    /// `moov` is found, or no `moof` is among the first 100,000 boxes.
    static func mediaSegmentReason(_ reader: borrowing FileReader) -> String? {
        var position: Int64 = 0, boxes = 0, fragments = 0
        while position < reader.size, boxes < maxRuns, let box = try? ISOBMFFStructure.header(reader, at: position, end: reader.size) {
            if box.type == "moov" { return nil }
            if box.type == "moof" { fragments += 1 }
            boxes += 1
            position = box.end
        }
        guard fragments > 0 else { return nil }
        return "a media segment (\(fragments) 'moof' fragment\(fragments == 1 ? "" : "s") without the 'moov' of an initialization segment): "
            + "it holds samples but not the description of its tracks; attach the initialization segment and its media segments joined into one file"
    }

    /// The end of the farthest sample any run of the `moof` boxes in `topLevel` places; `nil`
    /// when the fragments cannot vouch for their samples: a `trun` without a data offset or
    /// sizes that cannot be placed, a run before the `moof`, a second `traf` based on the end of
    /// the first's data, more runs than ``maxRuns``, or no fragment at all.
    static func samplesEnd(_ reader: borrowing FileReader, topLevel: [ISOBMFFStructure.Box]) -> Int64? {
        var farthest: Int64?
        var runs = 0
        for moof in topLevel where moof.type == "moof" {
            guard let children = try? ISOBMFFStructure.walk(reader, from: moof.dataOffset, to: moof.end, depth: 1) else { return nil }
            for (index, traf) in children.filter({ $0.type == "traf" }).enumerated() {
                guard let parts = try? ISOBMFFStructure.walk(reader, from: traf.dataOffset, to: traf.end, depth: 2),
                      let tfhd = parts.first(where: { $0.type == "tfhd" }) else { return nil }
                let header = reader.read(at: tfhd.dataOffset, count: Int(min(tfhd.size - tfhd.headerSize, 64)))
                let flags = header.be24(1)
                var cursor = 8
                var base = moof.offset
                if flags & 0x01 != 0 {
                    base = Int64(bitPattern: header.be64(cursor))
                    cursor += 8
                } else if flags & 0x020000 == 0, index > 0 {
                    // A later fragment's data follows the one before's: not placed here.
                    return nil
                }
                if flags & 0x02 != 0 { cursor += 4 }
                if flags & 0x08 != 0 { cursor += 4 }
                let defaultSize: Int64? = flags & 0x10 != 0 ? Int64(header.be32(cursor)) : nil
                for trun in parts where trun.type == "trun" {
                    runs += 1
                    guard runs <= maxRuns, let end = runEnd(reader, trun, base: base, defaultSize: defaultSize), end > moof.offset else { return nil }
                    farthest = max(farthest ?? 0, end)
                }
            }
        }
        return farthest
    }

    /// Where one `trun`'s samples end: its data offset from `base`, plus each sample's size (its
    /// own, else `defaultSize`). Reads the sample table in 64 KiB pieces.
    private static func runEnd(_ reader: borrowing FileReader, _ trun: ISOBMFFStructure.Box, base: Int64, defaultSize: Int64?) -> Int64? {
        let head = reader.read(at: trun.dataOffset, count: 12)
        guard head.count == 12 else { return nil }
        let flags = head.be24(1), count = Int64(head.be32(4))
        guard flags & 0x01 != 0 else { return nil }
        let start = base + Int64(Int32(bitPattern: head.be32(8)))
        let fields = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }
        let entry = Int64(4 * fields.count)
        var position = trun.dataOffset + 12 + (flags & 0x04 != 0 ? 4 : 0)
        guard flags & 0x200 != 0 else {
            guard let defaultSize else { return nil }
            return start + count * defaultSize
        }
        guard position + count * entry <= trun.end else { return nil }
        let sizeAt = Int64(4 * fields.firstIndex(of: 0x200)!)
        var total: Int64 = 0
        var left = count
        while left > 0 {
            let taken = min(left, (1 << 16) / entry)
            let table = reader.read(at: position, count: Int(taken * entry))
            guard table.count == Int(taken * entry) else { return nil }
            for index in 0..<Int(taken) { total += Int64(table.be32(index * Int(entry) + Int(sizeAt))) }
            position += taken * entry
            left -= taken
        }
        return start + total
    }
}
