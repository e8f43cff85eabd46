/// What an ISO base media file's sample tables declare (MP4, MOV, M4A, 3GP, HEIF sequences), read
/// from the tables themselves before libavformat sees them.
///
/// libavformat's `mov` demuxer sizes what it builds from these counts, with no bytes behind them
/// needed: an index entry per sample (24 bytes, `mov_build_index`), a composition offset per
/// sample (8 B, `ctts` expanded up to the sample count), with a `sync` sample group a sample
/// offset per `ctts` sample and a key point per grouped sample (4 B each,
/// `build_open_gop_key_points`), and an index entry per fragment sample (`trun`). A 77 KB MP4
/// declaring 89 M samples took 2.1 GB to probe (a `trun` declaring as many, 2.9 GB in 22 s); one
/// declaring 2³² − 1 got no index at all (libavformat gives up above `UINT_MAX / 24`) and its
/// video vanished without a word. So the
/// counts are read here first, held against the caps (``violation(of:)``) and the file
/// (``inconsistency(fileSize:)``), and what libavformat indexed is held against them afterwards
/// (``ISOBMFFStructure/samplesInsideFile(path:fileSize:tables:)``).
///
/// One pass over the box tree (`moov/trak/mdia/minf/stbl`, `moof/traf`), reading box headers and
/// the tables' entries, at most what each box holds: linear in the size of the tables, one
/// summary per track. Box sizes are taken as libavformat takes them (a box overrunning its
/// parent is clipped to it, an unreadable header ends its level): the box tree's own damage is
/// ``ISOBMFFStructure``'s to report.
struct ISOBMFFSampleTables: Sendable, Equatable {
    /// The tables of one `trak`.
    struct Track: Sendable, Equatable {
        /// The `tkhd` track ID (libavformat's `AVStream.id`); `nil` without a `tkhd`.
        var id: Int?
        /// The media's `hdlr` handler type (`vide`, `soun`, `text`...); empty without one.
        var handler = ""
        /// `tkhd`'s `track_enabled` flag: players (AVFoundation among them) play no disabled track.
        var enabled = false
        /// Samples `stsz` (or `stz2`) declares.
        var samples: Int64 = 0
        /// `stsz`'s one size for every sample; 0 when each sample has its own.
        var constantSize: Int64 = 0
        /// Chunks `stco` (or `co64`) lists.
        var chunks: Int64 = 0
        /// Samples `stsc` places in those chunks: all libavformat can locate.
        var placed: Int64 = 0
        /// Index entries libavformat's whole-chunk reading makes (below): at most one per 160
        /// samples of a chunk (its smallest grouping, GSM's; linear PCM is grouped by 1024).
        var chunkEntries: Int64 = 0
        /// `stts` entries, and the sample delta of the first.
        var timeEntries: Int64 = 0
        var firstDelta: Int64?
        /// Samples `ctts` gives offsets for, and the most any `sbgp` groups (sums of their counts).
        var compositionSamples: Int64 = 0
        var groupedSamples: Int64 = 0
        /// Samples the `sync` sample groups cover (`sbgp` of grouping type `sync`: open-GOP key frames).
        var syncGroupedSamples: Int64 = 0
        /// The first table whose entries do not fit in its box, said with its offset.
        var problem: String?
        /// The latest fragment start (`tfdt`) of the track so far, and its fragment samples.
        var fragmentTime: UInt64?
        var fragmentSamples: Int64 = 0
        /// `mdhd`'s timescale (units per second of the track's times); 0 without one.
        var timescale: UInt32 = 0
        /// `trex`'s default sample duration, for fragments that give none.
        var defaultSampleDuration: UInt32 = 0
        /// Where the track's fragments end so far (each `trun`'s sample durations added to its
        /// fragment's start), in ``timescale`` units; `nil` before any fragment run.
        var fragmentEnd: UInt64?

        /// Whether libavformat reads this track chunk by chunk, grouping samples into entries
        /// (its "old uncompressed audio" path: sound whose `stts` is one entry of delta 1, i.e.
        /// PCM counted in sample frames), rather than one index entry per sample.
        var readsWholeChunks: Bool { handler == "soun" && timeEntries == 1 && firstDelta == 1 }

