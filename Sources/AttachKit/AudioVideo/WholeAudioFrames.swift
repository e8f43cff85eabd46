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
}
