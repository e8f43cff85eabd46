import CFFmpeg

/// Turns a decoded frame into upright RGB pixels: crops it to a normalized clip given in upright
/// (displayed) coordinates, scales it (swscale, area-averaging) so its long edge is at most the
/// asked size, honouring non-square pixels, then rotates the small result by the display rotation.
struct PosterPicture {
    /// Packed RGB, 3 bytes per pixel, rows top to bottom.
    let pixels: [UInt8]
    let width: Int
    let height: Int

    /// - Parameters:
    ///   - frame: the decoded frame (cropped in place).
    ///   - sampleAspect: width of one stored pixel over its height (1 = square).
    ///   - rotation: clockwise display rotation (0, 90, 180, 270).
    ///   - clip: the region to keep in upright coordinates; `nil` = the whole picture.
    ///   - longEdge: the largest long edge wanted (never upscaled).
    /// - Throws: ``PrepareError/processing(step:reason:)`` when cropping or converting fails.
    init(frame: borrowing AVFrameBuffer, sampleAspect: Double, rotation: Int, clip: ClippingRect?,
         longEdge: Int) throws(PrepareError) {
        let f = frame.pointer
        let storedWidth = Int(f.pointee.width), storedHeight = Int(f.pointee.height)
        guard storedWidth > 0, storedHeight > 0 else { throw .processing(step: "poster frame", reason: "the frame has no picture") }
        let turn = ((rotation % 360) + 360) % 360
        let region = Self.storedRegion(of: clip ?? .full, rotation: turn)
        // The region is inside the unit square (``ClippingRect``): clamping keeps at least one pixel.
        let left = (region.x * Double(storedWidth)).clampedInteger(in: 0...storedWidth - 1)
        let top = (region.y * Double(storedHeight)).clampedInteger(in: 0...storedHeight - 1)
        let cropWidth = (region.width * Double(storedWidth)).clampedInteger(in: 1...storedWidth - left)
        let cropHeight = (region.height * Double(storedHeight)).clampedInteger(in: 1...storedHeight - top)
        if cropWidth != storedWidth || cropHeight != storedHeight {
            f.pointee.crop_left = Int(left)
            f.pointee.crop_top = Int(top)
            f.pointee.crop_right = Int(storedWidth - left - cropWidth)
            f.pointee.crop_bottom = Int(storedHeight - top - cropHeight)
            let cropped = av_frame_apply_cropping(f, Int32(AV_FRAME_CROP_UNALIGNED))
            guard cropped >= 0 else { throw ClipErrors.processing("cropping the poster frame", FFmpegError(operation: "crop", code: cropped)) }
        }

        // Size in square pixels, before rotation, then the scale that fits the long edge.
        let squareWidth = Double(f.pointee.width) * (sampleAspect > 0 ? sampleAspect : 1)
        let squareHeight = Double(f.pointee.height)
        let scale = min(1, Double(max(1, longEdge)) / max(squareWidth, squareHeight))
        // Within the long edge by construction (the sample aspect ratio comes from the file).
        let outWidth = (squareWidth * scale).clampedInteger(in: 1...max(1, longEdge))
        let outHeight = (squareHeight * scale).clampedInteger(in: 1...max(1, longEdge))
        let rgb = try ClipErrors.attempt("converting the poster frame") { () throws(FFmpegError) in try AVFrameBuffer() }
        do {
            var scaler = try AVScaler(width: outWidth, height: outHeight, pixelFormat: AV_PIX_FMT_RGB24, flags: SWS_AREA | SWS_ACCURATE_RND)
            try scaler.scale(frame, into: rgb)
        } catch {
            throw ClipErrors.processing("converting the poster frame", error)
        }
        var packed = [UInt8](repeating: 0, count: outWidth * outHeight * 3)
        let stride = Int(rgb.pointer.pointee.linesize.0)
        guard let base = rgb.pointer.pointee.data.0 else { throw .processing(step: "poster frame", reason: "no RGB data") }
        packed.withUnsafeMutableBufferPointer { out in
            for row in 0..<outHeight {
                (out.baseAddress! + row * outWidth * 3).update(from: base + row * stride, count: outWidth * 3)
            }
        }
        let turned = Self.rotate(packed, width: outWidth, height: outHeight, clockwise: turn)
        pixels = turned.pixels
        width = turned.width
        height = turned.height
    }

    /// The clip, given in upright coordinates, in the stored picture's coordinates (both normalized).
    static func storedRegion(of clip: ClippingRect, rotation: Int) -> (x: Double, y: Double, width: Double, height: Double) {
        switch rotation {
        case 90: return (clip.y, 1 - clip.x - clip.width, clip.height, clip.width)
        case 180: return (1 - clip.x - clip.width, 1 - clip.y - clip.height, clip.width, clip.height)
        case 270: return (1 - clip.y - clip.height, clip.x, clip.height, clip.width)
        default: return (clip.x, clip.y, clip.width, clip.height)
        }
    }

    /// Packed RGB turned clockwise by 0, 90, 180 or 270 degrees.
    static func rotate(_ pixels: [UInt8], width: Int, height: Int, clockwise: Int) -> (pixels: [UInt8], width: Int, height: Int) {
        guard clockwise == 90 || clockwise == 180 || clockwise == 270 else { return (pixels, width, height) }
        let outWidth = clockwise == 180 ? width : height
        let outHeight = clockwise == 180 ? height : width
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    for x in 0..<width {
                        let (u, v): (Int, Int)
                        switch clockwise {
                        case 90: (u, v) = (height - 1 - y, x)
                        case 180: (u, v) = (width - 1 - x, height - 1 - y)
                        default: (u, v) = (y, width - 1 - x)
                        }
                        let s = (y * width + x) * 3, d = (v * outWidth + u) * 3
                        dst[d] = src[s]
                        dst[d + 1] = src[s + 1]
                        dst[d + 2] = src[s + 2]
                    }
                }
            }
        }
        return (out, outWidth, outHeight)
    }
}
