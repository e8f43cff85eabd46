/// Reads the pixels at the planned size (``ImageWork/loadBox``), never decoding more than needed:
/// libvips' `vips_thumbnail` straight on the file shrinks while loading (JPEG DCT scaling, WebP
/// scaled decoding, HEIF thumbnails) and streams the rest top to bottom; it turns the picture
/// upright by its EXIF orientation (dropping the tag) and converts ICC-tagged and CMYK pictures to
/// sRGB. Decoder warnings are errors (`fail_on=warning`): a truncated file fails instead of
/// becoming a half-grey picture; every valid image of the corpus loads at that level. A still JPEG
/// is shrunk on load further than `vips_thumbnail` would (``jpegShrink(_:box:)``: 1.4× of
/// headroom instead of 2×), then resized the same way.
///
/// What libvips cannot read goes through FFmpeg (``FFmpegPictureReader``), each frame scaled to
/// size as it is decoded and the frames an animation drops skipped on the way. A camera raw is
/// its embedded JPEG preview (``CameraRawPreview``), loaded from its bytes the same way.
///
/// An animation read by libvips is opened whole and lazy here; its frames are dropped and then
/// resampled by the next steps (so dropped frames are never resampled). Pixels stay lazy
/// (libvips): decoding happens when ``ImageMemoryStep`` pulls them.
struct ImageLoadStep: ImageStep {
    let name = "load and downscale"

    func run(_ work: inout ImageWork) throws(PrepareError) {
        switch work.plan.reader {
        case .vips: try loadWithVips(&work)
        case .ffmpeg(let demuxer): try loadWithFFmpeg(&work, demuxer: demuxer)
        case .embeddedPreview: try loadPreview(&work)
        }
        guard let width = work.image?.width, let fullHeight = work.image?.height else { return }
        let height = fullHeight / max(1, work.frameCount)
        let orientation = work.job.info.orientation ?? 1
        if orientation > 1, work.plan.reader.isLibvips, !work.plan.animated { work.did(.rotated) }
        if width < work.plan.width || height < work.plan.height {
            work.did(.downscaled)
            if !work.plan.outputsGIF {
                work.noteOnce(.downscaled, "downscaled \(work.plan.width)×\(work.plan.height) → \(width)×\(height)")
            }
            if work.plan.memoryLimited {
                work.noteOnce(.memoryLimited, "loaded at \(width)×\(height) to decode within the \(DecodeMemory.megabytes(work.job.safety.maxDecodeBytes)) budget (maxDecodeBytes)")
            }
        }
        if work.strip, !work.actions.contains(.metadataStripped) {
            let blocks = (work.image?.metadataBlocks ?? []).filter { $0 != "icc-profile-data" || work.job.info.hasICCProfile == true }
            // Listed first: stripping goes with every re-encode, it is never the headline.
            if !blocks.isEmpty { work.actions.insert(.metadataStripped, at: 0) }
        }
        if work.job.info.container == .gif, work.plan.reader == .vips,
           max(work.plan.width, work.plan.height) > DecoderLimits.gifScreenEdge, width < work.plan.width || height < work.plan.height {
            work.noteOnce(.screenCropped, "the GIF's \(work.plan.width)×\(work.plan.height) logical screen is over \(DecoderLimits.gifScreenEdge) px, "
                          + "which libvips' GIF decoder takes for a mistake: kept as the \(width)×\(height) it composes (its first frame's extent), the rest of the screen dropped")
        }
        if work.job.info.isAnimated, !work.plan.animated {
            work.noteOnce(.firstFrameOnly, "the profile allows no GIF: the first frame is kept as a still")
        }
        let pages = work.job.info.frames ?? 1
        if pages > 1, !work.job.info.isAnimated, !work.plan.animated {
            let kept = work.job.info.container == .tiff ? "the first of \(pages) pages" : "the primary image of \(pages)"
            work.noteOnce(.pagesDropped, "kept \(kept): an attachment shows one picture, the other \(pages - 1) are dropped")
        }
    }

    private func loadWithVips(_ work: inout ImageWork) throws(PrepareError) {
        let box = work.plan.caps.thumbnailBox(work.loadBox, width: work.plan.width, height: work.plan.height)
        let path = work.job.inputPath, profile = work.plan.exportProfile
        if work.job.info.container == .tiff, work.plan.frames > 1 {
            // vips_thumbnail takes a multi-page TIFF whose second page is half the first for a
            // pyramid and loads the smaller page: open page 0 itself, then resize.
            work.image = try ImageFailure.vips(name) { () throws(VipsError) in
                try VipsImage.load(path: path, sequential: true, failOnWarnings: true)
                    .thumbnail(width: box.width, height: box.height, exportProfile: profile)
            }
            return
        }
        guard work.plan.animated else {
            if let shrink = Self.jpegShrink(work, box: box) {
                work.image = try ImageFailure.vips(name) { () throws(VipsError) in
                    try VipsImage.load(path: path, loaderOptions: "shrink=\(shrink)", sequential: true, failOnWarnings: true)
                        .thumbnail(width: box.width, height: box.height, exportProfile: profile)
                }
                return
            }
            work.image = try ImageFailure.vips(name) { () throws(VipsError) in
                try VipsImage.thumbnail(path: path, width: box.width, height: box.height,
                                        exportProfile: profile, failOnWarnings: true, autorotate: true)
            }
            return
        }
        // Every frame, full size and lazy: frames are dropped before any is resampled
        // (``ImageFrameDropStep``, then ``ImageAnimationResizeStep``).
        let image = try ImageFailure.vips(name) { () throws(VipsError) in
            try VipsImage.load(path: path, loaderOptions: "n=-1", sequential: true, failOnWarnings: true)
        }
        let pageHeight = image.int("page-height") ?? image.height
        let frames = max(1, image.height / max(1, pageHeight))
        work.pageHeight = pageHeight
        let delays = image.intArray("delay") ?? []
        work.delays = (0..<frames).map { $0 < delays.count ? delays[$0] : (delays.last ?? 100) }
        work.loop = image.int("loop") ?? work.job.info.loop ?? 0
        work.image = consume image
    }

