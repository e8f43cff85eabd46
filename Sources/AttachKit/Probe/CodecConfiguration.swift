/// The stream facts `avformat_find_stream_info` learns by decoding the first packets, read
/// instead from the codec configuration a container header already carries (an MP4/MOV's `avcC`,
/// `hvcC`, the AAC `AudioSpecificConfig` in `esds`; the same records as a Matroska track's
/// `CodecPrivate`; a FLAC `STREAMINFO`), mapped as FFmpeg 5.1's decoders map them, so the
/// header-only probe agrees with the decoding one field by field:
///
/// - H.264 (`avcC`): the first SPS (``H264SequenceParameters``) gives the profile
///   (`ff_h264_get_profile`: +0x200 constrained Baseline, +0x800 intra High 10/4:2:2/4:4:4),
///   `level_idc`, and the pixel format of `h264_slice.c` `get_pixel_format`: 4:2:0 or 4:2:2 at 8
///   or 10 bits, `yuvj` at 8 bits when the SPS (or, without a video signal type, the container)
///   says full range.
/// - HEVC (`hvcC`): the record's own `general_profile_idc` (the first compatibility flag when it
///   is 0, as `hevc_ps.c` does), `general_level_idc`, `chromaFormat` 4:2:0/4:2:2 and bit depth
///   8/10/12 (`map_pixel_format`: no full-range variants).
/// - FLAC (`STREAMINFO`, which the decoder reads when it opens): ``FLACStreamInfo``.
/// - AAC-LC at 32 kHz or more with channel configuration 1 or 2 and no SBR signalled (what the decoder reports:
///   mono or stereo at the configured rate; lower rates may carry implicit SBR, which doubles
///   the rate the decoder reports).
///
/// Anything else (4:4:4 and monochrome, which FFmpeg may turn into RGB or grey; other bit
/// depths; HE-AAC, PCE channel layouts; other codecs; a record that does not parse) is `nil`:
/// the caller reads the stream info the decoding way.
enum CodecConfiguration {
    /// A picture stream's decoder-side facts.
    struct Picture: Equatable {
        let pixelFormat: String
        let bitDepth: Int
        let profile: Int
        let level: Int?
        let chroma: String
        /// Bytes of the length before each NAL unit of a sample (`lengthSizeMinusOne` + 1).
        let lengthSize: Int
    }

    /// A sound stream's decoder-side facts: the native channel mask the decoder sets, and what
    /// else it reports that the container header may leave unset.
    struct Sound: Equatable {
        let channelMask: UInt64
        /// The profile decoding reports (libavcodec's number): AAC-LC for AAC; `nil` for FLAC
        /// (none).
        var profile: Int? = CodecProfile.aacLow
        /// The FLAC `STREAMINFO` decoding reads (the `flac` demuxer leaves sample rate, channels
        /// and bit depth to the decoder); `nil` for AAC, whose header values stand.
        var streamInfo: FLACStreamInfo?
    }

    /// The picture facts of `stream` from its header's configuration record; `nil` for a codec
    /// or a record this does not read.
    static func picture(_ stream: AVStreamInfo, _ header: AVStreamHeader) -> Picture? {
        guard !header.configuration.isEmpty else { return nil }
        switch stream.codec {
        case .h264: return h264(avcC: header.configuration, containerFullRange: header.tagsFullRange)
        case .hevc: return hevc(hvcC: header.configuration)
        default: return nil
        }
    }

    /// The sound facts of `stream` from its header's `AudioSpecificConfig` (AAC-LC as described
    /// above) or FLAC `STREAMINFO` (``FLACStreamInfo``); `nil` for anything else.
    static func sound(_ stream: AVStreamInfo, _ header: AVStreamHeader) -> Sound? {
        if stream.codec == .flac {
            guard let info = FLACStreamInfo(header.configuration) else { return nil }
            return Sound(channelMask: info.channelMask(headerMask: stream.channelMask), profile: nil, streamInfo: info)
        }
        guard stream.codec == .aac, header.configuration.count >= 2,
              let channels = aacLowComplexityChannels(header.configuration, sampleRate: stream.sampleRate),
              channels == stream.channels else { return nil }
        return Sound(channelMask: channels == 1 ? 0x4 : 0x3)
    }

