/// MPEG transport stream layout: fixed-size packets from byte 0 to the end of the file, each
/// starting with the sync byte `0x47`: 188-byte packets, or 192-byte packets whose sync byte
/// follows a 4-byte timecode (M2TS/AVCHD). A last packet cut off by the end of the file is
/// dropped, as demuxers drop it: when it carries no media (the null PID, a service-information
/// PID below 0x20, or an adaptation field only) the file is recoverable (``SkippedBytes``); a
/// media packet cut short is truncated (corrupt).
enum TransportStreamStructure {
    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        let head = reader.read(at: 0, count: 5)
        let packetSize: Int, syncOffset: Int
        if head.u8(0) == 0x47 {
            (packetSize, syncOffset) = (188, 0)
        } else if head.u8(4) == 0x47 {
            (packetSize, syncOffset) = (192, 4)
        } else {
            return .corrupt(reason: "no transport stream sync byte (0x47) at byte 0 or 4")
        }
        let packetsPerRead = 1024
        var position: Int64 = 0
        while position < reader.size {
            let chunk = reader.read(at: position, count: packetSize * packetsPerRead)
            guard !chunk.isEmpty else { break }
            var index = 0
            while index < chunk.count {
                guard chunk.count - index >= packetSize else {
                    guard position + Int64(index) > 0 else {
                        return .corrupt(reason: "the only packet has \(chunk.count) of \(packetSize) bytes (truncated)")
                    }
                    let cut = Array(chunk[(index + syncOffset)...])
                    guard carriesNoMedia(cut) else {
                        return .corrupt(reason: "the last packet at byte \(position + Int64(index)) has \(chunk.count - index) of \(packetSize) bytes (truncated)")
                    }
                    var skipped = SkippedBytes()
                    skipped.add(at: position + Int64(index), count: Int64(chunk.count - index),
                                "in the last packet, cut short (\(chunk.count - index) of \(packetSize) bytes)", junk: false)
                    return skipped.verdict
                }
                guard chunk[index + syncOffset] == 0x47 else {
                    return .corrupt(reason: "lost sync: no 0x47 at byte \(position + Int64(index + syncOffset)) (packet \(position / Int64(packetSize) + Int64(index / packetSize) + 1))")
                }
                index += packetSize
            }
            position += Int64(chunk.count)
        }
        return .intact
    }

    /// Whether a packet (from its sync byte; at least the 4-byte header must be there to tell)
    /// carries no audio or video: the null PID (stuffing), a service-information PID (PAT, CAT,
    /// NIT, SDT, EIT...: below 0x20), or an adaptation field without payload.
    static func carriesNoMedia(_ packet: [UInt8]) -> Bool {
        guard packet.count >= 4 else { return false }
        let pid = Int(packet[1] & 0x1F) << 8 | Int(packet[2])
        return pid == 0x1FFF || pid < 0x20 || packet[3] & 0x30 == 0x20
    }
}
