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
/// Before decoding (``judgeTop(path:width:height:fileBytes:)``): the top eighth of the rows,
/// sampled at the spacing the whole picture would be, decides for a photograph, so the picture can
/// stream from the PNG decoder into the JPEG encoder the way `vips copy` does (no 52 MB copy of a
/// 17 MP picture first); the strip costs an eighth of a decode. A strip that looks like a graphic,
/// or whose rows are far denser than the file's average row (a photo banner over a screenshot),
/// decides nothing: the whole picture is judged in memory as before.
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

    /// Share of the rows ``judgeTop(path:width:height:fileBytes:)`` decodes. Default 1/8.
    static let topShare = 0.125
    /// The file's compressed bytes per row, at least this share of the strip's (every 8th row,
    /// deflated at level 1), for the strip to stand for the whole picture. Default 0.5: photos
    /// measure 1.0–1.2 (TestMedia's, the 17.5 MP camera PNG), a screenshot under a photo banner 0.17.
    static let representativeDensity = 0.5

    /// The verdict with its evidence, for the notes.
    struct Verdict: Sendable {
        let photographic: Bool
        let distinct: Int
        let sampled: Int
        /// Where the samples came from, for the notes: "" for the whole picture.
        var part = ""

        var evidence: String { "\(distinct) distinct colours in \(sampled) sampled pixels\(part)" }
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

    /// The verdict from the top ``topShare`` of the rows of the file at `path`, whose header says
    /// it is `width`×`height`, sampled on the grid the whole picture would be: `nil` when the
    /// file's pixels are not 8-bit colour without alpha, or the strip holds fewer than
    /// ``minimumSamples`` grid points, or the file's bytes per row (`fileBytes` over `height`) are
    /// under ``representativeDensity`` of the strip's. Decodes only the strip (sequential read,
    /// stopped there).
    /// - Throws: ``VipsError`` when the file cannot be opened or its top rows not decoded (a
    ///   damaged file, with decoder warnings as errors).
    static func judgeTop(path: String, width: Int, height: Int, fileBytes: Int64) throws(VipsError) -> Verdict? {
        let image = try VipsImage.load(path: path, sequential: true, failOnWarnings: true)
        guard image.width == width, image.height == height, image.isEightBit, !image.isGreyscale, !image.hasAlpha else { return nil }
        let spacing = VipsImage.gridSpacing(width: width, height: height, samples: samples)
        let rows = min(height, Int((Double(height) * topShare).rounded(.up)))
        let strip = try image.cropped(left: 0, top: 0, width: width, height: rows).copyToMemory()
        let (distinct, sampled) = try strip.distinctColours(samples: samples, spacing: spacing)
        guard sampled >= minimumSamples else { return nil }
        // The strip stands for the picture only when the file's rows are about as dense as its
        // rows: a screenshot under a photo banner compresses to a fifth of the banner's bytes per row.
        guard let stripRowBytes = strip.compressedRowBytes(every: 8),
              Double(fileBytes) / Double(height) >= representativeDensity * stripRowBytes else { return nil }
        return Verdict(photographic: Double(distinct) >= Double(sampled) * photographicShare, distinct: distinct, sampled: sampled,
                       part: " of the top \(rows) rows")
    }
}
