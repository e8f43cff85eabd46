/// A QCP file's timing (RFC 3625, Qualcomm PureVoice): its `fmt ` chunk's samples per block and
/// sampling rate, and the packet count of its `vrat` chunk. libavformat's `qcp` demuxer gives no
/// duration but an estimate from the `fmt ` chunk's nominal bit rate (a second of eighth-rate
/// QCELP read as 0.14 s); every packet is one block (20 ms at 8000 Hz), so the packets say it.
struct QCPHeader: Sendable, Equatable {
    /// Samples each packet decodes to (`fmt ` block size; 160 for QCELP-13K and EVRC).
    let samplesPerBlock: Int
    /// Samples per second (`fmt ` sampling rate; 8000).
    let sampleRate: Int
    /// Packets in the `data` chunk, as the `vrat` chunk counts them; `nil` without a `vrat` chunk
    /// (a fixed-rate file).
    let packets: Int?

    /// Bytes of an RFC 3625 `fmt ` chunk: version, codec GUID, codec version and name, average
    /// bit rate, packet size, block size, sampling rate, sample size, the 8-entry rate map and
    /// 20 reserved bytes.
    static let formatBytes: Int64 = 150

    /// Seconds the packets last; `nil` when the file does not count them or its numbers are 0.
    var duration: Double? {
        guard let packets, packets > 0, samplesPerBlock > 0, sampleRate > 0 else { return nil }
        return Double(packets) * Double(samplesPerBlock) / Double(sampleRate)
    }

    /// Chunks walked before the `data` chunk, at most (a QCP has `fmt `, `vrat`, maybe `labl` and `offs`).
    private static let maximumChunks = 64

    /// The header of the QCP in `reader`; `nil` when it is not one or its `fmt ` chunk is short.
    static func read(_ reader: borrowing FileReader) -> QCPHeader? {
        let head = reader.read(at: 0, count: 12)
        guard head.matches("RIFF", at: 0), head.matches("QLCM", at: 8) else { return nil }
        var position: Int64 = 12
        var format: [UInt8]?
        var packets: Int?
        for _ in 0..<maximumChunks {
            let chunk = reader.read(at: position, count: 8)
            guard chunk.count == 8 else { break }
            let size = Int64(chunk.le32(4))
            switch chunk.ascii(0, 4) {
            case "fmt ": format = reader.read(at: position + 8, count: Int(min(size, formatBytes)))
            case "vrat":
                // The variable-rate flag, then the size in packets.
                let body = reader.read(at: position + 8, count: 8)
                packets = body.count == 8 ? Int(body.le32(4)) : nil
            case "data": position = reader.size
            default: break
            }
            guard position < reader.size else { break }
            position += 8 + size + (size & 1)
        }
        // Block size at byte 104 of the chunk, sampling rate at 106 (after the version, GUID,
        // codec version and name, average bit rate and packet size).
        guard let format, format.count >= Int(formatBytes) else { return nil }
        return QCPHeader(samplesPerBlock: Int(format.le16(104)), sampleRate: Int(format.le16(106)), packets: packets)
    }
}
