/// Tells a photograph from a graphic, cheaply, so a PNG that must be re-encoded anyway can become
/// a JPEG when it is a photograph whose PNG would be too big (a 17 MP photo: 0.9 MB of JPEG at
/// quality 80 against 13.6 MB of PNG), and stay a PNG when it is a graphic (a screenshot, a logo,
/// line art: JPEG rings around its sharp edges) or small enough as it is.
///
/// Photograph or graphic: distinct colours among ``samples`` pixels read on an even grid (nearest
/// neighbour, so sampling adds no colour). Sensor noise and gradients make most samples of a
/// photograph a new colour (the corpus and TestMedia photos: 34–94 % of them); a graphic repeats
/// a few flat colours and their anti-aliased edges (their PNGs, palettes, line art, logos: 0–13 %).
/// At least ``photographicShare`` distinct is a photograph. Greyscale pictures (at most 256
/// values: the share says nothing) and pictures with transparency are never judged photographs.
/// Costs one pass over 16 K pixels already in memory (well under a millisecond).
///
/// Too big: ``pngBytes(info:width:height:)``, the input PNG's own bytes scaled to the output's
/// pixels and to 8 bits, estimates the PNG re-encode without making it.
enum PhotoEstimate {
    /// Pixels sampled. Default 16,384 (a 128 × 128 grid).
    static let samples = 16_384
    /// Share of the samples that must be distinct colours. Default 0.25.
    static let photographicShare = 0.25
    /// Fewest samples worth judging (a tiny picture is cheap as PNG anyway).
    static let minimumSamples = 1_024

    /// The verdict with its evidence, for the notes.
    struct Verdict: Sendable {
        let photographic: Bool
        let distinct: Int
        let sampled: Int

        var evidence: String { "\(distinct) distinct colours in \(sampled) sampled pixels" }
    }

    /// The bytes a truecolour PNG of the input at `width`×`height` and 8 bits should take: the
    /// input's bytes times the share of its pixels kept, halved for a 16-bit input. (Photographs
    /// compress alike at every size: the 17 MP test photo is 13.6 MB as PNG, 3.1 MB at 2048 px.)
    static func pngBytes(info: MediaInfo, width: Int, height: Int) -> Double {
        let inputPixels = Double(max(1, info.width ?? width)) * Double(max(1, info.height ?? height))
        let depth = Double(max(8, info.bitDepth ?? 8))
        return Double(info.bytes) * min(1, Double(width) * Double(height) / inputPixels) * 8 / depth
    }

    /// The verdict for pixels in memory, or `nil` when the picture is not judged (greyscale,
    /// transparency, too small, not 8-bit).
    static func judge(_ image: borrowing VipsImage) -> Verdict? {
        guard !image.isGreyscale, !image.hasAlpha,
              let (distinct, sampled) = try? image.distinctColours(samples: samples), sampled >= minimumSamples else { return nil }
        return Verdict(photographic: Double(distinct) >= Double(sampled) * photographicShare, distinct: distinct, sampled: sampled)
    }
}
