import CFFmpeg

extension AVInput {
    /// Moves reading to the keyframe at or before `seconds` in stream `index` (`avformat_seek_file`
    /// with the target as the upper bound): the next packets start at that keyframe. Demuxers
    /// without an index (MPEG-TS, MPEG-PS, raw streams) may land elsewhere: callers look at the
    /// timestamps they read.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/seek``.
    func seek(stream index: Int, toKeyframeBefore seconds: Double) throws(FFmpegError) {
        let timeBase = self.timeBase(of: index)
        let target = timeBase.timestamp(seconds)
        let status = avformat_seek_file(context, Int32(index), Int64.min, target, target, 0)
        guard status >= 0 else { throw FFmpegError(operation: .seek, code: status) }
    }

    /// The time base stream `index`'s timestamps count in.
    func timeBase(of index: Int) -> Rational { Rational(context.pointee.streams[index]!.pointee.time_base) }

    /// The stream's first timestamp in seconds (0 when unknown).
    func startTime(of index: Int) -> Double {
        let stream = context.pointee.streams[index]!
        let start = stream.pointee.start_time
        guard start != ak_nopts_value() else { return 0 }
        return Rational(stream.pointee.time_base).seconds(start)
    }

    /// The nominal frame rate of video stream `index` (average, else the container's base rate),
    /// `nil` when neither is known.
    func frameRate(of index: Int) -> Rational? {
        let stream = context.pointee.streams[index]!
        for rate in [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate].map(Rational.init) where rate.isPositive {
            if rate.value >= 1, rate.value <= 240 { return rate }
        }
        return nil
    }

    /// Seconds one packet of audio stream `index` lasts when its codec fixes the frame size
    /// (`frame_size` samples at `sample_rate`: 4096 for ALAC, 1024 for AAC); `nil` when unknown.
    func audioFrameSeconds(of index: Int) -> Double? {
        guard let parameters = context.pointee.streams[index]?.pointee.codecpar,
              parameters.pointee.frame_size > 0, parameters.pointee.sample_rate > 0 else { return nil }
        return Double(parameters.pointee.frame_size) / Double(parameters.pointee.sample_rate)
    }

    /// The sample aspect ratio of video stream `index` (1:1 when unknown).
    func sampleAspectRatio(of index: Int) -> Rational {
        let stream = context.pointee.streams[index]!
        for sar in [stream.pointee.sample_aspect_ratio, stream.pointee.codecpar.pointee.sample_aspect_ratio].map(Rational.init) where sar.isPositive {
            return sar
        }
        return Rational(1, 1)
    }

    /// A copy of the cover-art packet of attached-picture stream `index` into `packet`.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/attachedPicture`` when the stream carries none.
    func attachedPicture(of index: Int, into packet: borrowing AVPacketBuffer) throws(FFmpegError) {
        let stream = context.pointee.streams[index]!
        guard (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0, stream.pointee.attached_pic.size > 0 else {
            throw FFmpegError(operation: .attachedPicture, message: "stream \(index) has no attached picture")
        }
        packet.unref()
        let status = withUnsafePointer(to: &stream.pointee.attached_pic) { av_packet_ref(packet.pointer, $0) }
        guard status >= 0 else { throw FFmpegError(operation: .attachedPicture, code: status) }
    }
}

extension AVPacketBuffer {
    /// Presentation time in seconds in `timeBase` (decoding time when no presentation time is set).
    func seconds(in timeBase: Rational) -> Double? { timestamp.map(timeBase.seconds) }

    /// Whether the packet starts a keyframe (`AV_PKT_FLAG_KEY`).
    var isKeyframe: Bool { (pointer.pointee.flags & AV_PKT_FLAG_KEY) != 0 }

    /// Moves every timestamp by `-offset` (in the packet's current time base), then converts them
    /// from `from` to `to`, and sets the output stream index.
    func retime(minus offset: Int64, from: Rational, to: Rational, stream: Int) {
        let p = pointer
        if p.pointee.pts != ak_nopts_value() { p.pointee.pts -= offset }
        if p.pointee.dts != ak_nopts_value() { p.pointee.dts -= offset }
        av_packet_rescale_ts(p, from.av, to.av)
        p.pointee.stream_index = Int32(stream)
        p.pointee.pos = -1
    }
}

extension AVInput {
    /// Whether libavcodec has a decoder for stream `index`'s codec.
    func hasDecoder(stream index: Int) -> Bool {
        guard let parameters = context.pointee.streams[index]?.pointee.codecpar else { return false }
        return avcodec_find_decoder(parameters.pointee.codec_id) != nil
    }

    /// Stream `index`'s FourCC as the container tags it (`hvc1`, `hev1`, `avc1`...), `nil` when none.
    func codecTag(of index: Int) -> String? {
        guard let tag = context.pointee.streams[index]?.pointee.codecpar.pointee.codec_tag, tag != 0 else { return nil }
        let bytes = (0..<4).map { UInt8((tag >> (8 * UInt32($0))) & 0xFF) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension AVInput {
    /// The colour description of video stream `index` as its codec parameters give it.
    func colour(of index: Int) -> VideoColour {
        guard let parameters = context.pointee.streams[index]?.pointee.codecpar else { return .unspecified }
        return VideoColour(matrix: Int(parameters.pointee.color_space.rawValue),
                           primaries: Int(parameters.pointee.color_primaries.rawValue),
                           transfer: Int(parameters.pointee.color_trc.rawValue),
                           fullRange: parameters.pointee.color_range == AVCOL_RANGE_JPEG)
    }

    /// One entry of a stream's sample index: where a sample's bytes lie in the file.
    struct IndexEntry: Sendable, Equatable {
        /// Byte offset in the file (negative when unknown).
        let position: Int64
        /// Bytes the sample takes.
        let size: Int64
    }

    /// Entries in stream `index`'s sample index (`avformat_index_get_entries_count`): for `mov`,
    /// one per sample of the `stsz`/`stco`/`stsc` tables or of the fragments read with the header.
    func indexEntryCount(of index: Int) -> Int {
        guard let stream = context.pointee.streams[index] else { return 0 }
        return Int(avformat_index_get_entries_count(stream))
    }

    /// The container's own number for stream `index` (`AVStream.id`: an MP4/MOV's `tkhd` track ID).
    func containerID(of index: Int) -> Int { Int(context.pointee.streams[index]?.pointee.id ?? 0) }

    /// Entry `entry` of stream `index`'s sample index (`avformat_index_get_entry`), `nil` when absent.
    func indexEntry(_ entry: Int, of index: Int) -> IndexEntry? {
        guard let stream = context.pointee.streams[index], let found = avformat_index_get_entry(stream, Int32(entry)) else { return nil }
        return IndexEntry(position: found.pointee.pos, size: Int64(found.pointee.size))
    }
}

extension AVInput {
    /// The bytes of stream `index`'s attached picture (a JPEG or PNG as the file holds it); empty
    /// when the stream carries none.
    func attachedPictureBytes(of index: Int) -> [UInt8] {
        guard index >= 0, index < Int(context.pointee.nb_streams), let stream = context.pointee.streams[index],
              (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0,
              let data = stream.pointee.attached_pic.data, stream.pointee.attached_pic.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(stream.pointee.attached_pic.size)))
    }

    /// Bytes of stream `index`'s attached picture (0 when it carries none).
    func attachedPictureSize(of index: Int) -> Int {
        guard let stream = context.pointee.streams[index], (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0 else { return 0 }
        return Int(max(0, stream.pointee.attached_pic.size))
    }
}
