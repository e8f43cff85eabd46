import CFFmpeg

/// The pixel layouts AttachKit converts frames to.
enum PictureFormat: Sendable, Equatable {
    /// 8-bit 4:2:0 planar YUV (`AV_PIX_FMT_YUV420P`).
    case yuv420p
    /// Packed 8-bit RGB, 3 bytes per pixel (`AV_PIX_FMT_RGB24`).
    case rgb24
    /// Packed 8-bit RGBA, 4 bytes per pixel (`AV_PIX_FMT_RGBA`).
    case rgba

    var av: AVPixelFormat {
        switch self {
        case .yuv420p: return AV_PIX_FMT_YUV420P
        case .rgb24: return AV_PIX_FMT_RGB24
        case .rgba: return AV_PIX_FMT_RGBA
        }
    }

    /// Bytes per pixel of the packed formats (0 for planar YUV).
    var packedBytesPerPixel: Int {
        switch self {
        case .yuv420p: return 0
        case .rgb24: return 3
        case .rgba: return 4
        }
    }
}

/// How libswscale resamples.
enum ScalingFilter: Sendable, Equatable {
    /// Bicubic (`SWS_BICUBIC`).
    case bicubic
    /// Area averaging with accurate rounding (`SWS_AREA | SWS_ACCURATE_RND`).
    case area
    /// Area averaging, accurate rounding and full-resolution chroma (`SWS_AREA | SWS_ACCURATE_RND |
    /// SWS_FULL_CHR_H_INT`).
    case areaFullChroma

    var flags: Int32 {
        switch self {
        case .bicubic: return SWS_BICUBIC
        case .area: return SWS_AREA | SWS_ACCURATE_RND
        case .areaFullChroma: return SWS_AREA | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT
        }
    }
}

/// A libswscale context converting frames to one size and pixel format, with exactly one owner;
/// freed when the value goes away. The source may change size, format or range between frames
/// (the context is rebuilt then).
///
/// Colour is converted at most once and only where the formats need it: YUV to YUV keeps the
/// source's matrix unless a different ``colour`` is asked for (libswscale would otherwise go
/// through RGB and back, shifting levels), and turns full range into limited range; YUV to RGB
/// uses the source's matrix and range.
struct AVScaler: ~Copyable {
    private var context: OpaquePointer?
    /// What ``context`` was built for.
    private var built: Shape?
    let width: Int
    let height: Int
    let format: PictureFormat
    /// How the picture is resampled. Default ``ScalingFilter/bicubic`` (sharp, cheap enough for
    /// one pass over every frame).
    let filter: ScalingFilter
    /// The colour description YUV output is written in (and tagged with). Default `nil`: the
    /// source frame's own, resolved (``VideoColour/resolved(height:)``), in limited range. RGB
    /// output is always full range, converted with the source's matrix.
    let colour: VideoColour?

    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/openScaler`` for a size of zero or less.
    init(width: Int, height: Int, format: PictureFormat, filter: ScalingFilter = .bicubic,
         colour: VideoColour? = nil) throws(FFmpegError) {
        try FFmpegLibrary.require()
        guard width > 0, height > 0 else { throw FFmpegError(operation: .openScaler, message: "cannot scale to \(width)×\(height)") }
        self.width = width
        self.height = height
        self.format = format
        self.filter = filter
        self.colour = colour
    }

    deinit {
        if let context { sws_freeContext(context) }
    }

    /// Converts `source` into `target` (whose previous buffers are released; new ones are allocated),
    /// copying timestamps and frame properties and tagging the target with its colour description.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/scale``.
    mutating func scale(_ source: borrowing AVFrameBuffer, into target: borrowing AVFrameBuffer) throws(FFmpegError) {
        let src = source.pointer
        let format = AVPixelFormat(rawValue: src.pointee.format)
        guard src.pointee.width > 0, src.pointee.height > 0, format != AV_PIX_FMT_NONE else {
            throw FFmpegError(operation: .scale, message: "the frame has no picture")
        }
        let pixelFormat = self.format.av
        let input = source.colour.resolved(height: Int(src.pointee.height))
        let rgb = Self.isRGB(pixelFormat)
        var output = rgb ? input : (colour ?? input)
        output.fullRange = rgb || (colour?.fullRange ?? false)
        let context = try context(for: Shape(width: src.pointee.width, height: src.pointee.height, format: format,
                                             fullRange: input.fullRange, targetFullRange: output.fullRange))
        // The same coefficient table on both sides is what keeps libswscale from converting YUV to
        // YUV through RGB (its "cascaded context").
        sws_setColorspaceDetails(context, sws_getCoefficients(Int32(input.matrix)), input.fullRange ? 1 : 0,
                                 sws_getCoefficients(Int32(output.matrix)), output.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)

        target.unref()
        let dst = target.pointer
        dst.pointee.width = Int32(width)
        dst.pointee.height = Int32(height)
        dst.pointee.format = pixelFormat.rawValue
        let allocated = av_frame_get_buffer(dst, 0)
        guard allocated >= 0 else { throw FFmpegError(operation: .scale, code: allocated) }
        let copied = av_frame_copy_props(dst, src)
        guard copied >= 0 else { throw FFmpegError(operation: .scale, code: copied) }
        target.tag(rgb ? VideoColour(matrix: 0, primaries: output.primaries, transfer: output.transfer, fullRange: true) : output)
        dst.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        let status = sws_scale_frame(context, dst, src)
        guard status >= 0 else { throw FFmpegError(operation: .scale, code: status) }
    }

