/// Raw H.264 and HEVC elementary streams (ITU-T H.264 / H.265 Annex B byte streams): a start
/// code at byte 0, then the parameter sets a decoder needs before any picture — SPS and PPS for
/// H.264, VPS, SPS and PPS for HEVC — each behind its own start code in the first bytes. An access
/// unit delimiter may come first.
enum AnnexB {
    static func format(_ h: [UInt8]) -> Container? {
        guard h.matches([0, 0, 0, 1], at: 0) || h.matches([0, 0, 1], at: 0) else { return nil }
        let headers = nalHeaders(h)
        guard let first = headers.first, first & 0x80 == 0 else { return nil }
        let hevc = headers.map { Int($0 >> 1) & 0x3F }
        if hevc.first(where: { $0 != 35 }) == 32, hevc.contains(33), hevc.contains(34) { return .hevc }
        let avc = headers.map { Int($0) & 0x1F }
        if avc.first(where: { $0 != 9 }) == 7, avc.contains(8) { return .h264 }
        return nil
    }

    /// The first byte of each NAL unit in `h` (the byte after each `00 00 01`).
    private static func nalHeaders(_ h: [UInt8]) -> [UInt8] {
        var headers: [UInt8] = []
        var i = 0
        while i + 3 < h.count, headers.count < 16 {
            if h[i] == 0, h[i + 1] == 0, h[i + 2] == 1 {
                headers.append(h[i + 3])
                i += 3
            } else {
                i += 1
            }
        }
        return headers
    }
}
