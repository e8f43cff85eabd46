import Foundation
import Testing
@testable import AttachKit

/// Makes small transport streams for the tests: muxed by ffmpeg from lavfi sources, then edited
/// packet by packet — the PMT rewritten with other stream types and descriptors (its CRC
/// recomputed), SCTE-35 section packets and a late program clock added, audio packets removed.
/// 188-byte packets only.
enum TransportStreamEditor {
    /// One entry of a PMT's elementary stream loop.
    struct Entry {
        var streamType: UInt8
        var pid: Int
        /// The ES_info descriptors, as bytes (tag, length, body...).
        var descriptors: [UInt8] = []
    }

    /// A PMT: its PCR PID, program_info descriptors (bytes) and streams.
    struct Map {
        var pcrPID: Int
        var programInfo: [UInt8]
        var streams: [Entry]
    }

    /// A registration descriptor (0x05) naming `format`.
    static func registration(_ format: String) -> [UInt8] { [0x05, 4] + Array(format.utf8) }

    /// A DVB extension descriptor (0x7F) with `tagExtension` and `body`.
    static func dvbExtension(_ tagExtension: UInt8, _ body: [UInt8] = []) -> [UInt8] { [0x7F, UInt8(1 + body.count), tagExtension] + body }

    /// Runs ffmpeg (bit-exact, one thread) with `arguments` and writes an MPEG-TS to `path`.
    static func mux(_ arguments: [String], to path: String) throws {
        let run = try TestEnvironment.run("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments
            + ["-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact", "-threads", "1", "-f", "mpegts", path])
        #expect(run.status == 0, "ffmpeg: \(run.stderr)")
    }

    /// `seconds` of a 440 Hz tone in MP2 (mono, 48 kHz, 64 kb/s) muxed into an MPEG-TS at `path`.
    static func mp2(seconds: Double, to path: String) throws {
        try mux(["-f", "lavfi", "-i", "sine=f=440:r=48000:d=\(seconds)", "-c:a", "mp2", "-b:a", "64k", "-ac", "1"], to: path)
    }

