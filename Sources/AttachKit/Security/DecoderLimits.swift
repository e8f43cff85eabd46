/// Limits the decoders themselves impose: past them a valid file cannot be read at all, so it is
/// refused before decoding as over a cap (`over-cap`, like ``SafetyLimits``' own caps), never
/// reported as corrupt after a failed load.
enum DecoderLimits {
    /// Frames libvips' GIF loader reads (libnsgif, in libvips 8.14): a GIF of 4,097 frames loads,
    /// one of 4,098 fails with "Excessive number of frames" (measured with
    /// `vips copy 'in.gif[n=-1]' out.png` on 1×1-pixel GIFs of 4,096 to 4,098 frames).
    static let gifFrames = 4_097

    /// The cap name a violation of ``gifFrames`` reports.
    static let gifFramesCap = "gifDecoderFrames"
}
