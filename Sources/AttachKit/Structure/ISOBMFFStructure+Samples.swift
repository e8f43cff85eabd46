extension ISOBMFFStructure {
    /// Every sample the movie's sample tables (or fragments read with the header) describe must
    /// lie inside the file: libavformat's `mov` demuxer turns `stsz`/`stco`/`stsc` into an index
    /// whose entries (`avformat_index_get_entry`) carry a byte position and size.
    ///
    /// - Returns: how many samples the index holds, all streams together (0 for an init segment).
    /// - Throws: ``StructureProblem`` for the first sample that ends past `fileSize`, or when
    ///   libavformat cannot read the movie header at all.
    @discardableResult
    static func samplesInsideFile(path: String, fileSize: Int64) throws(StructureProblem) -> Int {
        let input: AVInput
        do {
            input = try AVInput(path: path, demuxer: "mov", readStreamInfo: false)
        } catch {
            throw StructureProblem("libavformat cannot read the movie header: \(error)")
        }
        var total = 0
        for index in 0..<input.streamCount {
            let count = input.indexEntryCount(of: index)
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
