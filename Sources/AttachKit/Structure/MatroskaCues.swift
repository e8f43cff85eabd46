/// What a Matroska or WebM file's index (`Cues`) declares, read before libavformat sees it.
///
/// libavformat reads the `Cues` with the header (where the `SeekHead` says they are, or met
/// before the first Cluster) and turns each `CueTrackPositions` into an index entry, inserted one
/// at a time in time order (`ff_add_index_entry`): an entry earlier than the last moves every
/// later one. Writers list cue points in time order; a 10.8 MB file of 200,000 cue points in
/// falling time took 18 s to probe (0.25 s in rising time), and the time grows with the square of
/// the count. So the count is held against ``SafetyLimits/maxSamples`` (each entry counted as
/// ``samplesPerEntry`` samples) and the disorder against ``IndexReorder/maximumMoves``
/// (``violation(of:)``, ``disorder``) before libavformat opens the file.
///
/// Constant memory: one pass over the Segment's top-level elements (up to an unknown-size one)
/// and over each `Cues` found, through a read-ahead window.
struct MatroskaCues: Sendable, Equatable {
    /// `CuePoint` elements read.
    var points = 0
    /// `CueTrackPositions` read: the index entries libavformat makes.
    var entries: Int64 = 0
    /// Cue points earlier than one before them.
    var latePoints = 0
    /// An upper bound of the index entries libavformat moves to insert the late cue points: for
    /// each, the entries already in the index.
    var reorderCost: Int64 = 0

    /// What one cue entry costs libavformat, in MP4 samples: about 100 bytes (its parsed
    /// `CuePoint` and `CueTrackPositions` beside the 24-byte index entry: 200,000 took 20 MB),
    /// against about 33 for an MP4 sample (4 M took 131 MB).
    static let samplesPerEntry: Int64 = 3

    static let segmentID: UInt32 = 0x1853_8067
    static let seekHeadID: UInt32 = 0x114D_9B74
    static let cuesID: UInt32 = 0x1C53_BB6B

    /// The cap ``entries`` is over (``SafetyLimits/maxSamples``); `nil` within it.
    func violation(of limits: SafetyLimits) -> SafetyViolation? {
        let samples = entries.saturatingMultiply(Self.samplesPerEntry)
        guard samples > limits.maxSamples else { return nil }
        return SafetyViolation(cap: "maxSamples",
                               detail: "the Cues declare \(entries) index entries, counted \(Self.samplesPerEntry) samples each: \(samples) > \(limits.maxSamples)")
    }

    /// Why libavformat could not take this index as it is: cue points out of time order past
    /// ``IndexReorder/maximumMoves``; `nil` when in order (or nearly).
    var disorder: String? {
        guard reorderCost > IndexReorder.maximumMoves else { return nil }
        return "the Cues list \(latePoints) of their \(points) cue points out of time order: libavformat would sort them into its index one at a time (quadratic)"
    }

    /// The `Cues` of the file in `reader`: those the Segment's top-level walk meets and the one
    /// its `SeekHead` points to, each read once.
    static func read(_ reader: borrowing FileReader) -> MatroskaCues {
        var walk = EBMLWindow()
        var cues = MatroskaCues()
        guard let header = walk.element(reader, at: 0), let headerSize = header.size,
              let segment = walk.element(reader, at: header.dataOffset + Int64(headerSize)), segment.id == segmentID else { return cues }
        let segmentEnd = segment.size.map { min(reader.size, segment.dataOffset.saturatingAdd(Int64(clamping: $0))) } ?? reader.size
        var read: Set<Int64> = []
        var position = segment.dataOffset
        while position < segmentEnd, let child = walk.element(reader, at: position), let size = child.size {
            if child.id == cuesID, read.insert(child.offset).inserted { walk.readCues(reader, child, into: &cues) }
            if child.id == seekHeadID, let target = walk.cuesPosition(reader, in: child, segmentData: segment.dataOffset),
               read.insert(target).inserted, let found = walk.element(reader, at: target), found.id == cuesID {
                walk.readCues(reader, found, into: &cues)
            }
            position = child.dataOffset.saturatingAdd(Int64(clamping: size))
        }
        return cues
    }
}

