/// What a transport stream's program tables declare (ISO/IEC 13818-1 §2.4.4): the Program
/// Association Table (PID 0) lists each program's Program Map Table, and each PMT lists the
/// program's elementary streams, each with its `stream_type` and descriptors. Read from the first
/// packets (``packetLimit``) through ``TransportStreamPackets``; sections are put together across
/// packets and kept only when their CRC (``MPEG2CRC``) matches. Never trusts a length for an
/// allocation: a section is at most 1024 bytes (its 12-bit length is capped so).
struct TransportStreamPrograms: Sendable, Equatable {
    /// One elementary stream of a PMT.
    struct ElementaryStream: Sendable, Equatable {
        /// Its packet identifier (libavformat's stream `id`).
        var pid: Int
        var streamType: UInt8
        /// Its ES_info descriptors, in order.
        var descriptors: [Descriptor]
        /// The `format_identifier` of the registration descriptor (0x05) of its program's
        /// program_info (`HDMV` on Blu-ray, `CUEI` for SCTE-35 cues); `nil` when none.
        var programRegistration: String?

        /// The `format_identifier` of its own registration descriptor (0x05): `AC-3`, `DTS1`,
        /// `mhm1`...; `nil` when none.
        var registration: String? { descriptors.first { $0.tag == 0x05 }.flatMap(\.registration) }

        /// The tag extension of each DVB extension descriptor (0x7F, ETSI EN 300 468 §6.3) it carries.
        var dvbExtensions: [UInt8] { descriptors.filter { $0.tag == 0x7F }.compactMap(\.body.first) }

        /// The `descriptor_tag_extension` of each MPEG-2 extension descriptor (0x3F,
        /// ISO/IEC 13818-1 §2.6.90) it carries.
        var mpegExtensions: [UInt8] { descriptors.filter { $0.tag == 0x3F }.compactMap(\.body.first) }

        func has(_ tag: UInt8) -> Bool { descriptors.contains { $0.tag == tag } }
    }

    /// A descriptor: its tag and its body (after the length byte).
    struct Descriptor: Sendable, Equatable {
        var tag: UInt8
        var body: [UInt8]

        /// A registration descriptor's four-character `format_identifier`.
        var registration: String? {
            guard tag == 0x05, body.count >= 4, body.prefix(4).allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
            return String(decoding: body.prefix(4), as: UTF8.self)
        }
    }

    /// Every elementary stream of every program, in PMT order (a PID listed twice is kept once).
    var streams: [ElementaryStream]

    /// Packets read at most looking for the tables: 20,000 (3.76 MB; tables repeat every 100 ms or so).
    static let packetLimit = 20_000

    /// The programs of the transport stream `reader` holds; `nil` when it is not one, or no PAT
    /// with a PMT whose CRC matches is found in the first ``packetLimit`` packets.
    static func read(_ reader: borrowing FileReader) -> TransportStreamPrograms? {
        guard let packets = TransportStreamPackets(reader) else { return nil }
        var assembler = SectionAssembler()
        var mapPIDs: Set<Int>?
        var maps: [Int: [ElementaryStream]] = [:]
        var order: [Int] = []
        var count = 0
        _ = packets.walk(reader) { _, packet in
            count += 1
            let pid = Int(packet[packet.startIndex + 1] & 0x1F) << 8 | Int(packet[packet.startIndex + 2])
            let wanted = pid == 0 ? mapPIDs == nil : (mapPIDs?.contains(pid) ?? false) && maps[pid] == nil
            if wanted, let section = assembler.add(Array(packet), pid: pid) {
                if pid == 0, mapPIDs == nil, section.first == 0x00 {
                    mapPIDs = programMapPIDs(section)
                    order = mapPIDs.map { Array($0).sorted() } ?? []
                } else if pid != 0, section.first == 0x02, let streams = elementaryStreams(section) {
                    maps[pid] = streams
                }
            }
            guard let mapPIDs else { return count < packetLimit }
            return count < packetLimit && !mapPIDs.allSatisfy { maps[$0] != nil }
        }
        guard !maps.isEmpty else { return nil }
        var seen: Set<Int> = []
        let streams = order.flatMap { maps[$0] ?? [] }.filter { seen.insert($0.pid).inserted }
        return TransportStreamPrograms(streams: streams)
    }

