// MARK: JPEG and HEIC

extension ImageStillFitStep {
    /// Fits a JPEG or HEIC: a ``QualitySearch`` over the format's range at the current size; when
    /// even the floor is over budget, the picture is shrunk (``shrink(_:search:predicted:range:trail:work:)``)
    /// and searched again from the floor.
    ///
    /// With a recommended size (``ImagePlan/recommended``) the search first aims under it, at the
    /// size the caps allow (never shrinking for it); when even the floor quality cannot reach it,
    /// the note says so and the search goes on against the budget, reusing the sizes measured.
    func fitLossy(_ source: consuming VipsImage, format: ImageFormat, work: inout ImageWork) throws(PrepareError) {
        let range = LossyRange(format: format, qualityFloor: work.job.options.qualityFloor, budget: work.plan.budget)
        var pixels = try LossyPixels(source, format: format, streaming: !work.inMemory, step: name)
        var trail = LossyTrail(limit: range.budget)
        var search = range.search()
        if let recommended = work.plan.recommended {
            let aim = LossyRange(format: format, qualityFloor: range.floor, budget: recommended)
            var aimed = aim.search()
            if let quality = try searchQuality(&aimed, range: aim, pixels: &pixels, trail: &trail, shrinking: false, work: &work) {
                if let higher = trail.fallback?.quality, higher > quality {
                    work.notes.append("quality \(quality), not \(higher), to stay under the recommended \(recommended) bytes")
                }
                try finishLossy(at: quality, trail: trail, budget: range.budget, work: &work)
                return
            }
            let atFloor = aimed.sizes[range.floor].map { "\($0) bytes" } ?? "predicted \(aimed.floorEstimate()?.clampedInteger(in: 0...Int64.max / 2) ?? 0) bytes"
            work.notes.append("the recommended \(recommended) bytes is out of reach at \(pixels.size.width)×\(pixels.size.height) even at quality \(range.floor) (\(atFloor)): fitted to the \(range.budget)-byte limit")
            trail.best = trail.fallback
            for (quality, bytes) in aimed.sizes { search.record(quality: quality, bytes: bytes) }
        }
        guard let quality = try searchQuality(&search, range: range, pixels: &pixels, trail: &trail, shrinking: true, work: &work) else {
            throw .processing(step: name, reason: "the quality search ended below the floor")
        }
        try finishLossy(at: quality, trail: trail, budget: range.budget, work: &work)
    }

    /// Runs `search` to its answer: the quality to keep, or `nil` when even the floor is over
    /// `range`'s budget and `shrinking` is off. With `shrinking`, the picture is shrunk and searched
    /// again from the floor instead.
    private func searchQuality(_ search: inout QualitySearch, range: LossyRange, pixels: inout LossyPixels, trail: inout LossyTrail,
                               shrinking: Bool, work: inout ImageWork) throws(PrepareError) -> Int? {
        while true {
            try work.job.deadline.check(name)
            switch search.next() {
            case .encode(let quality):
                if pixels.encodes > 0 { try materialize(&pixels, work: &work) }
                let bytes = try encode(&pixels, quality: quality, format: range.format, work: &work)
                search.record(quality: quality, bytes: Int64(bytes.count))
                trail.record(EncodedImage(bytes: bytes, format: range.format, width: pixels.size.width, height: pixels.size.height,
                                          quality: quality), range: range)
            case .done(let quality):
                return quality
            case .belowFloor(let predicted):
                guard shrinking else { return nil }
                try materialize(&pixels, work: &work)
                try shrink(&pixels, search: search, predicted: predicted, range: range, trail: &trail, work: &work)
                search = range.search(firstGuess: range.floor)
            }
        }
    }