/// EBML element headers and unsigned values read through a ``ByteWindow``.
private struct EBMLWindow {
    var window = ByteWindow()

    static let cuePointID: UInt32 = 0xBB
    static let cueTimeID: UInt32 = 0xB3
    static let cueTrackPositionsID: UInt32 = 0xB7
    static let seekID: UInt32 = 0x4DBB
    static let seekIDID: UInt32 = 0x53AB
    static let seekPositionID: UInt32 = 0x53AC

    /// The element header at `offset`; `nil` when none can be read there.
    mutating func element(_ reader: borrowing FileReader, at offset: Int64) -> MatroskaStructure.Element? {
        let bytes = window.bytes(at: offset, count: 12, in: reader)
        guard let (id, idLength) = FormatSniffer.ebmlElementID(bytes, at: 0),
              let (size, sizeLength) = FormatSniffer.ebmlVarInt(bytes, at: idLength) else { return nil }
        return MatroskaStructure.Element(id: id, offset: offset, dataOffset: offset + Int64(idLength + sizeLength),
                                         size: size == UInt64.max ? nil : size)
    }

    /// The children of `parent` (a sized element), `body` called with each until it returns `false`.
    mutating func children(_ reader: borrowing FileReader, of parent: MatroskaStructure.Element,
                           _ body: (inout EBMLWindow, MatroskaStructure.Element) -> Bool) {
        guard let size = parent.size else { return }
        let end = min(reader.size, parent.dataOffset.saturatingAdd(Int64(clamping: size)))
        var position = parent.dataOffset
        while position < end, let child = element(reader, at: position), let childSize = child.size {
            guard body(&self, child) else { return }
            position = child.dataOffset.saturatingAdd(Int64(clamping: childSize))
        }
    }

    /// An unsigned integer element's value (at most 8 bytes).
    mutating func unsigned(_ reader: borrowing FileReader, _ element: MatroskaStructure.Element) -> UInt64 {
        let bytes = window.bytes(at: element.dataOffset, count: Int(min(element.size ?? 0, 8)), in: reader)
        return bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Each `CuePoint`: its time against the latest before it, its `CueTrackPositions` counted.
    mutating func readCues(_ reader: borrowing FileReader, _ cues: MatroskaStructure.Element, into found: inout MatroskaCues) {
        var latest: UInt64?
        children(reader, of: cues) { walk, point in
            guard point.id == Self.cuePointID else { return true }
            var time: UInt64?
            var positions: Int64 = 0
            walk.children(reader, of: point) { walk, field in
                if field.id == Self.cueTimeID { time = walk.unsigned(reader, field) }
                if field.id == Self.cueTrackPositionsID { positions += 1 }
                return true
            }
            if let time, let before = latest, time < before {
                found.latePoints += 1
                found.reorderCost = found.reorderCost.saturatingAdd(found.entries)
            }
            latest = max(latest ?? 0, time ?? 0)
            found.points += 1
            found.entries = found.entries.saturatingAdd(positions)
            return true
        }
    }

    /// Where a `SeekHead` says the `Cues` are (a file offset), `nil` when it does not say.
    mutating func cuesPosition(_ reader: borrowing FileReader, in seekHead: MatroskaStructure.Element, segmentData: Int64) -> Int64? {
        var target: Int64?
        children(reader, of: seekHead) { walk, seek in
            guard seek.id == Self.seekID else { return true }
            var names: UInt64?
            var position: UInt64?
            walk.children(reader, of: seek) { walk, field in
                if field.id == Self.seekIDID { names = walk.unsigned(reader, field) }
                if field.id == Self.seekPositionID { position = walk.unsigned(reader, field) }
                return true
            }
            guard names == UInt64(MatroskaCues.cuesID), let position else { return true }
            target = segmentData.saturatingAdd(Int64(clamping: position))
            return false
        }
        return target
    }
}
