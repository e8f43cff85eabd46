import CFFmpeg

extension AVInput {
    /// Moves reading to the keyframe at or before `seconds` in stream `index` (`avformat_seek_file`
    /// with the target as the upper bound): the next packets start at that keyframe. Demuxers
    /// without an index (MPEG-TS, MPEG-PS, raw streams) may land elsewhere: callers look at the
    /// timestamps they read.
    /// - Throws: ``FFmpegError`` tagged `"seek"`.
    func seek(stream index: Int, toKeyframeBefore seconds: Double) throws(FFmpegError) {
        let timeBase = self.timeBase(of: index)
        let target = Self.timestamp(seconds, in: timeBase)
        let status = avformat_seek_file(context, Int32(index), Int64.min, target, target, 0)
        guard status >= 0 else { throw FFmpegError(operation: "seek", code: status) }
    }

    /// The time base stream `index`'s timestamps count in.
    func timeBase(of index: Int) -> AVRational { context.pointee.streams[index]!.pointee.time_base }

    /// The stream's first timestamp in seconds (0 when unknown).
    func startTime(of index: Int) -> Double {
        let stream = context.pointee.streams[index]!
        let start = stream.pointee.start_time
        guard start != ak_nopts_value() else { return 0 }
        return Self.seconds(start, in: stream.pointee.time_base)
    }

    /// The nominal frame rate of video stream `index` (average, else the container's base rate),
    /// `nil` when neither is known.
    func frameRate(of index: Int) -> AVRational? {
        let stream = context.pointee.streams[index]!
        for rate in [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate] where rate.num > 0 && rate.den > 0 {
            let fps = Double(rate.num) / Double(rate.den)
            if fps >= 1, fps <= 240 { return rate }
        }
        return nil
    }

    /// The sample aspect ratio of video stream `index` (1:1 when unknown).
    func sampleAspectRatio(of index: Int) -> AVRational {
        let stream = context.pointee.streams[index]!
        for sar in [stream.pointee.sample_aspect_ratio, stream.pointee.codecpar.pointee.sample_aspect_ratio] where sar.num > 0 && sar.den > 0 {
            return sar
        }
        return AVRational(num: 1, den: 1)
    }

    /// A copy of the cover-art packet of attached-picture stream `index` into `packet`.
    /// - Throws: ``FFmpegError`` tagged `"attached picture"` when the stream carries none.
    func attachedPicture(of index: Int, into packet: borrowing AVPacketBuffer) throws(FFmpegError) {
        let stream = context.pointee.streams[index]!
        guard (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0, stream.pointee.attached_pic.size > 0 else {
            throw FFmpegError(operation: "attached picture", message: "stream \(index) has no attached picture")
        }
        packet.unref()
        let status = withUnsafePointer(to: &stream.pointee.attached_pic) { av_packet_ref(packet.pointer, $0) }
        guard status >= 0 else { throw FFmpegError(operation: "attached picture", code: status) }
    }

    /// `seconds` as a timestamp in `timeBase` (rounded to the nearest unit), saturating at half
    /// the range of `Int64` (room for the offsets added to it) so an absurd time from a file or a
    /// caller cannot trap; NaN or a time base without ticks gives 0.
    static func timestamp(_ seconds: Double, in timeBase: AVRational) -> Int64 {
        guard timeBase.num > 0, !seconds.isNaN else { return 0 }
        return (seconds * Double(timeBase.den) / Double(timeBase.num)).clampedInteger(in: Int64.min / 2...Int64.max / 2)
    }

    /// A timestamp in `timeBase` as seconds.
    static func seconds(_ timestamp: Int64, in timeBase: AVRational) -> Double {
        guard timeBase.den > 0 else { return 0 }
        return Double(timestamp) * Double(timeBase.num) / Double(timeBase.den)
    }
}

extension AVPacketBuffer {
    /// Presentation time in seconds in `timeBase` (decoding time when no presentation time is set).
    func seconds(in timeBase: AVRational) -> Double? { timestamp.map { AVInput.seconds($0, in: timeBase) } }

    /// Whether the packet starts a keyframe (`AV_PKT_FLAG_KEY`).
    var isKeyframe: Bool { (pointer.pointee.flags & AV_PKT_FLAG_KEY) != 0 }

    /// Moves every timestamp by `-offset` (in the packet's current time base), then converts them
    /// from `from` to `to`, and sets the output stream index.
    func retime(minus offset: Int64, from: AVRational, to: AVRational, stream: Int) {
        let p = pointer
        if p.pointee.pts != ak_nopts_value() { p.pointee.pts -= offset }
        if p.pointee.dts != ak_nopts_value() { p.pointee.dts -= offset }
        av_packet_rescale_ts(p, from, to)
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
    /// Bytes of stream `index`'s attached picture (0 when it carries none).
    func attachedPictureSize(of index: Int) -> Int {
        guard let stream = context.pointee.streams[index], (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0 else { return 0 }
        return Int(max(0, stream.pointee.attached_pic.size))
    }
}
