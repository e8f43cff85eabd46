/// Encodes a still within the byte budget, at the highest quality that fits.
///
/// - JPEG (and HEIC, kept for HEIC input where the profile allows it): ``QualitySearch`` between
///   the quality floor (``LossyRange/floor``, the option's; a floor above the ceiling is
///   the ceiling) and ``jpegCeiling`` / ``heicCeiling``. When even the floor is over budget, the picture is shrunk by the area the
///   byte ratio calls for (bytes grow about as area^``areaExponent``; later rounds use the exponent
///   measured) and searched again, at most ``maximumShrinks`` times.
/// - PNG: truecolour first; over budget, a 256-colour palette PNG (libimagequant) when it keeps
///   the picture (PSNR ≥ ``palettePSNR`` dB against the truecolour pixels) or when transparency
///   must be kept; otherwise, without meaningful alpha, JPEG as above; with alpha, the palette
///   PNG is shrunk until it fits.
///
/// Never returns more bytes than the budget: ``PrepareError/cannotFit(reason:)`` says why.
/// Every encode works on the decoded, downscaled pixels held in memory.
struct ImageStillFitStep: ImageStep {
    let name = "fit to budget"

    /// JPEG quality used when the budget allows any: imgproxy's and sharp's default.
    static let jpegCeiling = 80
    /// HEIC quality used when the budget allows any: libheif 54 is x265 CRF 23, about the bytes of
    /// JPEG quality 80 for a cleaner picture (the corpus iPhone photo at 2048 px: 205 KB at 50,
    /// 329 KB at 56, 435 KB at 60 against 249 KB for JPEG 80), and twice as fast to encode as 60.
    static let heicCeiling = 54
    /// How size follows quality before it is measured (``QualitySearch``): libjpeg about 3 % a step
    /// at 80, less lower down; libheif's x265 about 6 % a step (≈ 2× per 6 CRF), in steps of 2
    /// (its CRF is (100 − quality) / 2).
    static let jpegPriors = (slope: 0.03, curvature: 0.0003, step: 1)
    static let heicPriors = (slope: 0.06, curvature: 0.0, step: 2)
    /// A palette PNG must stay within this PSNR of the truecolour pixels to replace them.
    static let palettePSNR = 35.0
    /// Bytes grow about as (pixel count)^this when a picture is resized (0.76–1.03 measured on the
    /// corpus at the floor quality; later rounds use the exponent measured between rounds).
    static let areaExponent = 0.95
    /// Shrinking rounds allowed after the floor quality fails.
    static let maximumShrinks = 4
    /// No picture is shrunk below this long edge.
    static let minimumLongEdge = 16

    func run(_ work: inout ImageWork) throws(PrepareError) {
        guard let format = work.format, format != .gif, let image = work.image.take() else { return }
        switch format {
        case .png: try fitPNG(image, work: &work)
        case .jpeg, .heic: try fitLossy(image, format: format, work: &work)
        case .gif: return
        }
    }

    // MARK: PNG

    private func fitPNG(_ source: consuming VipsImage, work: inout ImageWork) throws(PrepareError) {
        let budget = work.plan.budget
        var image = source
        if !work.inMemory { image = try ImageFailure.vips("decode") { () throws(VipsError) in try image.copyToMemory() } }
        let truecolour: [UInt8]
        do { truecolour = try image.pngData(.truecolour, strip: work.strip) } catch { throw ImageFailure.from(error, step: "encoding PNG") }
        work.attempts += 1
        if Int64(truecolour.count) <= budget {
            finish(EncodedImage(bytes: truecolour, format: .png, width: image.width, height: image.height), searched: false,
                   budget: budget, work: &work)
            return
        }
        try work.job.deadline.check(name)
        let (palette, psnr) = try paletteEncode(image, work: &work)
        let fits = Int64(palette.count) <= budget
        if fits, psnr >= Self.palettePSNR || work.meaningfulAlpha {
            work.notes.append("truecolour PNG \(truecolour.count) bytes over budget: 256-colour palette, PSNR \(Self.decibels(psnr))")
            finish(EncodedImage(bytes: palette, format: .png, width: image.width, height: image.height, colours: 256),
                   searched: true, budget: budget, work: &work)
            return
        }
        if !work.meaningfulAlpha, ImageFormat.jpeg.isAllowed(by: work.job.profile) {
            work.notes.append(fits
                ? "a palette PNG loses too much (PSNR \(Self.decibels(psnr)) < \(Self.decibels(Self.palettePSNR))): JPEG"
                : "PNG does not fit \(budget) bytes even with a palette (\(palette.count) bytes): JPEG")
            work.format = .jpeg
            work.did(.converted)
            try fitLossy(image, format: .jpeg, work: &work)
            return
        }
        try shrinkPalette(image, firstSize: Int64(palette.count), work: &work)
    }

