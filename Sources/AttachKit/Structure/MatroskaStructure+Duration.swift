extension MatroskaStructure {
    private static let timestampScaleID: UInt32 = 0x2A_D7B1
    private static let durationID: UInt32 = 0x4489
    private static let timestampID: UInt32 = 0xE7
    private static let simpleBlockID: UInt32 = 0xA3
    private static let blockGroupID: UInt32 = 0xA0
    private static let blockID: UInt32 = 0xA1
    private static let blockDurationID: UInt32 = 0x9B
    /// The largest `Info` element read (real ones hold a few hundred bytes).
    private static let maximumInfoBytes: UInt64 = 1 << 20

    /// The blocks must reach the `Duration` that `Info` declares: when the last Cluster's last block
    /// (its Cluster timestamp plus the block's relative timestamp and duration) ends before
    /// ``DeepCheck/minimumDurationShare`` of it and more than ``DeepCheck/durationSlack`` seconds
    /// short, the content was cut off after the header was written. Nothing is judged when `Info`
    /// has no `Duration` (live recordings) or the last Cluster has no timestamp.
    /// - Throws: ``StructureProblem`` when the content ends too early.
    static func clustersCoverDuration(_ reader: borrowing FileReader, info: Element, lastCluster: Element,
                                      clusterEnd: Int64) throws(StructureProblem) {
        guard let infoSize = info.size, infoSize <= maximumInfoBytes else { return }
        let body = reader.read(at: info.dataOffset, count: Int(infoSize))
        var scale: UInt64 = 1_000_000
        var duration: Double?
        var i = 0
        while i < body.count {
            guard let (id, idLength) = FormatSniffer.ebmlElementID(body, at: i),
                  let (size, sizeLength) = FormatSniffer.ebmlVarInt(body, at: i + idLength),
                  size <= UInt64(body.count - i - idLength - sizeLength) else { break }
            let data = i + idLength + sizeLength
            if id == timestampScaleID { scale = unsigned(body, at: data, size: Int(size)) }
            if id == durationID { duration = float(body, at: data, size: Int(size)) }
            i = data + Int(size)
        }
        guard let duration, duration.isFinite, duration > 0, scale > 0,
              let lastTicks = lastBlockEnd(reader, from: lastCluster.dataOffset, to: clusterEnd) else { return }
        let declared = duration * Double(scale) / 1e9
        let covered = Double(lastTicks) * Double(scale) / 1e9
        if covered < declared * DeepCheck.minimumDurationShare, declared - covered > DeepCheck.durationSlack {
            let rounded = { (seconds: Double) in (seconds * 1000).rounded() / 1000 }
            throw StructureProblem("the last Cluster (byte \(lastCluster.offset)) ends at \(rounded(covered)) s but Info declares a duration of \(rounded(declared)) s (content cut short)")
        }
    }

    /// The end, in timestamp-scale ticks, of the latest block in the Cluster between `start` and
    /// `end`; `nil` when the Cluster has no timestamp. Malformed children end the walk early. A
    /// `SimpleBlock` has no duration: the last one is taken to last as long as the longest step
    /// between the Cluster's simple blocks (a 1 fps clip's last frame lasts a second).
    private static func lastBlockEnd(_ reader: borrowing FileReader, from start: Int64, to end: Int64) -> Int64? {
        var clusterTime: Int64?
        var latest: Int64 = 0
        var simpleTimes: [Int64] = []
        var position = start
        while position < end, let child = try? element(reader, at: position), let size = child.size,
              let next = try? self.end(of: child, size: size, limit: end, what: "the Cluster") {
            switch child.id {
            case timestampID:
                let bytes = reader.read(at: child.dataOffset, count: Int(min(size, 8)))
                clusterTime = Int64(clamping: unsigned(bytes, at: 0, size: bytes.count))
            case simpleBlockID:
                let time = blockTime(reader, at: child.dataOffset)
                latest = max(latest, time)
                if simpleTimes.count < 4096 { simpleTimes.append(time) }
            case blockGroupID:
                var time: Int64 = 0, length: Int64 = 0
                var inner = child.dataOffset
                while inner < next, let part = try? element(reader, at: inner), let partSize = part.size,
                      let partEnd = try? self.end(of: part, size: partSize, limit: next, what: "the BlockGroup") {
                    if part.id == blockID { time = blockTime(reader, at: part.dataOffset) }
                    if part.id == blockDurationID {
                        let bytes = reader.read(at: part.dataOffset, count: Int(min(partSize, 8)))
                        length = Int64(clamping: unsigned(bytes, at: 0, size: bytes.count))
                    }
                    inner = partEnd
                }
                latest = max(latest, time + min(length, Int64(Int32.max)))
            default:
                break
            }
            position = next
        }
        guard let clusterTime else { return nil }
        let times = Set(simpleTimes).sorted()
        let step = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
        if let last = times.last { latest = max(latest, last + step) }
        return clusterTime.addingReportingOverflow(latest).overflow ? nil : clusterTime + latest
    }

    /// A block's timestamp relative to its Cluster: a signed 16-bit value after the track number.
    private static func blockTime(_ reader: borrowing FileReader, at offset: Int64) -> Int64 {
        let head = reader.read(at: offset, count: 12)
        guard let (_, trackLength) = FormatSniffer.ebmlVarInt(head, at: 0), trackLength + 2 <= head.count else { return 0 }
        return Int64(Int16(bitPattern: UInt16(head.be16(trackLength))))
    }

    private static func unsigned(_ bytes: [UInt8], at i: Int, size: Int) -> UInt64 {
        guard size <= 8 else { return 0 }
        var value: UInt64 = 0
        for k in 0..<size { value = value << 8 | UInt64(bytes.u8(i + k)) }
        return value
    }

    private static func float(_ bytes: [UInt8], at i: Int, size: Int) -> Double? {
        switch size {
        case 4: return Double(Float(bitPattern: bytes.be32(i)))
        case 8: return Double(bitPattern: bytes.be64(i))
        default: return nil
        }
    }
}
