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
    /// One difference remains by construction: a segment's last pictures are drained at its end,
    /// so pictures an IDR's `no_output_of_prior_pics_flag` tells a single decoder to discard are
    /// decoded and judged here (stricter, never laxer).
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

    /// One thread of ``decodeSegments(path:demuxer:stream:options:threads:duration:)``: demuxes the
    /// whole stream, decodes the segments whose number is `worker` modulo `count`, and stops at its
    /// first finding or once another thread has found one earlier in the stream.
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
            var duration = template
            var mine = worker == 0
            var packets = 0
            while true {
                let place = " (packet \(packets + 1))"
                let more: Bool
                do {
                    more = try input.read(into: packet)
                } catch {
                    return found(Finding(packet: packets + 1, segment: segment, prefix: label, problem: nil,
                                         verdict: .corrupt(reason: "\(label) does not decode: \(error)")))
                }
                guard more else { break }
                defer { packet.unref() }
                guard packet.streamIndex == stream.index else { continue }
                packets += 1
                let here = packet.position.map { " (packet \(packets) at byte \($0))" } ?? place
                if earliest.withLock({ $0 }) < packets { return result }
                if packet.withBytes({ splitter.startsSegment($0) }) {
                    if mine {
                        // The segment's last pictures: a single decoder hands them out as this packet goes in.
                        _ = try decoder.sendEndOfStream()
                        if let problem = try drainFrames(decoder, into: frame, duration: &duration) {
                            return found(Finding(packet: packets, segment: segment, prefix: label + here, problem: problem, verdict: nil))
                        }
                        result.segments[segment] = duration
                        decoder.flush()
                    }
                    segment += 1
                    mine = segment % count == worker
                    duration = DecodedDuration(frameRate: template.frameRate)
                }
                guard mine else { continue }
                do {
                    while try decoder.send(packet) == .outputPending {
                        if let problem = try drainFrames(decoder, into: frame, duration: &duration) {
                            return found(Finding(packet: packets, segment: segment, prefix: label + here, problem: problem, verdict: nil))
                        }
                    }
                    if let problem = try drainFrames(decoder, into: frame, duration: &duration) {
                        return found(Finding(packet: packets, segment: segment, prefix: label + here, problem: problem, verdict: nil))
                    }
                } catch where error.isNotImplemented {
                    return found(Finding(packet: packets, segment: segment, prefix: label, problem: nil,
                                         verdict: .undecodable(reason: "\(label) cannot be decoded here (FFmpeg: \(error.message))")))
                } catch {
                    return found(Finding(packet: packets, segment: segment, prefix: label, problem: nil,
                                         verdict: .corrupt(reason: "\(label) does not decode\(here): \(error.message)")))
                }
            }
            result.packets = packets
            if mine {
                _ = try decoder.sendEndOfStream()
                if let problem = try drainFrames(decoder, into: frame, duration: &duration) {
                    return found(Finding(packet: packets + 1, segment: segment, prefix: label + " at the end", problem: problem, verdict: nil))
                }
                result.segments[segment] = duration
            }
            return result
        } catch {
            return found(Finding(packet: 0, segment: segment, prefix: label, problem: nil,
                                 verdict: .corrupt(reason: "\(label) does not decode: \(error)")))
        }
    }
}