    /// Palette PNGs at smaller sizes until one fits (transparency has to stay, so JPEG is no way out).
    private func shrinkPalette(_ image: consuming VipsImage, firstSize: Int64, work: inout ImageWork) throws(PrepareError) {
        let budget = work.plan.budget
        let target = Double(budget) * QualitySearch.windowShare.squareRoot()
        var bytes = firstSize
        var scale = 1.0
        for _ in 0..<Self.maximumShrinks {
            try work.job.deadline.check(name)
            scale *= pow(target / Double(max(1, bytes)), 1 / Self.areaExponent).squareRoot() * 0.99
            // Clamped: the guard below refuses what is too small.
            let width = (Double(image.width) * scale).clampedInteger(in: 0...image.width, rounding: .towardZero)
            let height = (Double(image.height) * scale).clampedInteger(in: 0...image.height, rounding: .towardZero)
            guard max(width, height) >= Self.minimumLongEdge, width >= 1, height >= 1 else { break }
            let smaller = try ImageFailure.vips(name) { () throws(VipsError) in
                try image.fitted(width: width, height: height).copyToMemory()
            }
            let strip = work.strip
            let encoded = try ImageFailure.vips("encoding PNG") { () throws(VipsError) in
                try smaller.pngData(.palette(colours: 256, dither: 1), strip: strip)
            }
            work.attempts += 1
            bytes = Int64(encoded.count)
            if bytes <= budget {
                work.did(.downscaled)
                work.notes.append("transparent PNG over budget: 256-colour palette at \(smaller.width)×\(smaller.height)")
                finish(EncodedImage(bytes: encoded, format: .png, width: smaller.width, height: smaller.height, colours: 256),
                       searched: true, budget: budget, work: &work)
                return
            }
        }
        throw .cannotFit(reason: "a transparent PNG that keeps its alpha does not fit \(budget) bytes even as a palette PNG shrunk to \((Double(image.width) * scale).clampedInteger(in: 0...image.width, rounding: .towardZero)) px wide (\(bytes) bytes)")
    }

    /// The 256-colour palette PNG and its PSNR against the pixels it stands for.
    private func paletteEncode(_ image: borrowing VipsImage, work: inout ImageWork) throws(PrepareError) -> ([UInt8], Double) {
        do {
            let bytes = try image.pngData(.palette(colours: 256, dither: 1), strip: work.strip)
            work.attempts += 1
            var decoded = try VipsImage.decoding(bytes)
            if image.isGreyscale, !decoded.isGreyscale { decoded = try decoded.converted(to: .greyscale) }
            if !image.hasAlpha, decoded.hasAlpha { decoded = try decoded.withoutAlpha() }
            guard decoded.bands == image.bands else { return (bytes, 0) }
            return (bytes, try decoded.psnr(against: image))
        } catch {
            throw ImageFailure.from(error, step: "encoding PNG")
        }
    }

    // MARK: Result

    func finish(_ encoded: EncodedImage, searched: Bool, budget: Int64, work: inout ImageWork) {
        let sameFormat = encoded.format.container == work.job.info.container
        if sameFormat, searched || work.job.has(.fileTooLarge) || work.job.has(.unsupportedCodecProfile) { work.did(.reencoded) }
        if let reason = Playability.picture(work.job.info) { work.notes.append("re-encoded as an 8-bit baseline JPEG: \(reason)") }
        var detail = "\(encoded.format.rawValue.uppercased()) \(encoded.width)×\(encoded.height)"
        if let quality = encoded.quality { detail += " at quality \(quality)" }
        let share = (Double(encoded.size) / Double(budget) * 1000).rounded() / 10
        work.notes.append("\(detail): \(encoded.size) bytes (\(share) % of the \(budget)-byte budget) after \(work.attempts) encode(s)")
        if encoded.format == .png, let recommended = work.plan.recommended, encoded.size > recommended {
            work.notes.append("over the recommended \(recommended) bytes: " + (work.meaningfulAlpha
                ? "PNG keeps the transparency, which JPEG cannot" : "a graphic or greyscale picture stays lossless PNG (JPEG would blur its edges)"))
        }
        work.encoded = encoded
    }

    static func decibels(_ value: Double) -> String {
        value.isInfinite ? "∞ dB" : "\((value * 10).rounded() / 10) dB"
    }
}
