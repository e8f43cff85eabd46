extension DeepCheck {
    /// What a segment-parallel decode found at one place of the stream.
    private struct Finding: Sendable {
        /// The packet (1-based, in demuxing order) at which a single decoder would have found it,
        /// then the segment: the first finding in this order is the one reported.
        let packet: Int
        let segment: Int
        /// "stream 0 (h264) (packet 12 at byte 3456)" and the like, before ": problem".
        let prefix: String
        let problem: DecodeProblem?
        /// A verdict that needs no frame number (a read error, an undecodable variant).
        let verdict: StructureVerdict?
    }

    /// What one worker decoded: its segments' frames, by segment, and its first finding.
    private struct WorkerResult: Sendable {
        var segments: [Int: DecodedDuration] = [:]
        var finding: Finding?
        var packets = 0
        /// The decoder could not be opened (no decoder here): the stream is not checked.
        var notChecked = false
    }

    /// Decodes video stream `stream` as ``IndependentSegments`` cuts it, on `threads` threads, each
    /// running one single-threaded decoder over segments `w`, `w + threads`, ... (every thread
    /// demuxes the whole stream: a demux costs far less than a decode). The frames of each segment
    /// are counted in order and the first damage in stream order is reported, with the same
    /// packet, frame number and text as ``decode(path:demuxer:stream:options:duration:sampler:)``:
    /// the verdict does not depend on which thread finished first.
    ///
    /// Why the packet named is the one decoder's: a decoder hands a picture out some packets after
    /// the one it came in (reordering), and damage is charged to the packet being fed when the
    /// flagged picture comes out. So a segment's decoder is not drained at the cut: it is fed on,
    /// past the cut, the very packets one decoder running through would get next, until it hands
    /// out a picture of a later segment (told apart by presentation time: the pictures of a
    /// segment carry its packets' times), or has handed out one picture per packet of the segment
    /// (none is left: at the cut already when the stream does not reorder). Up to the cut it holds
    /// what one decoder would hold (``IndependentSegments``), and it is given the same packets after
    /// it, so it hands out the
    /// segment's last pictures at the same packets, with the same errors, as the one decoder
    /// would; later pictures it hands out are discarded (the next segment's decoder judges them).
    /// FFmpeg's H.264 and HEVC decoders hand out every picture from before an IDR before any from
    /// after it (H.264: the reset the IDR marks stops the reordering; HEVC: the IDR opens a new
    /// output sequence), so nothing of the segment is left then; should anything be, the decoder
    /// is drained there and it is still judged (never laxer). A picture an IDR's
    /// `no_output_of_prior_pics_flag` discards is discarded here too. The next segment's decoder
    /// starts fresh, and its pictures come out at the same packets as in the one decoder: both
    /// hold back as many pictures as the stream's reorder depth, which the parameter sets state
    /// (H.264 VUI `max_num_reorder_frames`, HEVC `sps_max_num_reorder_pics`). An H.264 stream
    /// whose SPS does not state it (no VUI bitstream restriction) has FFmpeg deepen the reorder as
    /// it goes, and a fresh decoder learns it anew: there a later segment's damage may be charged to
    /// another packet than one decoder would name (not handled yet: such an SPS is not parsed).
    ///
    /// A cut is therefore taken only when the segment before has ``minimumSegmentPackets`` packets
    /// or more, each with a presentation time: a decoder fed on past the cut is then done before
    /// its thread's next segment starts (which needs the decoder back).
    /// - Returns: `nil` when the codec is not cut (``IndependentSegments``): decode it as one.
    static func decodeSegments(path: String, demuxer: String, stream: AVStreamInfo, options: [String: String],
                               threads: Int, duration: inout DecodedDuration) -> StructureVerdict? {
        guard IndependentSegments.cuts(stream.codec) else { return nil }
        let label = "stream \(stream.index) (\(stream.codec))"
        let earliest = Locked(Int.max)
        let results = Locked<[Int: WorkerResult]>([:])
        let template = duration
        WorkerPool(threads: threads).runAll(Array(0..<threads)) { worker in
            let result = decodeSegments(worker: worker, of: threads, path: path, demuxer: demuxer, stream: stream, options: options,
                                        label: label, template: template, earliest: earliest)
            results.withLock { $0[worker] = result }
        }
        let all = results.withLock { $0 }
        if all.values.contains(where: \.notChecked) { return .notChecked }
        let segments = all.values.reduce(into: [Int: DecodedDuration]()) { $0.merge($1.segments) { first, _ in first } }
        let first = all.values.compactMap(\.finding).min { ($0.packet, $0.segment) < ($1.packet, $1.segment) }
        var combined = template
        for index in segments.keys.sorted() {
            if let first, index >= first.segment { break }
            combined.append(segments[index]!)
        }
        if let first {
            if let verdict = first.verdict { return verdict }
            let framesBefore = combined.frames - template.frames
            return .corrupt(reason: "\(first.prefix): \(first.problem?.description(framesBefore: framesBefore) ?? "")")
        }
        duration = combined
        let packets = all.values.map(\.packets).max() ?? 0
        if packets > 0, duration.frames == 0 {
            return .corrupt(reason: "\(label): \(packets) packet(s) decode to no frame")
        }
        if packets == 0, let declared = stream.frameCount, declared > 0 {
            return .noSamples("\(label): the container declares \(declared) frames but none can be read")
        }
        return .intact
    }

    /// Packets a segment must have before a cut ends it: H.264 and HEVC decoders hold back at
    /// most 16 pictures, of at most two packets each (two fields), so a decoder fed on past a cut
    /// has handed out the segment's last picture before the next segment ends.
    static let minimumSegmentPackets = 32

    /// One thread of ``decodeSegments(path:demuxer:stream:options:threads:duration:)``: demuxes the
    /// whole stream, decodes the segments whose number is `worker` modulo `count` (each fed on past
    /// its end until its last picture is out), and stops at its first finding or once another
    /// thread has found one earlier in the stream.
    private static func decodeSegments(worker: Int, of count: Int, path: String, demuxer: String, stream: AVStreamInfo,
                                       options: [String: String], label: String,
                                       template: DecodedDuration, earliest: Locked<Int>) -> WorkerResult {
        var result = WorkerResult()
        var segment = 0
        func found(_ finding: Finding) -> WorkerResult {
            earliest.withLock { $0 = min($0, finding.packet) }
            result.finding = finding
            return result
        }
        do {
            let input = try AVInput(path: path, demuxer: demuxer)
            input.discardAllStreams(except: [stream.index])
            let decoder: AVDecoder
            do {
                decoder = try AVDecoder(input: input, streamIndex: stream.index, options: options)
            } catch where error.operation == .findDecoder || error.isNotImplemented {
                result.notChecked = true
                return result
            }
            guard var splitter = IndependentSegments(codec: stream.codec, configuration: input.header(of: stream.index).configuration) else {
                return result
            }
            let packet = try AVPacketBuffer()
            let frame = try AVFrameBuffer()
            // The segment the decoder is on (`nil`: none of this thread's), its frames, and, once the
            // stream has gone past its end, its packets' presentation times (to tell its pictures apart).
            var decoding: Int? = worker == 0 ? 0 : nil
            var duration = template
            var times: Set<Int64> = []
            var past = false
            // Packets of the decoder's segment fed to it.
            var fed = 0
            // Whether the segment being demuxed may end at the next IDR (``minimumSegmentPackets``, all timed).
            var segmentPackets = 0
            var segmentTimed = true
            var packets = 0

            /// Ends the decoder's segment once the stream is past it: drains what the decoder holds
            /// (judging the segment's pictures only, charged to `packet`) and makes it ready for the next.
            func finish(at packet: Int, _ prefix: String) throws(FFmpegError) -> Finding? {
                guard let current = decoding else { return nil }
                _ = try decoder.sendEndOfStream()
                if let problem = try drain(decoder, into: frame, duration: &duration, times: past ? times : nil).problem {
                    return Finding(packet: packet, segment: current, prefix: prefix, problem: problem, verdict: nil)
                }
                result.segments[current] = duration
                decoder.flush()
                decoding = nil
                past = false
                return nil
            }

            while true {
                let place = " (packet \(packets + 1))"
                let more: Bool
                do {
                    more = try input.read(into: packet)
                } catch {
                    return found(Finding(packet: packets + 1, segment: decoding ?? segment, prefix: label, problem: nil,
                                         verdict: .corrupt(reason: "\(label) does not decode: \(error)")))
                }
                guard more else { break }
                defer { packet.unref() }
                guard packet.streamIndex == stream.index else { continue }
                packets += 1
                let here = packet.position.map { " (packet \(packets) at byte \($0))" } ?? place
                // Found earlier by another thread: done, but for a segment still being fed on, whose
                // frames the numbering of a later segment's damage needs.
                if !past, earliest.withLock({ $0 }) < packets { return result }
                let idr = packet.withBytes { splitter.startsSegment($0) }
                if idr, segmentTimed, segmentPackets >= minimumSegmentPackets {
                    if decoding == segment {
                        past = true
                        // Every packet of the segment is out as a picture: nothing is held back past the cut.
                        if duration.frames == fed, let finding = try finish(at: packets, label + here) { return found(finding) }
                    }
                    segment += 1
                    segmentPackets = 0
                    segmentTimed = true
                    if segment % count == worker {
                        // Still on an earlier segment (not expected: see minimumSegmentPackets): drained here.
                        if let finding = try finish(at: packets, label + here) { return found(finding) }
                        decoding = segment
                        duration = DecodedDuration(frameRate: template.frameRate)
                        times = []
                        past = false
                        fed = 0
                    }
                }
                segmentPackets += 1
                let time = packet.presentationTime
                if time == nil { segmentTimed = false }
                guard let current = decoding else { continue }
                if !past {
                    fed += 1
                    if let time { times.insert(time) }
                }
                var done = false
                do {
                    while try decoder.send(packet) == .outputPending {
                        let step = try drain(decoder, into: frame, duration: &duration, times: past ? times : nil)
                        if let problem = step.problem {
                            return found(Finding(packet: packets, segment: current, prefix: label + here, problem: problem, verdict: nil))
                        }
                        done = done || step.later
                    }
                    let step = try drain(decoder, into: frame, duration: &duration, times: past ? times : nil)
                    if let problem = step.problem {
                        return found(Finding(packet: packets, segment: current, prefix: label + here, problem: problem, verdict: nil))
                    }
                    done = done || step.later
                } catch where error.isNotImplemented {
                    return found(Finding(packet: packets, segment: current, prefix: label, problem: nil,
                                         verdict: .undecodable(reason: "\(label) cannot be decoded here (FFmpeg: \(error.message))")))
                } catch {
                    return found(Finding(packet: packets, segment: current, prefix: label, problem: nil,
                                         verdict: .corrupt(reason: "\(label) does not decode\(here): \(error.message)")))
                }
                // A picture of a later segment is out, or one picture per packet of this segment: so is
                // every one of this segment.
                if past, done || duration.frames == fed, let finding = try finish(at: packets, label + here) { return found(finding) }
            }
            result.packets = packets
            if let finding = try finish(at: packets + 1, label + " at the end") { return found(finding) }
            return result
        } catch {
            return found(Finding(packet: 0, segment: segment, prefix: label, problem: nil,
                                 verdict: .corrupt(reason: "\(label) does not decode: \(error)")))
        }
    }

    /// Receives every frame the decoder has ready, judging those of its segment: all when `times`
    /// is `nil`, else those whose presentation time is one of `times` (the segment's packets');
    /// `later` when a frame of a later segment came out (discarded).
    private static func drain(_ decoder: borrowing AVDecoder, into frame: borrowing AVFrameBuffer, duration: inout DecodedDuration,
                              times: Set<Int64>?) throws(FFmpegError) -> (problem: DecodeProblem?, later: Bool) {
        var later = false
        while try decoder.receive(into: frame) == .frame {
            if let times, !(frame.presentationTime.map(times.contains) ?? false) {
                later = true
                continue
            }
            if let problem = judge(frame, timeBase: decoder.timeBase, duration: &duration) { return (problem, later) }
        }
        return (nil, later)
    }
}
