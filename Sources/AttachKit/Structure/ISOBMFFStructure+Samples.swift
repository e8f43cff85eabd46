extension ISOBMFFStructure {
    /// Every sample the movie's sample tables declare must be in libavformat's index, and every
    /// sample of the index inside the file: libavformat's `mov` demuxer turns `stsz`/`stco`/`stsc`
    /// (and fragments read with the header) into an index whose entries
    /// (`avformat_index_get_entry`) carry a byte position and size. It is opened with edit lists
    /// ignored, so the index holds every sample of the tables (an edit list only chooses which
    /// of them are shown). A track it indexed partly or not at all (tables it gives up on:
    /// 2³² − 1 samples, chunks that place fewer samples than `stsz` declares, a missing `stts`)
    /// would play partly or not at all: corrupt.
    ///
    /// - Parameter tables: the tables as read before libavformat (``ISOBMFFSampleTables``); each
    ///   stream is matched to its track by track ID.
    /// - Returns: how many samples the index holds, all streams together (0 for an init segment).
    /// - Throws: ``StructureProblem`` for the first track not wholly indexed, the first sample that
    ///   ends past `fileSize`, or when libavformat cannot read the movie header at all.
    @discardableResult
    static func samplesInsideFile(path: String, fileSize: Int64, tables: ISOBMFFSampleTables = ISOBMFFSampleTables()) throws(StructureProblem) -> Int {
        let input: AVInput
        do {
            input = try AVInput(path: path, demuxer: "mov", readStreamInfo: false, demuxerOptions: ["ignore_editlist": "1"])
        } catch {
            throw StructureProblem("libavformat cannot read the movie header: \(error)")
        }
        var total = 0
        for index in 0..<input.streamCount {
            let count = input.indexEntryCount(of: index)
            if let track = tables.track(id: input.containerID(of: index)), let missing = tables.unindexed(track, indexed: count) {
                throw StructureProblem(missing)
            }
            guard count > 0 else { continue }
            total += count
            for sample in 0..<count {
                guard let entry = input.indexEntry(sample, of: index) else { continue }
                let position = entry.position
                let size = entry.size
                guard position >= 0, size >= 0, position <= fileSize, size <= fileSize - position else {
                    throw StructureProblem("stream \(index) sample \(sample + 1) of \(count) (\(size) bytes at byte \(position)) runs past the end of the file at byte \(fileSize)")
                }
            }
        }
        return total
    }
}
