extension AVPacketBuffer {
    /// Whether the packet is exactly one whole MPEG audio frame. FFmpeg's MPEG audio parser hands
    /// junk between or after frames on as packets of their own (and a last frame cut off by the
    /// end of the file): a stream copy leaves them out and the deep check does not decode them,
    /// as players skip them (the structure check reports them: ``SkippedBytes``).
    var isWholeMPEGAudioFrame: Bool { MPEGAudioFrame(leadingBytes(4), at: 0)?.length == byteCount }

    /// Whether a stream of `codec` read by `demuxer` comes through FFmpeg's MPEG audio parser,
    /// whose packets are checked with ``isWholeMPEGAudioFrame``.
    static func parsesMPEGAudio(codec: Codec, demuxer: String) -> Bool {
        demuxer == "mp3" && [Codec.mp1, .mp2, .mp3].contains(codec)
    }

    /// Whether the packet is one ADTS frame that decodes to nothing: only fill, data stream or
    /// END elements before any channel element (``ADTSPayload``). FFmpeg's ADTS reader hands each
    /// frame on as a packet; a copy into an M4A leaves these out (each would lengthen it by 1024
    /// samples of no sound, past the duration the probe reports).
    var isSilentADTSFrame: Bool {
        let bytes = leadingBytes(9 + ADTSPayload.maximumBytes)
        guard let frame = ADTSFrame(bytes, at: 0), frame.length == byteCount, frame.rawDataBlocks == 0 else { return false }
        return !ADTSPayload.read(bytes, at: frame.headerLength, count: bytes.count - frame.headerLength).audio
    }
}