    /// One encode of the current pixels at `quality`, counted in ``ImageWork/attempts``.
    private func encode(_ pixels: inout LossyPixels, quality: Int, format: ImageFormat,
                        work: inout ImageWork) throws(PrepareError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try pixels.encode(quality: quality, strip: work.strip)
        } catch {
            // Streaming, decoding and encoding failed together: decode alone to tell which.
            try materialize(&pixels, work: &work)
            throw ImageFailure.from(error, step: "encoding \(format.rawValue.uppercased())")
        }
        work.attempts += 1
        return bytes
    }

    /// The best encode the search settled on, with the trail of tries in the notes.
    private func finishLossy(at quality: Int, trail: LossyTrail, budget: Int64, work: inout ImageWork) throws(PrepareError) {
        guard let found = trail.best, found.quality == quality else {
            throw .processing(step: name, reason: "the quality search lost its answer (quality \(quality))")
        }
        if trail.tries.count > 1 { work.notes.append("tried " + trail.tries.joined(separator: ", ")) }
        finish(found, searched: trail.searched, budget: budget, work: &work)
    }

    /// The floor quality is over budget: shrinks the original pixels to ``shrunkSize(_:atFloor:target:floorSizes:range:)``.
    /// - Throws: ``PrepareError/cannotFit(reason:)`` after ``maximumShrinks`` rounds, or when the
    ///   picture would have to go below ``minimumLongEdge``.
    private func shrink(_ pixels: inout LossyPixels, search: QualitySearch, predicted: Double?, range: LossyRange,
                        trail: inout LossyTrail, work: inout ImageWork) throws(PrepareError) {
        // A prediction that is no number counts as far over the budget.
        let predictedBytes = predicted.map { $0.isNaN ? .infinity : $0 } ?? .infinity
        let atFloor = search.sizes[range.floor] ?? predictedBytes.clampedInteger(in: 1...Int64.max / 2)
        let size = pixels.size
        trail.floorSizes.append((Double(size.width * size.height), atFloor))
        guard trail.floorSizes.count <= Self.maximumShrinks else {
            throw .cannotFit(reason: "at \(size.width)×\(size.height) px and quality \(range.floor) the \(range.format.rawValue.uppercased()) is still \(atFloor) bytes, over the \(range.budget)-byte budget")
        }
        let next = try Self.shrunkSize(size, atFloor: atFloor, target: search.target, floorSizes: trail.floorSizes, range: range)
        do {
            try pixels.shrink(to: next)
        } catch {
            throw ImageFailure.from(error, step: name)
        }
        work.did(.downscaled)
        let measured = search.sizes[range.floor] != nil ? "" : " predicted"
        work.notes.append("quality \(range.floor) does not fit \(range.budget) bytes (\(atFloor) bytes\(measured)): shrunk to \(pixels.size.width)×\(pixels.size.height)")
        trail.searched = true
    }

    /// The size whose floor-quality encode should fit: the area the byte ratio calls for (bytes
    /// grow about as area^``areaExponent``, or the exponent measured between the last two rounds),
    /// 1 % under.
    /// - Throws: ``PrepareError/cannotFit(reason:)`` when that is below ``minimumLongEdge``.
    static func shrunkSize(_ size: (width: Int, height: Int), atFloor: Int64, target: Double,
                           floorSizes: [(area: Double, bytes: Int64)], range: LossyRange) throws(PrepareError) -> (width: Int, height: Int) {
        let exponent = exponent(from: floorSizes) ?? areaExponent
        let areaShare = pow(target / Double(atFloor), 1 / exponent)
        let linear = areaShare.squareRoot() * 0.99
        // Clamped: the model's share may be anything (NaN from a budget of 0); the guard below
        // refuses what is too small.
        let next = (width: (Double(size.width) * linear).clampedInteger(in: 0...size.width, rounding: .towardZero),
                    height: (Double(size.height) * linear).clampedInteger(in: 0...size.height, rounding: .towardZero))
        guard max(next.width, next.height) >= minimumLongEdge, next.width >= 1, next.height >= 1 else {
            throw .cannotFit(reason: "even at quality \(range.floor) the picture would have to shrink below \(minimumLongEdge) px to fit \(range.budget) bytes (\(atFloor) bytes at \(size.width)×\(size.height))")
        }
        return next
    }

    /// The area exponent measured between the last two shrinking rounds, when plausible.
    static func exponent(from floorSizes: [(area: Double, bytes: Int64)]) -> Double? {
        guard floorSizes.count >= 2 else { return nil }
        let a = floorSizes[floorSizes.count - 2], b = floorSizes[floorSizes.count - 1]
        guard a.area != b.area, a.bytes > 0, b.bytes > 0 else { return nil }
        let measured = log(Double(b.bytes) / Double(a.bytes)) / log(b.area / a.area)
        return (0.4...1.3).contains(measured) ? measured : nil
    }

    /// A picture that streams (``ImageMemoryStep/streams(_:)``) serves one encode straight from the
    /// decoder; a second encode loads it again, into memory. Does nothing for pixels in memory.
    private func materialize(_ pixels: inout LossyPixels, work: inout ImageWork) throws(PrepareError) {
        guard pixels.streaming else { return }
        pixels.original = try reload(&work)
        pixels.streaming = false
    }

    /// Loads the pixels again (``ImagePipeline/reload(_:)``), held in memory this time (decode errors
    /// surface here).
    private func reload(_ work: inout ImageWork) throws(PrepareError) -> VipsImage {
        work.holdPixels = true
        try ImagePipeline.reload(&work)
        guard var image = work.image.take() else { throw .processing(step: name, reason: "no pixels after loading again") }
        if work.format == .jpeg, image.hasAlpha {
            image = try ImageFailure.vips(name) { () throws(VipsError) in try image.flattened().copyToMemory() }
        }
        return image
    }
}

