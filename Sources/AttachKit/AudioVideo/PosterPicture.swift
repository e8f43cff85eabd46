/// Turns a decoded frame into the upright thumbnail picture (``PosterLayout`` says the sizes): the
/// frame is converted to RGB with square pixels (libswscale, area-averaging) at the size where the
/// clip comes out at the asked long edge, then libvips turns it by the display rotation and cuts
/// the clip, given in upright coordinates. An HDR frame (PQ, HLG) is tone-mapped to SDR BT.709 at
/// that size first (``ToneMapper``).
enum PosterPicture {
    /// - Parameters:
    ///   - frame: the decoded frame.
    ///   - sampleAspect: width of one stored pixel over its height (1 = square).
    ///   - rotation: clockwise display rotation (0, 90, 180, 270).
    ///   - clip: the region to keep in upright coordinates; `nil` = the whole picture.
    ///   - longEdge: the largest long edge wanted (never upscaled).
    ///   - hdr: the stream's dynamic range (``MediaInfo/hdr``); `nil` for SDR. Default `nil`.
    /// - Throws: ``PrepareError/processing(step:reason:)`` when converting, turning or cropping fails;
    ///   ``PrepareError/unsupported(reason:)`` for Dolby Vision without a compatible base layer.
    static func image(of frame: borrowing AVFrameBuffer, sampleAspect: Double, rotation: Int, clip: ClippingRect?,
                      longEdge: Int, hdr: HDRInfo? = nil) throws(PrepareError) -> VipsImage {
        guard frame.width > 0, frame.height > 0 else { throw .processing(step: "poster frame", reason: "the frame has no picture") }
        let layout = PosterLayout(storedWidth: frame.width, storedHeight: frame.height, sampleAspect: sampleAspect,
                                  rotation: rotation, clip: clip, longEdge: longEdge)
        var toneMapper = try ToneMapper(hdr: hdr, width: layout.width, height: layout.height)
        let pixels: [UInt8]
        do {
            var scaler = try AVScaler(width: layout.width, height: layout.height, format: .rgb24, filter: .areaFullChroma)
            let mapped = try AVFrameBuffer()
            pixels = try toneMapper.map(frame, into: mapped) ? scaler.packedPixels(of: mapped) : scaler.packedPixels(of: frame)
        } catch {
            throw ClipErrors.processing("converting the poster frame", error)
        }
        do {
            var image = try VipsImage.fromPixels(pixels, width: layout.width, height: layout.height, bands: 3)
            if layout.rotation != 0 { image = try image.rotated(clockwise: layout.rotation) }
            if layout.crops {
                image = try image.cropped(left: layout.left, top: layout.top, width: layout.cropWidth, height: layout.cropHeight)
            }
            return image
        } catch {
            throw .processing(step: "poster frame", reason: "\(error)")
        }
    }
}
