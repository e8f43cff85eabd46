/// MPEG transport stream layout: fixed-size packets from byte 0 to the end of the file, each
/// starting with the sync byte `0x47`: 188-byte packets, or 192-byte packets whose sync byte
/// follows a 4-byte timecode (M2TS/AVCHD). A last packet cut off by the end of the file is
/// dropped, as demuxers drop it: when it carries no media (the null PID, a service-information
/// PID below 0x20, a PID no PMT lists as a stream, or an adaptation field only) the file is recoverable (``SkippedBytes``); a
/// media packet cut short is truncated (corrupt).
enum TransportStreamStructure {
    static func check(_ reader: borrowing FileReader) -> StructureVerdict {
        guard let packets = TransportStreamPackets(reader) else {
            return .corrupt(reason: "no transport stream sync byte (0x47) at byte 0 or 4")
        }
        switch packets.walk(reader, { _, _ in true }) {
        case .finished, .stopped:
            return .intact
        case .lostSync(let offset, let packet):
            return .corrupt(reason: "lost sync: no 0x47 at byte \(offset) (packet \(packet))")
        case .cut(let offset, let bytes):
            guard offset > 0 else {
                return .corrupt(reason: "the only packet has \(bytes.count) of \(packets.size) bytes (truncated)")
            }
            let elementary = TransportStreamPrograms.read(reader).map { Set($0.streams.map(\.pid)) }
            guard carriesNoMedia(Array(bytes.dropFirst(packets.syncOffset)), elementaryPIDs: elementary) else {
                return .corrupt(reason: "the last packet at byte \(offset) has \(bytes.count) of \(packets.size) bytes (truncated)")
            }
            var skipped = SkippedBytes()
            skipped.add(at: offset, count: Int64(bytes.count),
                        "in the last packet, cut short (\(bytes.count) of \(packets.size) bytes)", junk: false)
            return skipped.verdict
        }
    }

    /// Whether a packet (from its sync byte; at least the 4-byte header must be there to tell)
    /// carries no audio or video: the null PID (stuffing), a service-information PID (PAT, CAT,
    /// NIT, SDT, EIT...: below 0x20), an adaptation field without payload, or, when the program
    /// tables were read (`elementaryPIDs`: every PID a PMT lists), a PID no PMT lists (a PMT's
    /// own, a program clock's). `nil`: the tables were not read, only the fixed PIDs count.
    static func carriesNoMedia(_ packet: [UInt8], elementaryPIDs: Set<Int>? = nil) -> Bool {
        guard packet.count >= 4 else { return false }
        let pid = Int(packet[1] & 0x1F) << 8 | Int(packet[2])
        if pid == 0x1FFF || pid < 0x20 || packet[3] & 0x30 == 0x20 { return true }
        guard let elementaryPIDs, !elementaryPIDs.isEmpty else { return false }
        return !elementaryPIDs.contains(pid)
    }
}

/// The packets of a transport stream, in file order: the one walk the structure check and the
/// program reader (``TransportStreamPrograms``) share. 188-byte packets, or 192-byte M2TS packets
/// whose sync byte follows a 4-byte timecode.
struct TransportStreamPackets {
    /// Bytes per packet: 188, or 192 for M2TS.
    let size: Int
    /// Where the sync byte sits in a packet: 0, or 4 for M2TS.
    let syncOffset: Int

    /// How the walk ended.
    enum End: Equatable {
        /// Every packet to the end of the file was whole.
        case finished
        /// The body asked to stop.
        case stopped
        /// No sync byte at `offset` (the sync byte's own offset), in packet `packet` (counted from 1).
        case lostSync(offset: Int64, packet: Int64)
        /// The last packet, at `offset`, is cut short by the end of the file: its `bytes`.
        case cut(offset: Int64, bytes: [UInt8])
    }

    /// The layout from the file's first bytes; `nil` when neither byte 0 nor byte 4 is `0x47`.
    init?(_ reader: borrowing FileReader) {
        let head = reader.read(at: 0, count: 5)
        if head.u8(0) == 0x47 {
            (size, syncOffset) = (188, 0)
        } else if head.u8(4) == 0x47 {
            (size, syncOffset) = (192, 4)
        } else {
            return nil
        }
    }

    /// Calls `body` with each whole packet's offset and its 188 bytes from the sync byte, in file
    /// order, reading 1024 packets at a time, until `body` returns `false`, a packet has no sync
    /// byte, or the file ends.
    func walk(_ reader: borrowing FileReader, _ body: (Int64, ArraySlice<UInt8>) -> Bool) -> End {
        let packetsPerRead = 1024
        var position: Int64 = 0
        while position < reader.size {
            let chunk = reader.read(at: position, count: size * packetsPerRead)
            guard !chunk.isEmpty else { break }
            var index = 0
            while index < chunk.count {
                guard chunk.count - index >= size else {
                    return .cut(offset: position + Int64(index), bytes: Array(chunk[index...]))
                }
                guard chunk[index + syncOffset] == 0x47 else {
                    return .lostSync(offset: position + Int64(index + syncOffset),
                                     packet: position / Int64(size) + Int64(index / size) + 1)
                }
                guard body(position + Int64(index), chunk[(index + syncOffset)..<(index + syncOffset + 188)]) else { return .stopped }
                index += size
            }
            position += Int64(chunk.count)
        }
        return .finished
    }
}
