/// Renders a JPEG thumbnail of an image, as the device would show it: upright (EXIF orientation
/// applied), the ``ThumbnailRequest/clip`` region only (a normalized rect of the upright picture,
/// as `ThumbnailClippingRectKey`), scaled so its long edge is ``ThumbnailRequest/size`` (never
/// enlarged), colours in sRGB, transparency flattened on white, metadata stripped.
///
/// The picture is loaded at just the size the clip needs (shrink-on-load: a 24 MP JPEG thumbnail
/// decodes at 1/8 scale). ``ThumbnailRequest/frame`` picks the frame of an animation (GIF, WebP,
/// APNG, HEIF sequence; as `ThumbnailTimeKey` does for animated images), clamped to the last frame
/// so a frame number chosen for an input still works on its prepared output with fewer frames;
/// the frame shown is reported. Damaged data fails (decoder warnings are errors).
struct ImageThumbnailRenderer: ThumbnailRendering {
    func render(path: String, info: MediaInfo, request: ThumbnailRequest, limits: SafetyLimits,
                deadline: Deadline) throws(PrepareError) -> RenderedThumbnail {
        let step = "thumbnail"
        let width = max(1, info.displayWidth ?? info.width ?? 1)
        let height = max(1, info.displayHeight ?? info.height ?? 1)
        let frames = max(1, info.frames ?? 1)
        let animated = frames > 1 && (info.isAnimated || info.container == .avif)
        let frame = animated ? min(frames - 1, max(0, request.frame ?? 0)) : 0
        let clip = request.clip ?? .full
        let size = max(1, request.size)
        let regionEdge = max(clip.width * Double(width), clip.height * Double(height))
        let scale = min(1, Double(size) / max(1, regionEdge))
        var box = (width: (Double(width) * scale).clampedInteger(in: 1...width, rounding: .up),
                   height: (Double(height) * scale).clampedInteger(in: 1...height, rounding: .up))
        // A size asked for beyond what the decode budget allows is loaded smaller (never refused).
        if let cap = ImagePlan.memoryPixelCap(info: info, safety: limits), Int64(box.width) * Int64(box.height) > cap {
            box = PixelBudget(maxPixels: cap).fit(width: box.width, height: box.height)
        }

        let reader = try ImagePlan.reader(for: info, path: path)
        try deadline.check(step)
        // A JPEG's data are checked by libjpeg-turbo while libvips decodes it.
        let jpegCheck = ImagePipeline.jpegCheck(path: path, info: info, reader: reader)
        var image = try load(path: path, info: info, reader: reader, frame: animated ? frame : nil, box: box, limits: limits, step: step)
        try deadline.check(step)
        do {
            // Decode now (at thumbnail size): damaged data fails here, as corrupt.
            image = try image.copyToMemory()
        } catch {
            throw ImageFailure.from(error, step: step)
        }
        if let reason = jpegCheck?.reason() { throw .corrupt(reason: reason) }
        do {
            // The clip is inside the unit square (``ClippingRect``): clamping keeps at least one pixel.
            let left = (clip.x * Double(image.width)).clampedInteger(in: 0...max(0, image.width - 1))
            let top = (clip.y * Double(image.height)).clampedInteger(in: 0...max(0, image.height - 1))
            let cropWidth = (clip.width * Double(image.width)).clampedInteger(in: 1...max(1, image.width - left))
            let cropHeight = (clip.height * Double(image.height)).clampedInteger(in: 1...max(1, image.height - top))
            if cropWidth < image.width || cropHeight < image.height {
                image = try image.cropped(left: left, top: top, width: cropWidth, height: cropHeight)
            }
            if max(image.width, image.height) > size { image = try image.fitted(width: size, height: size) }
            if image.hasAlpha { image = try image.flattened() }
            if !image.isDisplayReady { image = try image.converted(to: image.isGreyscale ? .greyscale : .sRGB) }
            if !image.isEightBit { image = try image.castToEightBit() }
            let jpeg = try image.jpegData(quality: request.quality, strip: true, progressive: false)
            return RenderedThumbnail(jpeg: jpeg, width: image.width, height: image.height, frame: animated ? frame : nil)
        } catch {
            throw ImageFailure.from(error, step: step)
        }
    }

    /// The upright picture (one frame) fitted inside `box`.
    private func load(path: String, info: MediaInfo, reader: ImagePlan.Reader, frame: Int?, box: (width: Int, height: Int),
                      limits: SafetyLimits, step: String) throws(PrepareError) -> VipsImage {
        switch reader {
        case .embeddedPreview:
            guard let raw = info.cameraRaw, let jpeg = CameraRawPreview.jpeg(path: path, raw: raw) else {
                throw .corrupt(reason: "the camera raw's embedded JPEG preview can no longer be read")
            }
            do {
                let exportProfile = info.hasICCProfile == true || info.pixelFormat == "cmyk" ? "srgb" : nil
                return try VipsImage.thumbnail(.bytes(jpeg), width: box.width, height: box.height, exportProfile: exportProfile,
                                               failOnWarnings: true, autorotate: true)
            } catch {
                throw ImageFailure.from(error, step: step)
            }
        case .vips:
            do {
                let exportProfile = info.hasICCProfile == true || info.pixelFormat == "cmyk" ? "srgb" : nil
                return try VipsImage.thumbnail(path: path, width: box.width, height: box.height,
                                               loaderOptions: frame.map { "page=\($0)" } ?? "",
                                               exportProfile: exportProfile, failOnWarnings: true, autorotate: true)
            } catch {
                throw ImageFailure.from(error, step: step)
            }
        case .ffmpeg(let demuxer):
            // FFmpeg hands over whole frames: a picture too large to hold is refused before it is
            // decoded, as `prepare` refuses it (over-cap, not a missing decoder).
            if let violation = limits.wholeFrameViolation(of: info) { throw .overCap(violation) }
            let wanted = frame ?? 0
            let pictures: FFmpegPictureReader.Pictures
            do {
                pictures = try FFmpegPictureReader.decode(
                    path: path, demuxer: demuxer, keep: { $0 == wanted }, maxFrames: wanted + 1, maxPixels: limits.maxWholeFramePixels,
                    size: { width, height in ImageLoadStep.fit(width: width, height: height, inside: box) })
            } catch {
                throw ImageFailure.from(error, step: step)
            }
            guard pictures.frames == 1 else {
                throw .processing(step: step, reason: "frame \(wanted) could not be decoded (the stream has \(pictures.decodedFrames))")
            }
            do {
                return try VipsImage.fromPixels(pictures.pixels, width: pictures.width, height: pictures.height, bands: 4)
            } catch {
                throw ImageFailure.from(error, step: step)
            }
        }
    }
}