    /// From an `AVCDecoderConfigurationRecord` (ISO/IEC 14496-15 § 5.3.3.1): its first SPS.
    static func h264(avcC record: [UInt8], containerFullRange: Bool) -> Picture? {
        guard record.count >= 8, record[0] == 1, record[5] & 0x1F >= 1 else { return nil }
        let length = Int(record[6]) << 8 | Int(record[7])
        guard length > 0, 8 + length <= record.count,
              let sps = H264SequenceParameters(nal: record[8..<(8 + length)]) else { return nil }
        guard [1, 2].contains(sps.chromaFormat), [8, 10].contains(sps.bitDepth) else { return nil }
        let subsampling = sps.chromaFormat == 1 ? "420" : "422"
        let pixelFormat: String
        if sps.bitDepth == 8 {
            pixelFormat = (sps.fullRange ?? containerFullRange) ? "yuvj\(subsampling)p" : "yuv\(subsampling)p"
        } else {
            pixelFormat = "yuv\(subsampling)p10le"
        }
        var profile = sps.profileIDC
        let intraProfiles = [CodecProfile.h264High10, CodecProfile.h264High422, CodecProfile.h264High444Predictive]
        if profile == CodecProfile.h264Baseline, sps.constraintFlags & 0b10 != 0 { profile |= 0x200 }
        if intraProfiles.contains(profile), sps.constraintFlags & 0b1000 != 0 { profile |= 0x800 }
        return Picture(pixelFormat: pixelFormat, bitDepth: sps.bitDepth, profile: profile,
                       level: sps.levelIDC > 0 ? sps.levelIDC : nil, chroma: sps.chromaFormat == 1 ? "4:2:0" : "4:2:2",
                       lengthSize: Int(record[4] & 0x03) + 1)
    }

    /// From an `HEVCDecoderConfigurationRecord` (ISO/IEC 14496-15 § 8.3.3.1.2).
    static func hevc(hvcC record: [UInt8]) -> Picture? {
        guard record.count >= 23, record[0] == 1 else { return nil }
        var profile = Int(record[1] & 0x1F)
        if profile == 0 {
            let compatibility = UInt32(record[2]) << 24 | UInt32(record[3]) << 16 | UInt32(record[4]) << 8 | UInt32(record[5])
            guard let first = (1..<32).first(where: { compatibility & (UInt32(1) << (31 - UInt32($0))) != 0 }) else { return nil }
            profile = first
        }
        let level = Int(record[12])
        let chromaFormat = Int(record[16] & 0x03)
        let bitDepth = 8 + Int(record[17] & 0x07)
        guard [1, 2].contains(chromaFormat), [8, 10, 12].contains(bitDepth) else { return nil }
        let subsampling = chromaFormat == 1 ? "420" : "422"
        return Picture(pixelFormat: bitDepth == 8 ? "yuv\(subsampling)p" : "yuv\(subsampling)p\(bitDepth)le", bitDepth: bitDepth,
                       profile: profile, level: level > 0 ? level : nil, chroma: chromaFormat == 1 ? "4:2:0" : "4:2:2",
                       lengthSize: Int(record[21] & 0x03) + 1)
    }

    /// Whether a sample's length-prefixed NAL units tile it exactly, each non-empty with its
    /// forbidden bit clear: what the decoder first checks (an "Invalid NAL unit size" leaves the
    /// decoding probe without a pixel format, so the header-only one must not claim one either).
    static func splitsIntoNALUnits(_ sample: [UInt8], lengthSize: Int) -> Bool {
        guard (1...4).contains(lengthSize), !sample.isEmpty else { return false }
        var offset = 0
        while offset < sample.count {
            guard offset + lengthSize < sample.count else { return false }
            let length = sample[offset..<(offset + lengthSize)].reduce(0) { $0 << 8 | Int($1) }
            offset += lengthSize
            guard length > 0, offset + length <= sample.count, sample[offset] & 0x80 == 0 else { return false }
            offset += length
        }
        return true
    }

    /// The channel count of an AAC-LC `AudioSpecificConfig` (ISO/IEC 14496-3 § 1.6.2.1) at
    /// `sampleRate` (≥ 32 kHz) with channel configuration 1 or 2, 1024-sample frames, and either
    /// nothing after it or the backward-compatible extension saying no SBR (sync `0x2B7`, object
    /// type 5, `sbrPresentFlag` 0, as FFmpeg's encoder writes); `nil` for anything else.
    static func aacLowComplexityChannels(_ config: [UInt8], sampleRate: Int) -> Int? {
        guard config.count == 2 || (config.count >= 4 && config[2] == 0x56 && config[3] == 0xE5 && config.count >= 5 && config[4] & 0x80 == 0)
        else { return nil }
        let objectType = Int(config[0] >> 3)
        let rateIndex = Int(config[0] & 0x07) << 1 | Int(config[1] >> 7)
        let channelConfig = Int(config[1] >> 3) & 0x0F
        let rates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000]
        guard objectType == 2, rateIndex < rates.count, rates[rateIndex] == sampleRate, [1, 2].contains(channelConfig),
              config[1] & 0x07 == 0 else { return nil }
        return channelConfig
    }
}