    /// The JPEG shrink-on-load (2, 4 or 8, libjpeg's DCT scaling) for a still JPEG whose decode at
    /// that scale still covers the output by ``jpegShrinkHeadroom`` on each axis, or `nil` to let
    /// `vips_thumbnail` choose (it keeps 2× of headroom: a 6000 px photo bound for 2048 px is
    /// decoded whole, 24 MP, and shrunk from there; here it is decoded at 3000 px). The picture is
    /// then resized, turned upright and colour-converted by `vips_thumbnail_image`, as the TIFF
    /// page above is.
    static func jpegShrink(_ work: borrowing ImageWork, box: (width: Int, height: Int)) -> Int? {
        let info = work.job.info
        guard info.container == .jpeg, work.plan.frames <= 1, let width = info.width, let height = info.height else { return nil }
        let target = fit(width: work.plan.width, height: work.plan.height, inside: box)
        let upright = (width: Double(target.width) * jpegShrinkHeadroom, height: Double(target.height) * jpegShrinkHeadroom)
        let need = (info.orientation ?? 1) >= 5 ? (width: upright.height, height: upright.width) : upright
        // libjpeg rounds a scaled size up.
        return [8, 4, 2].first { Double((width + $0 - 1) / $0) >= need.width && Double((height + $0 - 1) / $0) >= need.height }
    }

    /// How much larger than the output a shrunk-on-load JPEG must stay on each axis: the lanczos3
    /// reduce does the last 1.4× or more. Measured on a 24 MP photo bound for 2048 px (decoded at
    /// 3000 px, 1.46× the output, instead of whole): CPU 0.62× and wall 0.68× of `vipsthumbnail`,
    /// SSIM against a full-decode lanczos3 reference 0.0004 lower after the q80 encode (0.9843
    /// against 0.9847; docs/benchmarks.md). libjpeg's other scales (3/8, 5/8...) are no cheaper than
    /// the whole decode: their IDCTs have no SIMD, and the chroma of a 4:2:0 picture is decoded at
    /// twice the scale (a 10×10 IDCT at 5/8).
    static let jpegShrinkHeadroom = 1.4

    /// A camera raw: its embedded JPEG preview, read whole (at most
    /// ``CameraRawPreview/maximumBytes``), upright as the raw says, shrunk on load like any JPEG.
    private func loadPreview(_ work: inout ImageWork) throws(PrepareError) {
        guard let raw = work.job.info.cameraRaw, let jpeg = CameraRawPreview.jpeg(path: work.job.inputPath, raw: raw) else {
            throw .corrupt(reason: "the camera raw's embedded JPEG preview can no longer be read")
        }
        let box = work.plan.caps.thumbnailBox(work.loadBox, width: work.plan.width, height: work.plan.height)
        let profile = work.plan.exportProfile
        work.image = try ImageFailure.vips(name) { () throws(VipsError) in
            try VipsImage.thumbnail(.bytes(jpeg), width: box.width, height: box.height, exportProfile: profile, failOnWarnings: true, autorotate: true)
        }
        work.noteOnce(.embeddedPreview, "used the camera's embedded JPEG preview (\(raw.previewWidth)×\(raw.previewHeight))")
    }

    private func loadWithFFmpeg(_ work: inout ImageWork, demuxer: String) throws(PrepareError) {
        // FFmpeg hands over whole frames: refuse a picture too large to hold before decoding it
        // (the screening already refused the containers only FFmpeg reads; this is also reached by
        // pictures libvips turned out not to open, such as a 12-bit JPEG, and by APNG animations).
        if let violation = work.job.safety.wholeFrameViolation(of: work.job.info) { throw .overCap(violation) }
        let animated = work.plan.animated
        let selection = work.selection
        let box = work.loadBox
        let path = work.job.inputPath, frames = animated ? max(1, work.plan.frames) : 1
        let pictures = try ImageFailure.ffmpeg(name) { () throws(FFmpegError) in
            try FFmpegPictureReader.decode(path: path, demuxer: demuxer, keep: { selection.keeps($0) }, maxFrames: frames,
                                           maxPixels: work.job.safety.maxWholeFramePixels,
                                           size: { width, height in Self.fit(width: width, height: height, inside: box) })
        }
        work.image = try ImageFailure.vips(name) { () throws(VipsError) in
            try VipsImage.fromPixels(pictures.pixels, width: pictures.width, height: pictures.height * pictures.frames, bands: 4)
        }
        if animated {
            work.pageHeight = pictures.height
            work.delays = pictures.delays
            work.loop = work.job.info.loop ?? 0
            if pictures.frames < pictures.decodedFrames { work.did(.framesDropped) }
        }
    }

    /// The largest size with the aspect ratio of `width`×`height` inside `box` (never larger than itself).
    static func fit(width: Int, height: Int, inside box: (width: Int, height: Int)) -> (width: Int, height: Int) {
        let scale = min(1, Double(box.width) / Double(max(1, width)), Double(box.height) / Double(max(1, height)))
        guard scale < 1 else { return (width, height) }
        return ((Double(width) * scale).clampedInteger(in: 1...max(1, box.width)),
                (Double(height) * scale).clampedInteger(in: 1...max(1, box.height)))
    }
}
