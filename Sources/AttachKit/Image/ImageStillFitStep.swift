#if canImport(Glibc)
import Glibc
#endif

/// Encodes a still within the byte budget, at the highest quality that fits.
///
/// - JPEG (and HEIC, kept for HEIC input where the profile allows it): ``QualitySearch`` between
///   the quality floor (``PrepareOptions/qualityFloor``, default 50; a floor above the ceiling is
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

    // MARK: JPEG and HEIC

    private func fitLossy(_ source: consuming VipsImage, format: ImageFormat, work: inout ImageWork) throws(PrepareError) {
        var original = source
        // A picture that streams (``ImageMemoryStep/streams(_:)``) serves one encode straight from
        // the decoder; a second encode loads it again, into memory.
        var lazy = !work.inMemory
        if format == .jpeg, original.hasAlpha {
            do { original = try original.flattened() } catch { throw ImageFailure.from(error, step: name) }
        }
        let ceiling = format == .jpeg ? Self.jpegCeiling : Self.heicCeiling
        let floor = min(ceiling, max(1, work.job.options.qualityFloor))
        let budget = work.plan.budget
        let priors = format == .jpeg ? Self.jpegPriors : Self.heicPriors
        var search = QualitySearch(floor: floor, ceiling: ceiling, budget: budget, priorSlope: priors.slope,
                                   priorCurvature: priors.curvature, step: priors.step)
        var current: VipsImage?
        var size = (width: original.width, height: original.height)
        var best: EncodedImage?
        var floorSizes: [(area: Double, bytes: Int64)] = []
        var searched = false
        var trail: [String] = []
        while true {
            try work.job.deadline.check(name)
            switch search.next() {
            case .encode(let quality):
                if lazy, !search.sizes.isEmpty {
                    original = try materialize(&work)
                    lazy = false
                }
                let bytes: [UInt8]
                do {
                    if let image = current.take() {
                        bytes = try encode(image, format: format, quality: quality, strip: work.strip)
                        current = consume image
                    } else {
                        bytes = try encode(original, format: format, quality: quality, strip: work.strip)
                    }
                } catch {
                    // Streaming, decoding and encoding failed together: decode alone to tell which.
                    if lazy { _ = try materialize(&work) }
                    throw ImageFailure.from(error, step: "encoding \(format.rawValue.uppercased())")
                }
                work.attempts += 1
                search.record(quality: quality, bytes: Int64(bytes.count))
                trail.append("q\(quality) \(size.width)×\(size.height) → \(bytes.count)")
                if quality < ceiling { searched = true }
                if Int64(bytes.count) <= budget, quality > (best?.quality ?? 0) {
                    best = EncodedImage(bytes: bytes, format: format, width: size.width, height: size.height, quality: quality)
                }
            case .done(let quality):
                guard let found = best, found.quality == quality else {
                    throw .processing(step: name, reason: "the quality search lost its answer (quality \(quality))")
                }
                if trail.count > 1 { work.notes.append("tried " + trail.joined(separator: ", ")) }
                finish(found, searched: searched, budget: budget, work: &work)
                return
            case .belowFloor(let predicted):
                if lazy {
                    original = try materialize(&work)
                    lazy = false
                }
                // A prediction that is no number counts as far over the budget.
                let predictedBytes = predicted.map { $0.isNaN ? .infinity : $0 } ?? .infinity
                let atFloor = search.sizes[floor] ?? predictedBytes.clampedInteger(in: 1...Int64.max / 2)
                floorSizes.append((Double(size.width * size.height), atFloor))
                guard floorSizes.count <= Self.maximumShrinks else {
                    throw .cannotFit(reason: "at \(size.width)×\(size.height) px and quality \(floor) the \(format.rawValue.uppercased()) is still \(atFloor) bytes, over the \(budget)-byte budget")
                }
                let exponent = Self.exponent(from: floorSizes) ?? Self.areaExponent
                let areaShare = pow(search.target / Double(atFloor), 1 / exponent)
                let linear = areaShare.squareRoot() * 0.99
                // Clamped: the model's share may be anything (NaN from a budget of 0); the guard
                // below refuses what is too small.
                let next = (width: (Double(size.width) * linear).clampedInteger(in: 0...size.width, rounding: .towardZero),
                            height: (Double(size.height) * linear).clampedInteger(in: 0...size.height, rounding: .towardZero))
                guard max(next.width, next.height) >= Self.minimumLongEdge, next.width >= 1, next.height >= 1 else {
                    throw .cannotFit(reason: "even at quality \(floor) the picture would have to shrink below \(Self.minimumLongEdge) px to fit \(budget) bytes (\(atFloor) bytes at \(size.width)×\(size.height))")
                }
                do {
                    current = try original.fitted(width: next.width, height: next.height).copyToMemory()
                } catch {
                    throw ImageFailure.from(error, step: name)
                }
                size = (current?.width ?? next.width, current?.height ?? next.height)
                work.did(.downscaled)
                let measured = search.sizes[floor] != nil ? "" : " predicted"
                work.notes.append("quality \(floor) does not fit \(budget) bytes (\(atFloor) bytes\(measured)): shrunk to \(size.width)×\(size.height)")
                searched = true
                search = QualitySearch(floor: floor, ceiling: ceiling, budget: budget, priorSlope: priors.slope,
                                       priorCurvature: priors.curvature, step: priors.step, firstGuess: floor)
            }
        }
    }

    /// Loads the pixels again (``ImagePipeline/reload(_:)``), held in memory this time (decode errors
    /// surface here).
    private func materialize(_ work: inout ImageWork) throws(PrepareError) -> VipsImage {
        work.holdPixels = true
        try ImagePipeline.reload(&work)
        guard var image = work.image.take() else { throw .processing(step: name, reason: "no pixels after loading again") }
        if work.format == .jpeg, image.hasAlpha {
            image = try ImageFailure.vips(name) { () throws(VipsError) in try image.flattened().copyToMemory() }
        }
        return image
    }

    private func encode(_ image: borrowing VipsImage, format: ImageFormat, quality: Int, strip: Bool) throws(VipsError) -> [UInt8] {
        switch format {
        case .heic: return try image.heicData(quality: quality, strip: strip)
        default: return try image.jpegData(quality: quality, strip: strip, progressive: false)
        }
    }

    /// The area exponent measured between the last two shrinking rounds, when plausible.
    static func exponent(from floorSizes: [(area: Double, bytes: Int64)]) -> Double? {
        guard floorSizes.count >= 2 else { return nil }
        let a = floorSizes[floorSizes.count - 2], b = floorSizes[floorSizes.count - 1]
        guard a.area != b.area, a.bytes > 0, b.bytes > 0 else { return nil }
        let measured = log(Double(b.bytes) / Double(a.bytes)) / log(b.area / a.area)
        return (0.4...1.3).contains(measured) ? measured : nil
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

    private func finish(_ encoded: EncodedImage, searched: Bool, budget: Int64, work: inout ImageWork) {
        let sameFormat = encoded.format.container == work.job.info.container
        if sameFormat, searched || work.job.has(.fileTooLarge) { work.did(.reencoded) }
        var detail = "\(encoded.format.rawValue.uppercased()) \(encoded.width)×\(encoded.height)"
        if let quality = encoded.quality { detail += " at quality \(quality)" }
        let share = (Double(encoded.size) / Double(budget) * 1000).rounded() / 10
        work.notes.append("\(detail): \(encoded.size) bytes (\(share) % of the \(budget)-byte budget) after \(work.attempts) encode(s)")
        work.encoded = encoded
    }

    static func decibels(_ value: Double) -> String {
        value.isInfinite ? "∞ dB" : "\((value * 10).rounded() / 10) dB"
    }
}
