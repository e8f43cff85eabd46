/// Where a video stream can be cut into segments that decode alone, each on a fresh decoder, to the
/// same frames and the same errors as one decoder running through the whole stream
/// (``DeepCheck`` decodes the segments in parallel).
///
/// A segment starts at an instantaneous decoding refresh only: an H.264 IDR picture (NAL type 5)
/// or an HEVC IDR (19 `IDR_W_RADL`, 20 `IDR_N_LP`), which empties the reference lists, so no
/// later picture can reference one before it. A CRA or any other I-picture (an open GOP) is never a
/// cut: its leading pictures reference the GOP before. Other codecs are one segment: a packet
/// flagged keyframe need not be independently decodable (VP9's and AV1's can be followed by frames
/// that reference older ones).
///
/// A decoder also keeps the parameter sets (SPS, PPS, HEVC VPS) it has seen: a fresh one knows
/// the container's (`avcC`/`hvcC`) only. So an IDR is a cut only when its own packet repeats every
/// parameter set the stream carried in band before it (byte for byte): the fresh decoder then holds
/// exactly what the one running through would. A packet that does not parse is never a cut.
struct IndependentSegments {
    private let codec: Codec
    /// Bytes of the big-endian length before each NAL unit (`avcC`/`hvcC`); `nil` = Annex B start codes.
    private let lengthSize: Int?
    /// Every distinct parameter-set NAL unit seen in band so far.
    private var parameterSets: Set<[UInt8]> = []
    private var packets = 0

    /// Whether streams of `codec` are cut at all (H.264, HEVC).
    static func cuts(_ codec: Codec) -> Bool { codec == .h264 || codec == .hevc }

    /// `nil` when `codec` is not split (one segment).
    /// - Parameter configuration: the stream's extradata (`avcC`, `hvcC`, Annex B, or empty).
    init?(codec: Codec, configuration: [UInt8]) {
        guard Self.cuts(codec) else { return nil }
        self.codec = codec
        // As FFmpeg's decoders tell a configuration record from Annex B extradata.
        if codec == .h264, configuration.count >= 7, configuration[0] == 1 {
            lengthSize = Int(configuration[4] & 3) + 1
        } else if codec == .hevc, configuration.count >= 23,
                  configuration[0] != 0 || configuration[1] != 0 || configuration[2] > 1 {
            lengthSize = Int(configuration[21] & 3) + 1
        } else {
            lengthSize = nil
        }
    }

    /// Whether the next packet of the stream (in decoding order) starts a new segment. The first
    /// packet never does (it starts the first segment). Call once per packet, in order.
    mutating func startsSegment(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        packets += 1
        guard let units = nalUnits(bytes) else {
            // Unparsed: whatever parameter sets it holds are unknown, so no later cut is safe.
            parameterSets.insert([0xFF])
            return false
        }
        var idr = false
        var own: Set<[UInt8]> = []
        for unit in units where !unit.isEmpty {
            switch kind(of: bytes[unit.lowerBound]) {
            case .idr: idr = true
            case .parameterSet: own.insert(Array(bytes[unit]))
            case .other: break
            }
        }
        let cut = packets > 1 && idr && parameterSets.isSubset(of: own)
        parameterSets.formUnion(own)
        return cut
    }

    private enum Kind { case idr, parameterSet, other }

    private func kind(of header: UInt8) -> Kind {
        if codec == .h264 {
            switch header & 0x1F {
            case 5: return .idr
            case 7, 8, 13, 15: return .parameterSet  // SPS, PPS, SPS extension, subset SPS
            default: return .other
            }
        }
        switch (header >> 1) & 0x3F {
        case 19, 20: return .idr
        case 32, 33, 34: return .parameterSet  // VPS, SPS, PPS
        default: return .other
        }
    }

    /// Where the NAL units of a packet lie (start codes, lengths and trailing zero bytes left out);
    /// `nil` when a length runs past the packet.
    private func nalUnits(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        var units: [Range<Int>] = []
        if let lengthSize {
            var at = 0
            while at < bytes.count {
                guard bytes.count - at >= lengthSize else { return nil }
                var length = 0
                for i in 0..<lengthSize { length = length << 8 | Int(bytes[at + i]) }
                at += lengthSize
                guard length <= bytes.count - at else { return nil }
                units.append(at..<(at + length))
                at += length
            }
            return units
        }
        // Annex B: a unit runs from after a 00 00 01 to the next one.
        var start: Int?
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                if let start { units.append(trimmed(bytes, start, i)) }
                start = i + 3
                i += 3
            } else {
                i += 1
            }
        }
        if let start { units.append(trimmed(bytes, start, bytes.count)) }
        return start == nil && !bytes.isEmpty ? nil : units
    }

    private func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
        var end = end
        while end > start, bytes[end - 1] == 0 { end -= 1 }
        return start..<end
    }
}
