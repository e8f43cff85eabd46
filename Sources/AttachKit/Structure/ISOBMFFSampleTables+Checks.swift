extension ISOBMFFSampleTables {
    /// Samples libavformat allocates for, all tracks and fragments together
    /// (``Track/memorySamples``; each costs it 24–40 bytes before anything is decoded).
    var memorySamples: Int64 {
        tracks.reduce(fragmentSamples) { $0.saturatingAdd($1.memorySamples) }
    }

    /// The cap the tables are over (``SafetyLimits/maxSamples``), decided before libavformat
    /// opens the file; `nil` within it.
    func violation(of limits: SafetyLimits) -> SafetyViolation? {
        let total = memorySamples
        guard total > limits.maxSamples else { return nil }
        let largest = tracks.indices.max { tracks[$0].memorySamples < tracks[$1].memorySamples }
        let most = largest.map { tracks[$0].memorySamples > fragmentSamples ? ", \(tracks[$0].memorySamples) of them in \(name(of: $0))" : "" } ?? ""
        return SafetyViolation(cap: "maxSamples", detail: "the sample tables declare \(total) samples\(most) > \(limits.maxSamples)")
    }

    /// Why these tables cannot describe the file: a table that does not fit in its box, samples of
    /// one size that add up to more bytes than the file has, composition offsets or sample groups
    /// for more samples than the track has; `nil` when none.
    func inconsistency(fileSize: Int64) -> String? {
        for index in tracks.indices {
            let track = tracks[index]
            if let problem = track.problem { return "\(name(of: index)): \(problem)" }
            let bytes = track.samples.saturatingMultiply(track.constantSize)
            if bytes > fileSize {
                return "\(name(of: index)): 'stsz' declares \(track.samples) samples of \(track.constantSize) bytes (\(bytes) bytes) in a file of \(fileSize) bytes"
            }
            for (table, covered) in [("ctts", track.compositionSamples), ("sbgp", track.groupedSamples)] where covered > track.samples {
                return "\(name(of: index)): '\(table)' covers \(covered) samples, but 'stsz' declares \(track.samples)"
            }
        }
        return fragmentProblem
    }

    /// Why libavformat could not take the fragments as they come: fragments that start before
    /// ones ahead of them, past ``IndexReorder/maximumMoves`` entry moves (libavformat makes
    /// room in its index for each such fragment: quadratic in their number); `nil` otherwise.
    var disorder: String? {
        guard fragmentReorderCost > IndexReorder.maximumMoves else { return nil }
        return "\(lateFragments) movie fragments start ('tfdt') before fragments of their track ahead of them: libavformat would insert them into its index one at a time (quadratic)"
    }

    /// The tables of the track libavformat numbers `id` (its `tkhd` track ID).
    func track(id: Int) -> Track? { tracks.first { $0.id == id } }

    /// Why libavformat's index of a stream does not cover its track: `indexed` entries (without
    /// edit lists) for a track whose `stsz` declares more samples, or none at all for one read in
    /// whole chunks. A track libavformat indexed partly plays partly (its last frames, or all of
    /// its video, missing); `nil` when every declared sample is in the index.
    func unindexed(_ track: Track, indexed: Int) -> String? {
        guard track.samples > 0 else { return nil }
        let missing = track.readsWholeChunks ? indexed == 0 : Int64(indexed) < track.samples
        guard missing else { return nil }
        return "\(track.label(place: nil)): libavformat indexed \(indexed) of the \(track.samples) samples its 'stsz' declares "
            + "(its 'stsc' places \(track.placed) in \(track.chunks) chunks): what is not indexed never plays"
    }

    /// `track 1 (vide)`: the track ID when there is one, else its place.
    func name(of index: Int) -> String { tracks[index].label(place: index + 1) }
}

extension ISOBMFFSampleTables.Track {
    /// `track 2 (soun)`: its ID, else `place` (`?` without one), and its handler type.
    func label(place: Int?) -> String {
        "track \(id.map(String.init) ?? place.map(String.init) ?? "?") (\(handler.isEmpty ? "no handler" : handler))"
    }
}