    /// What a libswscale context is built for: the source's size, format and range, and the
    /// target's range.
    private struct Shape: Equatable {
        let width: Int32
        let height: Int32
        let format: AVPixelFormat
        let fullRange: Bool
        let targetFullRange: Bool
    }

    /// The context for `shape`, built when the shape changes. The ranges are given before the
    /// context is initialised (as `ffmpeg`'s scale filter does): set afterwards with
    /// `sws_setColorspaceDetails`, libswscale ignores them for sources over 8 bits and for a
    /// same-size, same-format copy, and full-range samples would pass through tagged limited.
    private mutating func context(for shape: Shape) throws(FFmpegError) -> OpaquePointer {
        if let context, shape == built { return context }
        if let context { sws_freeContext(context) }
        context = nil
        built = nil
        guard let fresh = sws_alloc_context() else { throw FFmpegError(operation: .scale, message: "out of memory for a scaler") }
        let settings: [(String, Int64)] = [
            ("srcw", Int64(shape.width)), ("srch", Int64(shape.height)), ("src_format", Int64(shape.format.rawValue)),
            ("dstw", Int64(width)), ("dsth", Int64(height)), ("dst_format", Int64(format.av.rawValue)),
            ("sws_flags", Int64(filter.flags)), ("src_range", shape.fullRange ? 1 : 0), ("dst_range", shape.targetFullRange ? 1 : 0),
        ]
        for (name, value) in settings where av_opt_set_int(UnsafeMutableRawPointer(fresh), name, value, 0) < 0 {
            sws_freeContext(fresh)
            throw FFmpegError(operation: .scale, message: "libswscale has no option \(name)")
        }
        guard sws_init_context(fresh, nil, nil) >= 0 else {
            sws_freeContext(fresh)
            throw FFmpegError(operation: .scale, message: "libswscale cannot convert \(Self.name(shape.format)) to \(Self.name(format.av))")
        }
        context = fresh
        built = shape
        return fresh
    }

    /// Converts `source` to this scaler's size and (packed) format and returns its rows without
    /// line padding: `width × height × bytes per pixel` bytes, top to bottom.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/scale`` (also for a planar target format) or ``FFmpegOperation/frameAlloc``.
    mutating func packedPixels(of source: borrowing AVFrameBuffer) throws(FFmpegError) -> [UInt8] {
        guard format.packedBytesPerPixel > 0 else {
            throw FFmpegError(operation: .scale, message: "\(Self.name(format.av)) is not a packed format")
        }
        let converted = try AVFrameBuffer()
        try scale(source, into: converted)
        var pixels: [UInt8] = []
        converted.appendPackedRows(to: &pixels, rowBytes: width * format.packedBytesPerPixel, rows: height)
        return pixels
    }

    private static func isRGB(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        return (descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB)) != 0
    }

    static func name(_ format: AVPixelFormat) -> String {
        av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "pixel format \(format.rawValue)"
    }
}

extension AVFrameBuffer {
    /// The frame's colour description as decoded (the deprecated `yuvj*` formats are full range
    /// by definition: MJPEG decoders still use them).
    var colour: VideoColour {
        let frame = pointer.pointee
        return VideoColour(matrix: Int(frame.colorspace.rawValue), primaries: Int(frame.color_primaries.rawValue),
                           transfer: Int(frame.color_trc.rawValue),
                           fullRange: frame.color_range == AVCOL_RANGE_JPEG || Self.jpegFormats.contains(frame.format))
    }

    /// The `yuvj*` formats, as raw values (checked once per frame).
    private static let jpegFormats: Set<Int32> = Set([AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P,
                                                      AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P].map(\.rawValue))

    /// Writes `colour` into the frame's colour fields.
    func tag(_ colour: VideoColour) {
        pointer.pointee.colorspace = AVColorSpace(rawValue: UInt32(clamping: colour.matrix))
        pointer.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(clamping: colour.primaries))
        pointer.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(clamping: colour.transfer))
        pointer.pointee.color_range = colour.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
    }
}