        /// What libavformat allocates per sample for this track, in samples: its index entries
        /// (one per sample, or ``chunkEntries``), or with `sync` groups the offsets and key points
        /// it unrolls from `ctts` and `sbgp` (not bounded by the sample count), whichever is more.
        var memorySamples: Int64 {
            let unrolled = syncGroupedSamples > 0 ? max(compositionSamples, syncGroupedSamples) : 0
            return max(readsWholeChunks ? chunkEntries : samples, unrolled)
        }
    }

    /// The `moov`'s tracks, in file order (at most ``maximumTracks``).
    var tracks: [Track] = []
    /// Samples the movie fragments' `trun` boxes declare, all together.
    var fragmentSamples: Int64 = 0
    /// The first `trun` whose per-sample fields do not fit in its box.
    var fragmentProblem: String?
    /// Fragments that start (`tfdt`) before one of their track ahead of them in the file, and an
    /// upper bound of the index entries libavformat moves to insert them (it makes room in the
    /// index for each: for each such fragment, the track's fragment samples before it).
    var lateFragments = 0
    var fragmentReorderCost: Int64 = 0

    /// The kinds of media (`vide` for pictures, `soun` for sound) the movie has tracks of but no
    /// enabled track: iOS shows no picture or plays no sound of such a file, while FFmpeg reads the
    /// disabled tracks as any other. Empty when every kind present has an enabled track.
    var disabledMedia: [String] {
        ["vide", "soun"].filter { kind in
            tracks.contains { $0.handler == kind } && !tracks.contains { $0.handler == kind && $0.enabled }
        }
    }

    /// Whether `mvhd` declares the "unknown" duration (all ones: a live or fragmented recording's
    /// placeholder, 0xFFFFFFFF at 30000 per second is about 143,166 s).
    var movieDurationUnknown = false

    /// The seconds a fragmented movie's fragments span (the latest end of any track's runs);
    /// `nil` when it has no fragment runs with known timing.
    var fragmentDuration: Double? {
        tracks.compactMap { track in
            track.fragmentEnd.flatMap { track.timescale > 0 ? Double($0) / Double(track.timescale) : nil }
        }.max()
    }

    /// Tracks summarised: libavformat's own stream limit (`max_streams`, 1000); it refuses the
    /// header past it.
    static let maximumTracks = 1000

    /// The tables of the file in `reader`.
    static func read(_ reader: borrowing FileReader) -> ISOBMFFSampleTables {
        var tables = ISOBMFFSampleTables()
        var walk = SampleTableWalk()
        walk.level(reader, from: 0, to: reader.size, into: &tables)
        return tables
    }
}