    /// The PMT PIDs a PAT section lists (program 0, the network PID, left out).
    private static func programMapPIDs(_ section: [UInt8]) -> Set<Int> {
        let end = 3 + Int(section.be16(1) & 0x0FFF) - 4
        var pids: Set<Int> = []
        var at = 8
        while at + 4 <= end {
            if section.be16(at) != 0 { pids.insert(Int(section.be16(at + 2) & 0x1FFF)) }
            at += 4
        }
        return pids
    }

    /// The elementary streams of a PMT section; `nil` when its loops overrun the section.
    private static func elementaryStreams(_ section: [UInt8]) -> [ElementaryStream]? {
        let end = 3 + Int(section.be16(1) & 0x0FFF) - 4
        let programInfoLength = Int(section.be16(10) & 0x0FFF)
        guard 12 + programInfoLength <= end, let programInfo = descriptors(section, from: 12, to: 12 + programInfoLength) else { return nil }
        let programRegistration = programInfo.first { $0.tag == 0x05 }.flatMap(\.registration)
        var streams: [ElementaryStream] = []
        var at = 12 + programInfoLength
        while at + 5 <= end {
            let infoLength = Int(section.be16(at + 3) & 0x0FFF)
            guard at + 5 + infoLength <= end, let found = descriptors(section, from: at + 5, to: at + 5 + infoLength) else { return nil }
            streams.append(ElementaryStream(pid: Int(section.be16(at + 1) & 0x1FFF), streamType: section[at], descriptors: found,
                                            programRegistration: programRegistration))
            at += 5 + infoLength
        }
        return streams
    }

    /// The descriptors between `start` and `end`; `nil` when one overruns `end`.
    private static func descriptors(_ bytes: [UInt8], from start: Int, to end: Int) -> [Descriptor]? {
        var found: [Descriptor] = []
        var at = start
        while at + 2 <= end {
            let length = Int(bytes[at + 1])
            guard at + 2 + length <= end else { return nil }
            found.append(Descriptor(tag: bytes[at], body: Array(bytes[(at + 2)..<(at + 2 + length)])))
            at += 2 + length
        }
        return at == end ? found : nil
    }
}

/// Puts PSI sections together from the payloads of a PID's packets: a section starts in a packet
/// with `payload_unit_start_indicator` set, after its pointer field, and goes on in the PID's
/// next packets until its `section_length` is there. Only the first section a packet starts is
/// taken (PAT and PMT sections come one to a packet in practice); one whose CRC does not match
/// is dropped.
private struct SectionAssembler {
    /// The section being put together on each PID.
    private var partial: [Int: [UInt8]] = [:]

    /// Adds one packet (188 bytes from the sync byte) of `pid`; the whole section it completes, if any.
    mutating func add(_ packet: [UInt8], pid: Int) -> [UInt8]? {
        let control = packet[3] >> 4 & 0x03
        guard control & 0x01 != 0 else { return nil }  // no payload
        var start = 4
        if control == 0x03 { start += 1 + Int(packet[4]) }
        guard start < packet.count else { return nil }
        var payload = Array(packet[start...])
        if packet[1] & 0x40 != 0 {
            let pointer = Int(payload[0])
            guard 1 + pointer < payload.count else { partial[pid] = nil; return nil }
            payload = Array(payload[(1 + pointer)...])
            partial[pid] = []
        }
        guard var section = partial[pid] else { return nil }  // no section started yet
        section += payload
        guard section.count >= 3 else { partial[pid] = section; return nil }
        let length = 3 + Int(section.be16(1) & 0x0FFF)
        guard length <= 1024, length >= 3 + 9 else { partial[pid] = nil; return nil }
        guard section.count >= length else { partial[pid] = section; return nil }
        partial[pid] = nil
        let whole = Array(section.prefix(length))
        return MPEG2CRC.checksum(whole[...]) == 0 ? whole : nil
    }
}
