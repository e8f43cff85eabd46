/// A FLAC `STREAMINFO` block (the 34 bytes libavformat's `flac` demuxer, and `mov` from a
/// `dfLa` box, keep as the stream's extradata), read as FFmpeg 5.1's FLAC decoder reads it when it
/// opens (`ff_flac_parse_streaminfo`): sample rate, channels, bits per sample and the channel
/// layout it then reports, with no frame decoded; and the total samples, the stream's duration.
struct FLACStreamInfo: Equatable {
    let sampleRate: Int
    let channels: Int
    let bitsPerSample: Int
    /// Samples per channel the whole stream holds; 0 when the encoder did not know (a stream
    /// written as it was captured).
    let totalSamples: Int64

    /// `nil` when `block` is not 34 bytes, or holds what the decoder refuses or cannot settle
    /// without a frame: a maximum block size under 16, a sample rate of 0 (the frames then carry
    /// it), fewer than 4 or more than 24 bits per sample (FFmpeg 5.1 decodes no 32-bit FLAC).
    init?(_ block: [UInt8]) {
        guard block.count == 34, block.be16(2) >= 16 else { return nil }
        let sampleRate = Int(block.be24(10) >> 4)
        let bitsPerSample = Int((block[12] & 0x01) << 4 | block[13] >> 4) + 1
        guard sampleRate > 0, (4...24).contains(bitsPerSample) else { return nil }
        self.sampleRate = sampleRate
        channels = Int(block[12] >> 1 & 0x07) + 1
        self.bitsPerSample = bitsPerSample
        totalSamples = Int64(block[13] & 0x0F) << 32 | Int64(block.be32(14))
    }

    /// The channel mask the decoder reports: the container's own (`headerMask`, a
    /// `WAVEFORMATEXTENSIBLE_CHANNEL_MASK` tag) when it names as many channels, else FLAC's
    /// default order for the count (`ff_flac_set_channel_layout`: mono, stereo, 3.0, quad, 5.0,
    /// 5.1, 6.1, 7.1; the side pair before the back one).
    func channelMask(headerMask: UInt64?) -> UInt64 {
        if let headerMask, headerMask.nonzeroBitCount == channels { return headerMask }
        return [0x4, 0x3, 0x7, 0x33, 0x607, 0x60F, 0x70F, 0x63F][channels - 1]
    }

    /// ``totalSamples`` in microseconds as libavformat rounds a stream duration into its own
    /// time base (to nearest, halves up); `nil` when unknown.
    var durationMicroseconds: Int64? {
        guard totalSamples > 0 else { return nil }
        return (totalSamples * 1_000_000 + Int64(sampleRate / 2)) / Int64(sampleRate)
    }
}