    static func packets(_ data: Data) -> [[UInt8]] {
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count - 187, by: 188).map { Array(bytes[$0..<($0 + 188)]) }
    }

    static func pid(_ packet: [UInt8]) -> Int { Int(packet[1] & 0x1F) << 8 | Int(packet[2]) }

    /// The PMT PID the first PAT names.
    static func mapPID(_ packets: [[UInt8]]) -> Int? {
        guard let pat = packets.first(where: { pid($0) == 0 && $0[1] & 0x40 != 0 }) else { return nil }
        let section = Array(pat[(5 + Int(pat[4]))...])
        return Int(section[10] & 0x1F) << 8 | Int(section[11])
    }

    /// The section a packet starts (after its pointer field), as long as its `section_length` says.
    static func section(_ packet: [UInt8]) -> [UInt8] {
        let start = 4 + (packet[3] & 0x20 != 0 ? 1 + Int(packet[4]) : 0)
        let body = Array(packet[(start + 1 + Int(packet[start]))...])
        return Array(body.prefix(3 + (Int(body[1] & 0x0F) << 8 | Int(body[2]))))
    }

    static func parse(_ section: [UInt8]) -> Map {
        let end = section.count - 4
        let infoLength = Int(section[10] & 0x0F) << 8 | Int(section[11])
        var streams: [Entry] = []
        var at = 12 + infoLength
        while at + 5 <= end {
            let length = Int(section[at + 3] & 0x0F) << 8 | Int(section[at + 4])
            streams.append(Entry(streamType: section[at], pid: Int(section[at + 1] & 0x1F) << 8 | Int(section[at + 2]),
                                 descriptors: Array(section[(at + 5)..<(at + 5 + length)])))
            at += 5 + length
        }
        return Map(pcrPID: Int(section[8] & 0x1F) << 8 | Int(section[9]), programInfo: Array(section[12..<(12 + infoLength)]), streams: streams)
    }

    /// A PMT section for `map` (program 1, version 0), its CRC computed.
    static func build(_ map: Map) -> [UInt8] {
        var body: [UInt8] = [0x00, 0x01, 0xC1, 0x00, 0x00, 0xE0 | UInt8(map.pcrPID >> 8), UInt8(map.pcrPID & 0xFF),
                             0xF0 | UInt8(map.programInfo.count >> 8), UInt8(map.programInfo.count & 0xFF)] + map.programInfo
        for entry in map.streams {
            body += [entry.streamType, 0xE0 | UInt8(entry.pid >> 8), UInt8(entry.pid & 0xFF),
                     0xF0 | UInt8(entry.descriptors.count >> 8), UInt8(entry.descriptors.count & 0xFF)] + entry.descriptors
        }
        let length = body.count + 4
        var section: [UInt8] = [0x02, 0xB0 | UInt8(length >> 8), UInt8(length & 0xFF)] + body
        let crc = MPEG2CRC.checksum(section[...])
        section += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return section
    }

    /// Packets carrying `section` on `pid` (the first with the pointer field), continuity counters from `counter`.
    static func sectionPackets(_ section: [UInt8], pid: Int, counter: Int) -> [[UInt8]] {
        var payload = [0] + section
        var out: [[UInt8]] = []
        var first = true
        while !payload.isEmpty {
            let piece = Array(payload.prefix(184))
            payload.removeFirst(piece.count)
            let header: [UInt8] = [0x47, (first ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF), 0x10 | UInt8((counter + out.count) & 0x0F)]
            out.append(header + piece + [UInt8](repeating: 0xFF, count: 184 - piece.count))
            first = false
        }
        return out
    }

    /// The stream with every PMT replaced by what `edit` makes of it (a PMT longer than a packet
    /// takes the packets after it).
    static func rewriteMap(_ data: Data, _ edit: (inout Map) -> Void) throws -> Data {
        let packets = packets(data)
        let pmt = try #require(mapPID(packets), "no PAT")
        var out: [[UInt8]] = []
        for packet in packets {
            guard pid(packet) == pmt, packet[1] & 0x40 != 0 else { out.append(packet); continue }
            var map = parse(section(packet))
            edit(&map)
            out += sectionPackets(build(map), pid: pmt, counter: Int(packet[3] & 0x0F))
        }
        return Data(out.joined())
    }

    /// An adaptation-field-only packet on `pid` whose PCR says `seconds`.
    static func clock(pid: Int, seconds: Double) -> [UInt8] {
        let base = UInt64(seconds * 90_000)
        let field: [UInt8] = [0x10, UInt8(base >> 25 & 0xFF), UInt8(base >> 17 & 0xFF), UInt8(base >> 9 & 0xFF), UInt8(base >> 1 & 0xFF),
                              UInt8((base & 1) << 7) | 0x7E, 0x00]
        let packet: [UInt8] = [0x47, UInt8(pid >> 8), UInt8(pid & 0xFF), 0x20, UInt8(field.count)] + field
        return packet + [UInt8](repeating: 0xFF, count: 188 - packet.count)
    }

    /// A `splice_null` splice_info_section (SCTE 35, table 0xFC) in one packet on `pid`.
    static func spliceNull(pid: Int, counter: Int) -> [UInt8] {
        let body: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xF0, 0x00, 0x00, 0x00, 0x00]
        let length = body.count + 4
        var section: [UInt8] = [0xFC, 0x30 | UInt8(length >> 8), UInt8(length & 0xFF)] + body
        let crc = MPEG2CRC.checksum(section[...])
        section += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        return sectionPackets(section, pid: pid, counter: counter)[0]
    }

    /// `data` with an SCTE-35 stream on PID 0x101 (stream type 0x86, `CUEI` registered for the
    /// program and the stream, as ffmpeg writes it when copying one): a section right after the
    /// first media packet (timed by the program clock there, before the media start) and one at
    /// the end after a clock `tail` seconds past `end`.
    static func addingCues(_ data: Data, end: Double, tail: Double) throws -> Data {
        let mapped = try rewriteMap(data) { map in
            map.programInfo = registration("CUEI")
            map.streams.append(Entry(streamType: 0x86, pid: 0x101, descriptors: registration("CUEI")))
        }
        var packets = packets(mapped)
        let pmt = try #require(mapPID(packets))
        let media = try #require(packets.firstIndex { ![0, pmt, 0x11].contains(pid($0)) }, "no media packet")
        let audio = pid(packets[media])
        packets.insert(spliceNull(pid: 0x101, counter: 0), at: media + 1)
        packets += [clock(pid: audio, seconds: end + tail), spliceNull(pid: 0x101, counter: 1)]
        return Data(packets.joined())
    }
}