/// What a lossy fit searches over: the format's quality range and size priors, and the budget.
struct LossyRange {
    let format: ImageFormat
    /// ``ImageStillFitStep/jpegCeiling`` or ``ImageStillFitStep/heicCeiling``, raised to the floor
    /// when the floor asked for is higher (a floor of 90 is never encoded at 80).
    let ceiling: Int
    /// ``PrepareOptions/qualityFloor``, within 1...100.
    let floor: Int
    let budget: Int64
    let priors: (slope: Double, curvature: Double, step: Int)

    init(format: ImageFormat, qualityFloor: Int, budget: Int64) {
        self.format = format
        floor = min(100, max(1, qualityFloor))
        ceiling = max(floor, format == .jpeg ? ImageStillFitStep.jpegCeiling : ImageStillFitStep.heicCeiling)
        self.budget = budget
        priors = format == .jpeg ? ImageStillFitStep.jpegPriors : ImageStillFitStep.heicPriors
    }

    /// A search over the range, from `firstGuess` (default: the ceiling).
    func search(firstGuess: Int? = nil) -> QualitySearch {
        QualitySearch(floor: floor, ceiling: ceiling, budget: budget, priorSlope: priors.slope,
                      priorCurvature: priors.curvature, step: priors.step, firstGuess: firstGuess)
    }
}

/// What a lossy fit has tried so far.
private struct LossyTrail {
    /// The budget itself (a search aiming under the recommended size records against that).
    let limit: Int64
    /// The highest quality that fitted the search's budget.
    var best: EncodedImage?
    /// The highest quality that fitted ``limit``.
    var fallback: EncodedImage?
    /// Each encode, as the notes tell it ("q80 2048×1536 → 412345").
    var tries: [String] = []
    /// Whether any encode went below the ceiling or any shrink happened (the picture was re-encoded
    /// to fit, not just converted).
    var searched = false
    /// The floor quality's size at each size tried, for the area exponent.
    var floorSizes: [(area: Double, bytes: Int64)] = []

    mutating func record(_ encoded: EncodedImage, range: LossyRange) {
        let quality = encoded.quality ?? range.ceiling
        tries.append("q\(quality) \(encoded.width)×\(encoded.height) → \(encoded.bytes.count)")
        if quality < range.ceiling { searched = true }
        if encoded.size <= range.budget, quality > (best?.quality ?? 0) { best = encoded }
        if encoded.size <= limit, quality > (fallback?.quality ?? 0) { fallback = encoded }
    }
}

/// The pixels a lossy fit encodes: the picture as loaded (flattened for JPEG), and once the floor
/// quality is over budget, a smaller copy of it held in memory. Exactly one owner of each.
private struct LossyPixels: ~Copyable {
    var original: VipsImage
    var shrunk: VipsImage?
    /// Whether ``original`` streams from the decoder (one encode only).
    var streaming: Bool
    /// Encodes made so far (a streaming picture must be held in memory before its second).
    private(set) var encodes = 0
    let format: ImageFormat
    /// The size encoded: ``shrunk``'s when there is one.
    private(set) var size: (width: Int, height: Int)

    init(_ source: consuming VipsImage, format: ImageFormat, streaming: Bool, step: String) throws(PrepareError) {
        var original = source
        if format == .jpeg, original.hasAlpha {
            do { original = try original.flattened() } catch { throw ImageFailure.from(error, step: step) }
        }
        size = (original.width, original.height)
        self.original = original
        self.shrunk = nil
        self.streaming = streaming
        self.format = format
    }

    /// Encodes ``shrunk``, or ``original`` before any shrink.
    mutating func encode(quality: Int, strip: Bool) throws(VipsError) -> [UInt8] {
        encodes += 1
        guard let image = shrunk.take() else { return try Self.encode(original, format: format, quality: quality, strip: strip) }
        let bytes = try Self.encode(image, format: format, quality: quality, strip: strip)
        shrunk = consume image
        return bytes
    }

    /// Replaces ``shrunk`` by ``original`` fitted inside `box`, in memory.
    mutating func shrink(to box: (width: Int, height: Int)) throws(VipsError) {
        let image = try original.fitted(width: box.width, height: box.height).copyToMemory()
        size = (image.width, image.height)
        shrunk = consume image
    }

    private static func encode(_ image: borrowing VipsImage, format: ImageFormat, quality: Int, strip: Bool) throws(VipsError) -> [UInt8] {
        switch format {
        case .heic: return try image.heicData(quality: quality, strip: strip)
        default: return try image.jpegData(quality: quality, strip: strip, progressive: false)
        }
    }
}