/// The pass over the boxes behind ``ISOBMFFSampleTables/read(_:)``.
private struct SampleTableWalk {
    /// Boxes whose children are walked (the path down to the sample tables and fragment runs).
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "mvex", "moof", "traf"]
    static let maximumDepth = 8

    var window = ByteWindow()
    var depth = 0
    /// The `stsc` run not yet closed: its first chunk and samples per chunk (the next run's first
    /// chunk, or the chunk count at the end of the track, closes it).
    var openRun: (first: Int64, perChunk: Int64)?
    /// In a `traf`: the track its `tfhd` names (an index into the tracks) and its `tfdt` start.
    var fragmentTrack: Int?
    var fragmentStart: UInt64?
    /// In a `traf`: the `tfhd`'s default sample duration, when it gives one.
    var fragmentDefaultDuration: UInt32?

    mutating func level(_ reader: borrowing FileReader, from start: Int64, to end: Int64, into tables: inout ISOBMFFSampleTables) {
        var position = start
        while position + 8 <= end, let box = header(reader, at: position, end: end) {
            visit(box, reader, into: &tables)
            position = box.end
        }
    }

    /// A box header as libavformat reads it: size 0 runs to the end of the parent, a size past
    /// the parent is clipped to it; `nil` for a size smaller than the header.
    mutating func header(_ reader: borrowing FileReader, at offset: Int64, end: Int64) -> ISOBMFFStructure.Box? {
        let bytes = window.bytes(at: offset, count: 16, in: reader)
        guard bytes.count >= 8 else { return nil }
        var size = Int64(bytes.be32(0)), headerSize: Int64 = 8
        if size == 1 {
            guard bytes.count == 16, bytes.be64(8) <= UInt64(Int64.max) else { return nil }
            size = Int64(bytes.be64(8))
            headerSize = 16
        } else if size == 0 {
            size = end - offset
        }
        guard size >= headerSize else { return nil }
        return ISOBMFFStructure.Box(type: bytes.ascii(4, 4), offset: offset, headerSize: headerSize, size: min(size, end - offset))
    }

    mutating func visit(_ box: ISOBMFFStructure.Box, _ reader: borrowing FileReader, into tables: inout ISOBMFFSampleTables) {
        if Self.containers.contains(box.type), depth < Self.maximumDepth {
            if box.type == "trak" {
                guard tables.tracks.count < ISOBMFFSampleTables.maximumTracks else { return }
                tables.tracks.append(.init())
                openRun = nil
            }
            if box.type == "traf" { (fragmentTrack, fragmentStart, fragmentDefaultDuration) = (nil, nil, nil) }
            depth += 1
            level(reader, from: box.dataOffset, to: box.end, into: &tables)
            depth -= 1
            if box.type == "trak" { closeRun(in: &tables.tracks[tables.tracks.count - 1]) }
            return
        }
        if box.type == "trun" {
            readFragmentRun(box, reader, into: &tables)
        } else if box.type == "mvhd" {
            let head = window.bytes(at: box.dataOffset, count: 32, in: reader)
            tables.movieDurationUnknown = head.u8(0) == 1 ? head.be64(24) == UInt64.max : head.be32(16) == UInt32.max
        } else if box.type == "trex" {
            let head = window.bytes(at: box.dataOffset, count: 16, in: reader)
            if let index = tables.tracks.firstIndex(where: { $0.id == Int(head.be32(4)) }) {
                tables.tracks[index].defaultSampleDuration = head.be32(12)
            }
        } else if box.type == "tfhd" || box.type == "tfdt" {
            readFragmentHeader(box, reader, tracks: tables.tracks)
        } else if !tables.tracks.isEmpty {
            read(box, reader, into: &tables.tracks[tables.tracks.count - 1])
        }
    }
}

extension SampleTableWalk {
    /// The table boxes of a track: `tkhd`, `hdlr`, `stsz`/`stz2`, `stco`/`co64`, `stsc`, `stts`,
    /// `ctts`, `sbgp` (`stss` is bounded by its box like every table libavformat reads whole).
    mutating func read(_ box: ISOBMFFStructure.Box, _ reader: borrowing FileReader, into track: inout ISOBMFFSampleTables.Track) {
        let head = window.bytes(at: box.dataOffset, count: 24, in: reader)
        switch box.type {
        case "tkhd":
            track.id = Int(head.be32(head.u8(0) == 1 ? 20 : 12))
            track.enabled = head.u8(3) & 1 != 0
        // The first: the media's (`mdia`); QuickTime's data handler in `minf` says `alis`.
        case "hdlr" where track.handler.isEmpty: track.handler = head.ascii(8, 4)
        case "mdhd": track.timescale = head.be32(head.u8(0) == 1 ? 20 : 12)
        case "stsz":
            track.constantSize = Int64(head.be32(4))
            track.samples = Int64(head.be32(8))
            if track.constantSize == 0 { fits(box, entries: track.samples, bits: 32, after: 12, track: &track) }
        case "stz2":
            track.samples = Int64(head.be32(8))
            fits(box, entries: track.samples, bits: Int64(head.u8(7)), after: 12, track: &track)
        case "stco", "co64":
            track.chunks = Int64(head.be32(4))
            fits(box, entries: track.chunks, bits: box.type == "stco" ? 32 : 64, after: 8, track: &track)
        case "stsc": readChunkRuns(box, reader, count: Int64(head.be32(4)), into: &track)
        case "stts":
            track.timeEntries = Int64(head.be32(4))
            track.firstDelta = track.timeEntries > 0 && head.count >= 16 ? Int64(head.be32(12)) : nil
            fits(box, entries: track.timeEntries, bits: 64, after: 8, track: &track)
        // One `ctts`; `sbgp` one per grouping type (`sync`, `rap `, `roll`...), each over the same samples.
        case "ctts": track.compositionSamples = max(track.compositionSamples, sumCounts(box, reader, at: 4, track: &track))
        case "sbgp":
            let grouped = sumCounts(box, reader, at: head.u8(0) == 1 ? 12 : 8, track: &track)
            track.groupedSamples = max(track.groupedSamples, grouped)
            if head.matches("sync", at: 4) { track.syncGroupedSamples = max(track.syncGroupedSamples, grouped) }
        default: break
        }
    }

