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

    /// The largest GIF logical screen (either side) libvips' GIF loader composes frames on: past
    /// it libnsgif takes the screen for a mistake and composes only the first frame's extent from
    /// the top left (measured: a 2048² screen with a 100×100 frame loads as 2048², a 2049² one as
    /// 100×100, a 3000² one with the frame at 500,500 as 600×600). ImageIO, browsers and FFmpeg
    /// decode the whole screen.
    static let gifScreenEdge = 2048
}
