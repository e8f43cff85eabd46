/// An MPEG-1/2/2.5 audio frame header (layers I–III).
struct MPEGAudioFrame {
    let length: Int
    let sampleRate: Int
    let samplesPerFrame: Int
    let layer: Int

    init?(_ h: [UInt8], at i: Int) {
        guard i + 4 <= h.count, h[i] == 0xFF, h[i + 1] & 0xE0 == 0xE0 else { return nil }
        let versionBits = (h[i + 1] >> 3) & 0x03   // 0: 2.5, 2: 2, 3: 1
        let layerBits = (h[i + 1] >> 1) & 0x03     // 1: III, 2: II, 3: I
        let bitrateIndex = Int(h[i + 2] >> 4)
        let rateIndex = Int((h[i + 2] >> 2) & 0x03)
        let padding = Int((h[i + 2] >> 1) & 0x01)
        guard versionBits != 1, layerBits != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let layer = 4 - Int(layerBits)
        let mpeg1 = versionBits == 3
        let v1: [[Int]] = [
            [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
            [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
            [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
        ]
        let v2: [[Int]] = [
            [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
            [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
            [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
        ]
        let kbps = (mpeg1 ? v1 : v2)[layer - 1][bitrateIndex - 1]
        let baseRates = [44100, 48000, 32000]
        let sampleRate = baseRates[rateIndex] / (versionBits == 3 ? 1 : versionBits == 2 ? 2 : 4)
        let samples: Int
        switch layer {
        case 1: samples = 384
        case 2: samples = 1152
        default: samples = mpeg1 ? 1152 : 576
        }
        if layer == 1 {
            length = (12 * kbps * 1000 / sampleRate + padding) * 4
        } else {
            length = samples / 8 * kbps * 1000 / sampleRate + padding
        }
        self.sampleRate = sampleRate
        self.samplesPerFrame = samples
        self.layer = layer
        guard length >= 4 else { return nil }
    }
}

/// An ADTS (AAC) frame header (ISO/IEC 13818-7 § 6.2, 14496-3 § 1.A.2): syncword `0xFFF`,
/// layer 0, then what decoding needs to open the stream. 7 bytes, 9 with the CRC that follows
/// when `protection_absent` is 0 (``length`` counts it).
struct ADTSFrame {
    /// `frame_length`: the whole frame, header included (13 bits; at least 7).
    let length: Int
    /// `profile_ObjectType`: 0 Main, 1 LC, 2 SSR, 3 LTP (the MPEG-4 audio object type minus 1,
    /// as libavcodec numbers AAC profiles: ``CodecProfile/aacLow``...).
    let profile: Int
    /// `sampling_frequency_index`, 0...12.
    let rateIndex: Int
    /// `channel_configuration`: 1...7 name a layout; 0 leaves it to a program config element in
    /// the payload.
    let channelConfiguration: Int
    /// `number_of_raw_data_blocks_in_frame`: the frame holds this many AAC frames plus one.
    let rawDataBlocks: Int
    /// The header's bytes: 7, or 9 with the CRC (`protection_absent` 0). With one raw data block
    /// the payload follows them.
    let headerLength: Int

    /// The rates of the sampling-frequency indices 0...12.
    static let sampleRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    init?(_ h: [UInt8], at i: Int) {
        guard i + 7 <= h.count, h[i] == 0xFF, h[i + 1] & 0xF6 == 0xF0 else { return nil }
        let rateIndex = Int(h[i + 2] >> 2) & 0x0F
        guard rateIndex < 13 else { return nil }
        let length = Int(h[i + 3] & 0x03) << 11 | Int(h[i + 4]) << 3 | Int(h[i + 5] >> 5)
        guard length >= 7 else { return nil }
        self.length = length
        self.rateIndex = rateIndex
        profile = Int(h[i + 2] >> 6)
        channelConfiguration = Int(h[i + 2] & 0x01) << 2 | Int(h[i + 3] >> 6)
        rawDataBlocks = Int(h[i + 6] & 0x03)
        headerLength = h[i + 1] & 0x01 == 0 ? 9 : 7
    }

    /// The core sampling rate (before any SBR a decoder finds in the payload).
    var sampleRate: Int { Self.sampleRates[rateIndex] }
    /// PCM samples per channel the frame holds at ``sampleRate``: 1024 per raw data block (what
    /// it decodes to when it holds a channel element: ``ADTSPayload``).
    var samples: Int { 1024 * (rawDataBlocks + 1) }

    /// The profile's name as FFmpeg gives it.
    var profileName: String { ["Main", "LC", "SSR", "LTP"][profile] }
}

/// An AC-3 or E-AC-3 sync frame header (`0B 77`); the bitstream id tells them apart.
struct AC3Frame {
    let length: Int
    let enhanced: Bool

    init?(_ h: [UInt8], at i: Int) {
        guard i + 6 <= h.count, h[i] == 0x0B, h[i + 1] == 0x77 else { return nil }
        let bsid = h[i + 5] >> 3
        if bsid <= 10 {
            // AC-3: the frame size code and sample rate give the size in 16-bit words (A/52 table 5.18).
            let rate = Int(h[i + 4] >> 6), code = Int(h[i + 4] & 0x3F)
            guard rate < 3, code < 38 else { return nil }
            let kbps = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640][code / 2]
            let words = [kbps * 2, kbps * 320 / 147 + (code & 1), kbps * 3][rate]
            length = words * 2
            enhanced = false
        } else if bsid <= 16 {
            // E-AC-3: an 11-bit frame size in words, minus one (A/52 annex E).
            length = (Int(h[i + 2] & 0x07) << 8 | Int(h[i + 3]) + 1) * 2
            enhanced = true
        } else {
            return nil
        }
    }
}

/// A DTS core frame header (16-bit big-endian sync `7F FE 80 01`).
struct DTSFrame {
    let length: Int

    init?(_ h: [UInt8], at i: Int) {
        guard i + 8 <= h.count, h[i] == 0x7F, h[i + 1] == 0xFE, h[i + 2] == 0x80, h[i + 3] == 0x01 else { return nil }
        let size = (Int(h[i + 5] & 0x03) << 12 | Int(h[i + 6]) << 4 | Int(h[i + 7] >> 4)) + 1
        guard size >= 96 else { return nil }
        length = size
    }
}
