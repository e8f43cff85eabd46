/// Finds where reading must begin for a clip that starts at `start`: the keyframe at or before it
/// in the anchor stream (video, else audio), and whether a seek gets there.
///
/// Indexed containers (MP4/MOV, Matroska) seek straight to it, and the landing is checked.
/// Demuxers that seek by byte position or bitrate estimate (MPEG-TS, MPEG-PS, AVI, MP3, ADTS,
/// WAV, Ogg...) may land elsewhere or give estimated timestamps after a seek, so they are read
/// from the beginning: exact, and cheap for attachment-sized files.
struct KeyframeFinder {
    let path: String
    let demuxer: String
    let anchor: Int
    /// Whether every packet of the anchor is a keyframe (audio).
    let everyPacketIsKey: Bool

    struct Found: Sendable, Equatable {
        /// The keyframe's time, seconds of the input's timestamps.
        var keyframe: Double
        /// `true`: seek to the start; `false`: read from the beginning.
        var seek: Bool
    }

    /// - Parameter start: seconds of the input's timestamps.
    /// - Throws: ``PrepareError/corrupt(reason:)`` when the anchor has no keyframe at all before the
    ///   start, or the input cannot be read; ``PrepareError/deadlineExceeded(step:budget:)``.
    func find(start: Double, deadline: Deadline) throws(PrepareError) -> Found {
        guard Self.seeksByIndex(demuxer) else { return try scanFromBeginning(start: start, deadline: deadline) }
        do {
            let input = try AVInput(path: path, demuxer: demuxer, readStreamInfo: ClipInput.needsStreamInfo(demuxer))
            input.discardAllStreams(except: [anchor])
            let timeBase = input.timeBase(of: anchor)
            let packet = try AVPacketBuffer()
            if (try? input.seek(stream: anchor, toKeyframeBefore: start)) != nil {
                while try input.read(into: packet) {
                    defer { packet.unref() }
                    guard packet.streamIndex == anchor, everyPacketIsKey || packet.isKeyframe,
                          let t = packet.seconds(in: timeBase) else { continue }
                    if t <= start + ClipTimeline.epsilon { return Found(keyframe: t, seek: true) }
                    break
                }
            }
        } catch {
            throw .corrupt(reason: "cannot read up to \(ClipText.seconds(start)): \(error.message)")
        }
        return try scanFromBeginning(start: start, deadline: deadline)
    }

    /// Whether `demuxer` seeks through an index of exact timestamps.
    static func seeksByIndex(_ demuxer: String) -> Bool { demuxer == "mov" || demuxer == "matroska" }

    /// Reads the anchor from the beginning, remembering the last keyframe at or before `start`.
    private func scanFromBeginning(start: Double, deadline: Deadline) throws(PrepareError) -> Found {
        var last: Double?
        do {
            let input = try AVInput(path: path, demuxer: demuxer, readStreamInfo: ClipInput.needsStreamInfo(demuxer))
            input.discardAllStreams(except: [anchor])
            let timeBase = input.timeBase(of: anchor)
            let packet = try AVPacketBuffer()
            var count = 0
            while try input.read(into: packet) {
                defer { packet.unref() }
                count += 1
                if count % 256 == 0 { try deadline.check("finding the keyframe before the start") }
                guard packet.streamIndex == anchor, let t = packet.seconds(in: timeBase) else { continue }
                if t > start + ClipTimeline.epsilon { break }
                if everyPacketIsKey || packet.isKeyframe { last = t }
            }
        } catch let error as PrepareError {
            throw error
        } catch let error as FFmpegError {
            throw .corrupt(reason: "cannot read up to \(ClipText.seconds(start)): \(error.message)")
        } catch {
            throw .processing(step: "finding the keyframe before the start", reason: "\(error)")
        }
        guard let last else { throw .corrupt(reason: "no keyframe at or before \(ClipText.seconds(start))") }
        return Found(keyframe: last, seek: false)
    }
}
