/// Raw AAC (ADTS) read from its frame headers (issue 33): the frames are walked header by header
/// (``ADTSStructure/walk(_:from:maximumFrames:)``: 7 bytes of each, and the first elements of
/// its payload, ``ADTSPayload``), which gives the exact duration (1024 samples per raw data block
/// at the core rate for each frame holding a channel element, less the 1024 priming
/// samples the decoder drops at each frame stamped by libfaac: what a full decode outputs) where libavformat only estimates one
/// from the bitrate of the frames its stream-info step parses (a 5.04 s file read as 5.23 s),
/// and the bitrates from it. Frames none of which holds sound are `corrupt` (``silence(_:)``).
///
/// The first header settles the rest, without a decode, for AAC-LC at 32 kHz or more with
/// channel configuration 1...6 (the layouts FFmpeg 5.1's decoder opens for them: mono, stereo,
/// 3.0, 4.0, 5.0, 5.1). ADTS has no way to signal SBR or PS: the decoder finds them in the first
/// frame's payload and then reports HE-AAC at twice the header's rate (and stereo from mono for
/// PS). Below 32 kHz, where HE-AAC's core rates lie, and for Main, SSR, LTP, channel
/// configuration 0 (a program config element in the payload) or 7, the stream is decoded as
/// before for those facts, and only its duration and bitrates come from the count (the same
/// number of frames at the decoded rate: 2048 samples each when it doubled).
///
/// Only a clean walk is trusted: frames to the end of the file, its trailing tags, zero padding
/// or junk FFmpeg steps over, before the first frame (no frame sync in it, which FFmpeg's reader
/// would take for the first frame) or after the last (every frame is known before it, so a large
/// junk tail does not stretch the duration), at most ``maximumFrames``. A frame of more than one
/// raw data block is `unsupported` (``severalBlocks(_:)``). Anything else (junk between frames,
/// a last frame cut short, a frame running past the end, a file that is ADTS only at the start, a
/// walk past the cap) leaves the file to libavformat as before (its estimate, flagged as one),
/// and the structure check gives its verdict on the damage as before.
enum ADTSHeaderProbe {
    /// Frames walked at most: 2^20 (6.6 h at 44.1 kHz, 12 h of 24 kHz HE-AAC; a few hundred MB of
    /// file). Past it the duration is libavformat's estimate, as before.
    static let maximumFrames: Int64 = 1 << 20

    /// The frames from `start` when their walk is clean (see the type) within `maximumFrames`
    /// (default ``maximumFrames``); `nil` otherwise.
    static func count(_ reader: borrowing FileReader, from start: Int64, maximumFrames: Int64 = maximumFrames) -> ADTSStructure.Walk? {
        let walked = ADTSStructure.walk(reader, from: start, maximumFrames: maximumFrames)
        guard walked.problem == nil, !walked.capped, walked.frames > 0, walked.first != nil else { return nil }
        return walked
    }

    /// Fills `info` (an ADTS file of `walked` frames) from the first frame header alone when it
    /// settles what decoding would report (see the type), with the duration and bitrates of
    /// ``correct(_:into:)``; returns `false`, having filled nothing, when it does not.
    static func describe(_ walked: ADTSStructure.Walk, into info: inout MediaInfo) -> Bool {
        guard walked.samples > 0, let first = walked.first, first.profile == CodecProfile.aacLow, first.sampleRate >= 32_000,
              let mask = channelMasks[first.channelConfiguration] else { return false }
        info.kind = .audio
        info.codec = .aac
        info.streams = 1
        info.videoStreams = 0
        info.audioStreams = 1
        info.attachedPictures = 0
        info.audioProfile = first.profile
        info.sampleRate = first.sampleRate
        info.channels = mask.nonzeroBitCount
        info.channelLayout = ChannelLayout.name(mask: mask, channels: mask.nonzeroBitCount)
        correct(walked, into: &info)
        return true
    }

    /// Sets `info`'s duration from the samples the frames decode to (``ADTSStructure/Walk/samples``)
    /// at the rate `info` reports (decoded: twice the header's with SBR), less the decoder's
    /// priming drop, the overall bitrate over the file's bytes (as libavformat's
    /// `update_stream_timings` does) and the sound's over the frames' bytes. Leaves `info` as it
    /// is when it reports no rate, or nothing would be output.
    static func correct(_ walked: ADTSStructure.Walk, into info: inout MediaInfo) {
        guard let first = walked.first, let reported = info.sampleRate, reported > 0 else { return }
        let rate = Int64(reported)
        let samples = (rate == Int64(first.sampleRate) * 2 ? walked.samples * 2 : walked.samples) - walked.primingSamples
        guard samples > 0 else { return }
        let microseconds = (Double(samples) * 1_000_000 / Double(rate)).rounded().clampedInteger(in: 0...Int.max, rounding: .towardZero)
        guard microseconds > 0 else { return }
        info.duration = Double(microseconds) / 1_000_000
        info.durationIsEstimate = false
        info.bitRate = (Double(info.bytes) * 8 * 1_000_000 / Double(microseconds)).clampedInteger(in: 0...Int.max, rounding: .towardZero)
        info.audioBitRate = (Double(walked.frameBytes) * 8 * 1_000_000 / Double(microseconds)).clampedInteger(in: 0...Int.max, rounding: .towardZero)
    }

    /// Why a file whose clean walk found `walked` cannot be copied, or `nil`: a frame of more than
    /// one raw data block. An M4A sample holds one, and without CRC a frame does not say where
    /// its blocks begin (only decoding its payload finds them), so the copy would be a sample
    /// declared 1024 samples holding 2048 or more (its decode errors on every one).
    static func severalBlocks(_ walked: ADTSStructure.Walk) -> String? {
        guard walked.extraRawDataBlocks > 0 else { return nil }
        return "ADTS frames of up to \(walked.extraRawDataBlocks + 1) raw data blocks: an M4A sample holds one, and a frame does not say where its blocks begin, so it cannot be copied"
    }

    /// Why a file whose clean walk found `walked` holds no sound (every frame a bare header, or
    /// only fill, data or END elements), or `nil` when some frame holds a channel element.
    static func silence(_ walked: ADTSStructure.Walk) -> String? {
        guard walked.samples == 0 else { return nil }
        return "none of its \(walked.frames) ADTS frame(s) holds a channel element (bare headers, or only fill and END elements): nothing decodes to sound"
    }

    /// The channel mask FFmpeg 5.1's AAC decoder reports for channel configurations 1...6
    /// (`aac_channel_layout`: mono, stereo, 3.0, 4.0, 5.0 and 5.1 with back speakers).
    private static let channelMasks: [Int: UInt64] = [1: 0x4, 2: 0x3, 3: 0x7, 4: 0x107, 5: 0x37, 6: 0x3F]
}