    /// Notes (the first per track) a table of `entries` entries of `bits` bits each (`stz2` packs
    /// 4-bit sizes) after a fixed part of `after` bytes, that does not fit in `box`.
    func fits(_ box: ISOBMFFStructure.Box, entries: Int64, bits: Int64, after: Int64, track: inout ISOBMFFSampleTables.Track) {
        let body = box.size - box.headerSize - after
        let needed = entries.saturatingMultiply(bits).saturatingAdd(7) / 8
        guard track.problem == nil, needed > body else { return }
        track.problem = "'\(box.type)' at byte \(box.offset) declares \(entries) entries (\(needed) bytes) but holds \(max(0, body)) bytes"
    }

    /// The sum of the sample counts of a table whose entry count sits at `at` in the body and whose
    /// 8-byte entries (the count first) follow it: `ctts` and `sbgp`. Only the entries the box
    /// holds are read.
    mutating func sumCounts(_ box: ISOBMFFStructure.Box, _ reader: borrowing FileReader, at: Int64,
                            track: inout ISOBMFFSampleTables.Track) -> Int64 {
        let count = be32(reader, at: box.dataOffset + at)
        fits(box, entries: count, bits: 64, after: at + 4, track: &track)
        let held = min(count, max(0, (box.size - box.headerSize - at - 4) / 8))
        var total: Int64 = 0
        var position = box.dataOffset + at + 4
        for _ in 0..<held {
            total = total.saturatingAdd(be32(reader, at: position))
            position += 8
        }
        return total
    }

    /// The big-endian 32-bit number at `offset` (0 past the end of the file), read through the window.
    mutating func be32(_ reader: borrowing FileReader, at offset: Int64) -> Int64 {
        var value: Int64 = 0
        for k in 0..<Int64(4) { value = value << 8 | Int64(window.byte(at: offset + k, in: reader) ?? 0) }
        return value
    }

    /// `stsc`'s runs: each gives a first chunk and samples per chunk, and lasts until the next
    /// run's first chunk (the last, to the end of the chunks).
    mutating func readChunkRuns(_ box: ISOBMFFStructure.Box, _ reader: borrowing FileReader, count: Int64,
                                into track: inout ISOBMFFSampleTables.Track) {
        fits(box, entries: count, bits: 96, after: 8, track: &track)
        let held = min(count, max(0, (box.size - box.headerSize - 8) / 12))
        var position = box.dataOffset + 8
        for _ in 0..<held {
            let first = be32(reader, at: position)
            if let run = openRun { add(run, chunks: first - run.first, to: &track) }
            openRun = (first, be32(reader, at: position + 4))
            position += 12
        }
    }

    /// Closes the last `stsc` run at the end of the track (its chunks run to the chunk count).
    mutating func closeRun(in track: inout ISOBMFFSampleTables.Track) {
        if let run = openRun { add(run, chunks: track.chunks - run.first + 1, to: &track) }
        openRun = nil
    }

    func add(_ run: (first: Int64, perChunk: Int64), chunks: Int64, to track: inout ISOBMFFSampleTables.Track) {
        guard chunks > 0 else { return }
        track.placed = track.placed.saturatingAdd(chunks.saturatingMultiply(run.perChunk))
        track.chunkEntries = track.chunkEntries.saturatingAdd(chunks.saturatingMultiply((run.perChunk + 159) / 160))
    }

