import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// What a container header says of one stream beyond ``AVStreamInfo``, for the header-only probe
/// (``AVHeaderProbe``), read without decoding a packet.
struct AVStreamHeader: Sendable {
    /// The codec configuration the header carries (`avcC`, `hvcC`, an AAC `AudioSpecificConfig`);
    /// empty when there is none.
    let configuration: [UInt8]
    /// Whether the container tags the picture as full range (`AVCOL_RANGE_JPEG`).
    let tagsFullRange: Bool
    /// Where the first sample of the stream's index lies in the file (byte offset and size);
    /// `nil` when the index is empty (no packet to learn from).
    let firstSample: (offset: Int64, size: Int)?
}

extension AVInput {
    /// The header facts of stream `index` (0 ..< ``streamCount``) that ``AVStreamInfo`` leaves out.
    func header(of index: Int) -> AVStreamHeader {
        let stream = context.pointee.streams[index]!
        let parameters = stream.pointee.codecpar.pointee
        let configuration = parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, parameters.extradata_size)))) } ?? []
        let first = avformat_index_get_entries_count(stream) > 0 ? avformat_index_get_entry(stream, 0) : nil
        return AVStreamHeader(configuration: configuration, tagsFullRange: parameters.color_range == AVCOL_RANGE_JPEG,
                              firstSample: first.map { (offset: $0.pointee.pos, size: Int($0.pointee.size)) })
    }

    /// The first packet of each stream in `wanted` (by index), as the demuxer hands it to a
    /// decoder (Matroska's lacing and header stripping undone), read but not decoded; the other
    /// streams are skipped while reading. Stops once each has one, at the end of the input, at a
    /// read error, or past `byteBudget` bytes of packets: a stream missing from the answer had no
    /// packet within them.
    func firstPackets(of wanted: Set<Int>, byteBudget: Int) -> [Int: [UInt8]] {
        guard !wanted.isEmpty else { return [:] }
        let packet: AVPacketBuffer
        do { packet = try AVPacketBuffer() } catch { return [:] }
        discardAllStreams(except: wanted)
        var found: [Int: [UInt8]] = [:]
        var spent = 0
        while found.count < wanted.count, spent <= byteBudget {
            let more: Bool
            do { more = try read(into: packet) } catch { break }
            guard more else { break }
            spent += packet.byteCount
            if wanted.contains(packet.streamIndex), found[packet.streamIndex] == nil {
                found[packet.streamIndex] = packet.leadingBytes(packet.byteCount)
            }
            packet.unref()
        }
        discardAllStreams(except: Set(0..<streamCount))
        return found
    }

    /// The container duration in microseconds (`AV_TIME_BASE` units), as libavformat holds it;
    /// `nil` when unknown. ``duration`` is the same in seconds.
    var durationMicroseconds: Int64? {
        let d = context.pointee.duration
        return d != ak_nopts_value() && d > 0 ? d : nil
    }
}

extension FFmpegError {
    /// Whether FFmpeg answered that it lacks the feature: `AVERROR(ENOSYS)` ("Function not
    /// implemented", the AAC decoder's answer to USAC) or `AVERROR_PATCHWELCOME` ("Not yet
    /// implemented in FFmpeg, patches welcome", e.g. an Opus channel mapping family it does not know).
    var isNotImplemented: Bool { code == ak_averror(ENOSYS) || code == Self.patchWelcome }

    /// `AVERROR_PATCHWELCOME`: `-MKTAG('P','A','W','E')`.
    private static let patchWelcome: Int32 = -Int32(bitPattern: 0x50 | 0x41 << 8 | 0x57 << 16 | 0x45 << 24)
}
