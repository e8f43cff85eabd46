/// Matroska and WebM layout: the EBML header inside the file, then a `Segment` whose declared size
/// fits in the file (an unknown size, as live writers leave it, means "to the end of the file"),
/// then the Segment's top-level children (`SeekHead`, `Info`, `Tracks`, `Cluster`, `Cues`...),
/// each inside the Segment. The Segment must hold `Info` and `Tracks`.
///
/// Only a `Cluster` may have an unknown size; its end is found by walking its blocks up to the
/// next top-level element. Bytes after a sized Segment (a chained second Segment) are not checked.
/// The EBML header's own children must be well-formed and inside it.
///
/// Content cut short: when `Info` declares a `Duration`, the last Cluster's last block must start
/// near it (see ``clustersCoverDuration(_:info:lastCluster:clusterEnd:)``).
enum MatroskaStructure {
    private static let ebmlHeaderID: UInt32 = 0x1A45_DFA3
    private static let segmentID: UInt32 = 0x1853_8067
    static let clusterID: UInt32 = 0x1F43_B675
    static let infoID: UInt32 = 0x1549_A966
    private static let tracksID: UInt32 = 0x1654_AE6B
    private static let voidID: UInt32 = 0xEC
    /// IDs that end an unknown-size Cluster: the Segment's other children.
    private static let topLevelIDs: Set<UInt32> = [
        0x114D_9B74, 0x1549_A966, 0x1654_AE6B, 0x1F43_B675, 0x1C53_BB6B, 0x1941_A469, 0x1043_A770, 0x1254_C367,
    ]

    /// One element header: ID, where its data starts, and its size (`nil` = unknown).
    struct Element {
        let id: UInt32
        let offset: Int64
        let dataOffset: Int64
        let size: UInt64?
    }

    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        do throws(StructureProblem) {
            let header = try element(reader, at: 0)
            guard header.id == ebmlHeaderID, let headerSize = header.size else {
                throw StructureProblem("no EBML header with a known size at byte 0")
            }
            let headerEnd = try end(of: header, size: headerSize, limit: reader.size, what: "the file")
            var position = header.dataOffset
            while position < headerEnd {
                let child = try element(reader, at: position)
                guard let size = child.size else {
                    throw StructureProblem("\(name(child.id)) at byte \(child.offset) in the EBML header has an unknown size")
                }
                position = try end(of: child, size: size, limit: headerEnd, what: "the EBML header")
            }
            var segment = try element(reader, at: position)
            while segment.id == voidID, let size = segment.size {
                position = try end(of: segment, size: size, limit: reader.size, what: "the file")
                segment = try element(reader, at: position)
            }
            guard segment.id == segmentID else {
                throw StructureProblem("no Segment after the EBML header (found \(name(segment.id)) at byte \(segment.offset))")
            }
            var segmentEnd = reader.size  // An unknown size: the Segment runs to the end of the file.
            if let size = segment.size {
                segmentEnd = try end(of: segment, size: size, limit: reader.size, what: "the file")
            }
            var info: Element?
            var sawTracks = false
            var lastCluster: (element: Element, end: Int64)?
            position = segment.dataOffset
            while position < segmentEnd {
                let child = try element(reader, at: position)
                if let size = child.size {
                    position = try end(of: child, size: size, limit: segmentEnd, what: "the Segment")
                } else {
                    guard child.id == clusterID else {
                        throw StructureProblem("\(name(child.id)) at byte \(child.offset) has an unknown size (only a Cluster may)")
                    }
                    position = try endOfOpenCluster(reader, from: child.dataOffset, limit: segmentEnd)
                }
                if child.id == infoID, info == nil { info = child }
                if child.id == tracksID { sawTracks = true }
                if child.id == clusterID { lastCluster = (child, position) }
            }
            guard let info else { throw StructureProblem("the Segment has no Info element") }
            guard sawTracks else { throw StructureProblem("the Segment has no Tracks element") }
            if let lastCluster {
                try clustersCoverDuration(reader, info: info, lastCluster: lastCluster.element, clusterEnd: lastCluster.end)
            }
            return .intact
        } catch {
            return .corrupt(reason: error.reason)
        }
    }

    private static let elementNames: [UInt32: String] = [
        ebmlHeaderID: "EBML header", segmentID: "Segment", clusterID: "Cluster", infoID: "Info", tracksID: "Tracks",
        0x114D_9B74: "SeekHead", 0x1C53_BB6B: "Cues", 0x1941_A469: "Attachments", 0x1043_A770: "Chapters",
        0x1254_C367: "Tags", voidID: "Void", 0xA3: "SimpleBlock", 0xA0: "BlockGroup",
    ]

    /// A readable name for the elements a report may mention, else the hexadecimal ID.
    static func name(_ id: UInt32) -> String {
        elementNames[id] ?? "element 0x" + String(id, radix: 16, uppercase: true)
    }

    /// The element header at `offset`.
    static func element(_ reader: borrowing FileReader, at offset: Int64) throws(StructureProblem) -> Element {
        let bytes = reader.read(at: offset, count: 12)
        guard !bytes.isEmpty else {
            throw StructureProblem("an element header is missing at byte \(offset): the file ends (truncated)")
        }
        guard let (id, idLength) = FormatSniffer.ebmlElementID(bytes, at: 0),
              let (size, sizeLength) = FormatSniffer.ebmlVarInt(bytes, at: idLength) else {
            if bytes.count < 12 {
                throw StructureProblem("the element header at byte \(offset) is cut off by the end of the file (truncated)")
            }
            throw StructureProblem("invalid EBML element header at byte \(offset)")
        }
        return Element(id: id, offset: offset, dataOffset: offset + Int64(idLength + sizeLength),
                       size: size == UInt64.max ? nil : size)
    }

    /// Where a sized element ends; it must end by `limit`.
    static func end(of element: Element, size: UInt64, limit: Int64, what: String) throws(StructureProblem) -> Int64 {
        let available = limit - element.dataOffset
        guard available >= 0, size <= UInt64(available) else {
            throw StructureProblem("\(name(element.id)) at byte \(element.offset) declares \(size) bytes but \(what) ends at byte \(limit) (truncated)")
        }
        return element.dataOffset + Int64(size)
    }

    /// Walks the blocks of an unknown-size Cluster; it ends at the next top-level element or at `limit`.
    static func endOfOpenCluster(_ reader: borrowing FileReader, from start: Int64, limit: Int64) throws(StructureProblem) -> Int64 {
        var position = start
        while position < limit {
            let child = try element(reader, at: position)
            if topLevelIDs.contains(child.id) { return position }
            guard let size = child.size else {
                throw StructureProblem("\(name(child.id)) at byte \(child.offset) inside a Cluster has an unknown size")
            }
            position = try end(of: child, size: size, limit: limit, what: "the Segment")
        }
        return position
    }
}