    /// A fragment's `trun`: its sample count, and whether the per-sample fields its flags ask
    /// for (duration, size, flags, composition offset: 4 bytes each) fit in the box.
    mutating func readFragmentRun(_ box: ISOBMFFStructure.Box, _ reader: borrowing FileReader, into tables: inout ISOBMFFSampleTables) {
        let head = window.bytes(at: box.dataOffset, count: 8, in: reader)
        let flags = head.be32(0) & 0xFF_FFFF
        let count = Int64(head.be32(4))
        tables.fragmentSamples = tables.fragmentSamples.saturatingAdd(count)
        if let index = fragmentTrack {
            var track = tables.tracks[index]
            if let start = fragmentStart, let latest = track.fragmentTime, start < latest {
                tables.lateFragments += 1
                tables.fragmentReorderCost = tables.fragmentReorderCost.saturatingAdd(track.fragmentSamples)
            }
            track.fragmentTime = max(track.fragmentTime ?? 0, fragmentStart ?? 0)
            track.fragmentSamples = track.fragmentSamples.saturatingAdd(count)
            let start = fragmentStart ?? track.fragmentEnd ?? 0
            let span = runDuration(box, reader, flags: flags, count: count, defaultDuration: fragmentDefaultDuration ?? track.defaultSampleDuration)
            track.fragmentEnd = max(track.fragmentEnd ?? 0, start.addingReportingOverflow(span).partialValue)
            // A second run in the same fragment starts where this one ends.
            fragmentStart = start.addingReportingOverflow(span).partialValue
            tables.tracks[index] = track
        }
        let fixed: Int64 = 8 + (flags & 0x1 != 0 ? 4 : 0) + (flags & 0x4 != 0 ? 4 : 0)
        let perSample = Int64((flags >> 8) & 0xF).nonzeroBitCount * 4
        let body = box.size - box.headerSize - fixed
        guard tables.fragmentProblem == nil, count.saturatingMultiply(Int64(perSample)) > body else { return }
        tables.fragmentProblem = "'trun' at byte \(box.offset) declares \(count) samples of \(perSample) bytes but holds \(max(0, body)) bytes"
    }

    /// The duration of a `trun`'s samples, in its track's timescale: each sample's own duration
    /// when the run gives them (flag 0x100), else `count` × the default. Reads the per-sample
    /// fields only where the box holds them.
    mutating func runDuration(_ box: ISOBMFFStructure.Box, _ reader: borrowing FileReader, flags: UInt32, count: Int64, defaultDuration: UInt32) -> UInt64 {
        guard flags & 0x100 != 0 else { return UInt64(max(0, count)).multipliedReportingOverflow(by: UInt64(defaultDuration)).partialValue }
        let fixed: Int64 = 8 + (flags & 0x1 != 0 ? 4 : 0) + (flags & 0x4 != 0 ? 4 : 0)
        let stride = Int64((flags >> 8) & 0xF).nonzeroBitCount * 4
        let present = min(count, max(0, box.size - box.headerSize - fixed) / Int64(stride))
        var total: UInt64 = 0
        for sample in 0..<max(0, present) {
            total = total.addingReportingOverflow(UInt64(window.bytes(at: box.dataOffset + fixed + sample * Int64(stride), count: 4, in: reader).be32(0))).partialValue
        }
        return total
    }

    /// A `traf`'s `tfhd` (the track it belongs to, among the `moov`'s, and its default sample
    /// duration) or `tfdt` (where it starts, 32 or 64 bits by its version).
    mutating func readFragmentHeader(_ box: ISOBMFFStructure.Box, _ reader: borrowing FileReader, tracks: [ISOBMFFSampleTables.Track]) {
        let head = window.bytes(at: box.dataOffset, count: 28, in: reader)
        if box.type == "tfhd" {
            let id = Int(head.be32(4))
            fragmentTrack = tracks.firstIndex { $0.id == id }
            let flags = head.be32(0) & 0xFF_FFFF
            if flags & 0x08 != 0 {
                let at = 8 + (flags & 0x01 != 0 ? 8 : 0) + (flags & 0x02 != 0 ? 4 : 0)
                fragmentDefaultDuration = head.be32(Int(at))
            }
        } else {
            fragmentStart = head.u8(0) == 1 ? head.be64(4) : UInt64(head.be32(4))
        }
    }
}
