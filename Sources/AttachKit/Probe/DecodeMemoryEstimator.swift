/// Estimates, from the header alone, the memory the decoder AttachKit would use for a file needs
/// (``DecodeMemory``), per format and per decoder path. Process overhead is left out.
///
/// The factors come from the decoders' sources and were checked against the peak RSS of
/// `ATTACHKIT_PEAK_RSS=1 attachkit prepare|thumbnail|validate --deep` on synthetic inputs (the
/// process baseline, ~55 MiB, subtracted); each says which below.
///
/// | decoder path | held whatever the load size | per loaded pixel |
/// |---|---|---|
/// | libvips streaming (baseline JPEG, non-interlaced PNG) | a row window | — |
/// | TIFF (libtiff) | one strip or one row of tiles, twice | — |
/// | progressive / multi-scan JPEG (libjpeg) | every DCT coefficient, 128 B per block | — |
/// | interlaced PNG (libpng) | the whole picture | — |
/// | HEIF/AVIF (libheif) | the whole canvas, ×6 B/px at 8-bit 4:2:0 | — |
/// | GIF (libnsgif) | the frame, ×8 B/px | — |
/// | WebP (libwebp) | lossless: 4 B/px ARGB; alpha: 1 B/px plane | 8 B |
/// | FFmpeg pictures (BMP, 12-bit JPEG, JPEG XL, sequences, APNG) | whole frames | 8 B |
/// | video (FFmpeg decoders, x264) | frames × (references + threads + pools) | — |
enum DecodeMemoryEstimator {
    /// Rows of a streaming decode held at once: libvips' sequential line cache, its threads'
    /// regions and the shrink's accumulators. 1024 rows of the widest 16-bit RGBA picture
    /// (16383 px) are 134 MB; measured, a 16000-px-wide 8-bit PNG of 256 Mpx prepares at 84 MB
    /// peak for the whole process.
    static let streamingRows: Int64 = 1024

    /// The estimate for an image, or `nil` for other kinds or without a size.
    static func image(_ info: MediaInfo, reader: borrowing FileReader) -> DecodeMemory? {
        guard info.kind == .image, let width = info.width, let height = info.height, width > 0, height > 0 else { return nil }
        switch info.container {
        case .heic, .heif, .avif:
            let still = heif(HEIFItems.pictures(reader) ?? [], info: info)
            guard info.container == .avif, (info.frames ?? 1) > 1 else { return still }
            // An AVIF sequence may be read by FFmpeg instead (when libvips cannot open it).
            let sequence = ffmpegPicture(info, references: references(of: .av1), keptFrames: info.frames ?? 1)
            return sequence.fixedBytes > still.fixedBytes ? sequence : still
        case .png:
            return info.codec == .apng && (info.frames ?? 1) > 1 ? ffmpegPicture(info, references: 2, keptFrames: info.frames ?? 1) : png(info)
        case .jpeg:
            guard let frame = JPEGFrameHeader.read(reader) else { return streaming(width: width, bytesPerPixel: 3, what: "JPEG") }
            return jpeg(frame, info: info)
        case .webp:
            return WebPHeader.read(reader).map { webp($0, info: info) } ?? webp(WebPHeader(width: width, height: height), info: info)
        case .gif:
            return gif(info)
        case .tiff:
            return TIFFLayout.read(reader).map(tiff) ?? streaming(width: width, bytesPerPixel: 8, what: "TIFF")
        case _ where info.container.isCameraRaw:
            guard let raw = info.cameraRaw, let window = CameraRawPreview.window(reader, raw: raw),
                  let frame = JPEGFrameHeader.read(window) else { return streaming(width: width, bytesPerPixel: 3, what: "JPEG") }
            return cameraRawPreview(frame, raw: raw, info: info)
        default:
            // BMP, JPEG XL, HEIF and AVIF sequences: FFmpeg decodes whole frames.
            let sequence = info.container == .heifSequence || info.container == .avif
            return ffmpegPicture(info, references: sequence ? references(of: info.codec) : 0, keptFrames: sequence ? info.frames ?? 1 : 1)
        }
    }

    // MARK: Streaming decoders

    /// A decoder libvips pulls rows from as it needs them: only ``streamingRows`` rows are alive.
    static func streaming(width: Int, bytesPerPixel: Int64, what: String) -> DecodeMemory {
        DecodeMemory(fixedBytes: Int64(width) * bytesPerPixel * streamingRows,
                     basis: "\(what) streamed: \(streamingRows) rows of \(width) px × \(bytesPerPixel) B")
    }

    /// Bytes per pixel of the picture libvips hands over: bands × 1 or 2 bytes per sample.
    private static func vipsPixelBytes(_ info: MediaInfo) -> Int64 {
        Int64(max(1, info.bands ?? 4)) * ((info.bitDepth ?? 8) > 8 ? 2 : 1)
    }

    /// PNG: libpng hands a non-interlaced PNG over row by row (streamed); an interlaced (Adam7) one
    /// has its rows spread over seven passes, so libvips reads the whole picture into memory first
    /// (`png_read_image`): bands × bytes per sample × every pixel, after palette expansion
    /// (measured: a 6000×6000 RGB interlaced PNG peaks 95 MiB above the same picture not interlaced,
    /// for 108 MB predicted).
    static func png(_ info: MediaInfo) -> DecodeMemory {
        let width = info.width ?? 0, height = info.height ?? 0, pixelBytes = vipsPixelBytes(info)
        guard info.interlaced == true else { return streaming(width: width, bytesPerPixel: pixelBytes, what: "PNG") }
        return DecodeMemory(fixedBytes: Int64(width) * Int64(height) * pixelBytes,
                            basis: "interlaced PNG read whole: \(width)×\(height) × \(pixelBytes) B/px")
    }

    /// JPEG: libjpeg decodes a baseline JPEG one MCU row at a time (streamed; DCT scaling shrinks
    /// it on load). A progressive or multi-scan one needs every coefficient of the picture before
    /// the first row comes out (``JPEGFrameHeader/coefficientBytes``, ~3 B/px at 4:2:0, whatever
    /// the DCT scale; measured: a 6000×6000 4:2:0 progressive JPEG peaks 104 MiB above the same
    /// picture as baseline, for 108 MB predicted). 12-bit and lossless JPEGs are decoded by FFmpeg.
    static func jpeg(_ frame: JPEGFrameHeader, info: MediaInfo) -> DecodeMemory {
        if frame.precision > 8 || frame.lossless {
            return ffmpegPicture(info, references: 0, keptFrames: 1)
        }
        let rows = streaming(width: frame.width, bytesPerPixel: Int64(frame.components.count), what: "JPEG")
        guard frame.buffersWholeImage else { return rows }
        let kind = frame.progressive ? "progressive" : "multi-scan"
        return DecodeMemory(fixedBytes: frame.coefficientBytes + rows.fixedBytes,
                            basis: "\(kind) JPEG \(frame.width)×\(frame.height), \(frame.components.count) components: every DCT coefficient held, 128 B per 8×8 block")
    }

    /// A camera raw's embedded JPEG preview: decoded as a JPEG (``jpeg(_:info:)``), from its bytes
    /// held in memory twice (read from the file, and libvips' copy it decodes from).
    static func cameraRawPreview(_ frame: JPEGFrameHeader, raw: CameraRawInfo, info: MediaInfo) -> DecodeMemory {
        var memory = jpeg(frame, info: info)
        memory.fixedBytes += 2 * raw.previewBytes
        memory.basis += "; the embedded preview's \(raw.previewBytes) bytes held twice"
        return memory
    }

    /// TIFF: libtiff decodes one strip (or tile) at a time; libvips keeps the strip, or a row of
    /// tiles in its tile cache, plus libtiff's own buffer: twice ``TIFFLayout/unitBytes``. A TIFF
    /// written as one strip is therefore decoded whole.
    static func tiff(_ layout: TIFFLayout) -> DecodeMemory {
        let rows = streaming(width: layout.width, bytesPerPixel: layout.bytesPerPixel, what: "TIFF")
        let unit = layout.tileWidth != nil ? "a row of \(layout.tileWidth!)×\(layout.tileHeight ?? 0) tiles"
            : "strips of \(min(layout.height, layout.rowsPerStrip ?? layout.height)) rows"
        return DecodeMemory(fixedBytes: 2 * layout.unitBytes + rows.fixedBytes,
                            basis: "TIFF \(layout.width)×\(layout.height) read in \(unit), \(layout.bytesPerPixel) B/px, twice")
    }

    // MARK: Whole-picture decoders

    /// HEIF and AVIF: libheif decodes a picture whole: it allocates the full canvas (a grid's or
    /// overlay's output size, from its item data, even where `ispe` says less), decodes every tile
    /// reference into it, converts it to interleaved RGB(A), and libvips reads rows from that.
    /// Measured on 8-bit 4:2:0 grids of 1638×1638 tiles: 6.0 B/px (3×3: 213 MB peak; 6×6: 606 MB;
    /// 10×10: 1.59 GB). Modelled per pixel as the YCbCr canvas (1.5 samples at 4:2:0, 3 at 4:4:4),
    /// an alpha plane, and the RGB(A) output with the conversion's intermediate (1.5 × bands),
    /// × 2 bytes above 8 bits; plus, for a grid, one decoded tile and its reference picture. The largest
    /// picture the file shows counts (a collection's pages are decoded one at a time).
    static func heif(_ pictures: [HEIFItems.Picture], info: MediaInfo) -> DecodeMemory {
        let fallback = HEIFItems.Picture(itemID: 0, type: "image", width: info.width ?? 0, height: info.height ?? 0,
                                         tileReferences: 1, distinctTiles: 1, tileWidth: info.width ?? 0, tileHeight: info.height ?? 0,
                                         bitDepth: info.bitDepth ?? 8, samplesPerPixel: 1.5, hasAlpha: info.hasAlpha ?? false)
        var candidates = pictures.filter { $0.width > 0 && $0.height > 0 }
        // libvips reports the primary picture's size; a canvas from the items is never smaller.
        if candidates.isEmpty { candidates = [fallback] }
        let costs = candidates.map { picture -> (HEIFItems.Picture, Int64) in (picture, heifBytes(picture)) }
        let (picture, bytes) = costs.max { $0.1 < $1.1 }!
        return DecodeMemory(fixedBytes: bytes, basis: heifBasis(picture))
    }

    static func heifBytesPerPixel(_ picture: HEIFItems.Picture) -> Double {
        let sampleBytes = picture.bitDepth > 8 ? 2.0 : 1.0
        let bands = picture.hasAlpha ? 4.0 : 3.0
        return sampleBytes * (picture.samplesPerPixel + (picture.hasAlpha ? 1 : 0) + 1.5 * bands)
    }

    private static func heifBytes(_ picture: HEIFItems.Picture) -> Int64 {
        let sampleBytes = picture.bitDepth > 8 ? 2.0 : 1.0
        // A derived picture's tiles are decoded one by one beside the canvas (a coded picture is its own canvas).
        let tiled = picture.tileReferences > 1 || picture.type == "grid" || picture.type == "iovl"
        let tile = tiled ? Double(picture.tileWidth) * Double(picture.tileHeight) * picture.samplesPerPixel * sampleBytes * 2 : 0
        return Int64(min(Double(picture.pixels) * heifBytesPerPixel(picture) + tile, Double(Int64.max / 4)))
    }

    private static func heifBasis(_ p: HEIFItems.Picture) -> String {
        let format = "\(p.bitDepth)-bit\(p.hasAlpha ? " with alpha" : ""), \(DecodeMemory.format(heifBytesPerPixel(p))) B/px"
        guard p.tileReferences > 1 || p.type == "grid" || p.type == "iovl" else {
            return "HEIF image \(p.width)×\(p.height) decoded whole by libheif, \(format)"
        }
        let reuse = p.distinctTiles < p.tileReferences
            ? "\(p.tileReferences) references to \(p.distinctTiles) distinct tile\(p.distinctTiles == 1 ? "" : "s")"
            : "\(p.tileReferences) tiles"
        return "HEIF \(p.type) of \(reuse) of \(p.tileWidth)×\(p.tileHeight) → \(p.width)×\(p.height) canvas decoded whole by libheif, \(format)"
    }

    /// GIF: libnsgif decodes each frame into an RGBA bitmap of the picture's size, and libvips
    /// copies it out (measured: 4.2 B/px over the process baseline for a 36 Mpx GIF decoded
    /// whole, 6.9 B/px for its thumbnail): 8 B/px. Frames are decoded one at a time; GIF has no
    /// shrink-on-load.
    static func gif(_ info: MediaInfo) -> DecodeMemory {
        let width = info.width ?? 0, height = info.height ?? 0
        return DecodeMemory(fixedBytes: Int64(width) * Int64(height) * 8,
                            basis: "GIF \(width)×\(height) frame decoded whole by libnsgif, 8 B/px")
    }

    /// WebP: lossy pictures are decoded a macroblock row at a time into libwebp's output, which
    /// libvips takes at the scaled size (shrink-on-load) and copies: 8 B per loaded pixel
    /// (measured: 8.0 B/px for a 6000×6000 WebP decoded at full size). A lossless picture is
    /// decoded whole first, as ARGB (4 B/px: back-references reach anywhere above; measured,
    /// 6000×6000 of noise peaks 150 MiB above the lossy one); an alpha plane is decoded whole
    /// (1 B/px); an animation keeps the canvas and the previous frame (8 B/px).
    static func webp(_ header: WebPHeader, info: MediaInfo) -> DecodeMemory {
        let width = header.width > 0 ? header.width : info.width ?? 0
        let height = header.height > 0 ? header.height : info.height ?? 0
        let pixels = Int64(width) * Int64(height)
        var perPixel: Int64 = 0
        var parts: [String] = []
        if header.lossless { perPixel += 4; parts.append("lossless ARGB 4 B/px") }
        if header.alpha, !header.lossless { perPixel += 1; parts.append("alpha plane 1 B/px") }
        if header.animated { perPixel += 8; parts.append("animation canvas and previous frame 8 B/px") }
        let held = parts.isEmpty ? "lossy, streamed" : parts.joined(separator: ", ")
        return DecodeMemory(fixedBytes: pixels * perPixel, bytesPerLoadedPixel: 8,
                            basis: "WebP \(width)×\(height): \(held); RGBA output and copy at the loaded size 8 B/px")
    }

    /// Pictures FFmpeg decodes (BMP, 12-bit JPEG, JPEG XL, HEIF/AVIF sequences, APNG): whole
    /// frames in the decoder's pixel format, the frames it keeps as references (a sequence's
    /// reference pictures, APNG's previous frame for blending) plus the one being decoded and one
    /// in the buffer pool; libjxl works in 32-bit float (12 B/px). Then each kept frame is scaled
    /// to 8-bit RGBA at the loaded size (4 B/px) and gathered (``FFmpegPictureReader``).
    static func ffmpegPicture(_ info: MediaInfo, references: Int, keptFrames: Int) -> DecodeMemory {
        let width = info.width ?? 0, height = info.height ?? 0
        let native = info.container == .jxl ? 12 : pixelBytes(info.pixelFormat, bitDepth: info.bitDepth)
        let frames = references + 2
        let bytes = Double(width) * Double(height) * native * Double(frames)
        return DecodeMemory(fixedBytes: Int64(min(bytes, Double(Int64.max / 4))), bytesPerLoadedPixel: 4 * Double(max(1, keptFrames) + 1),
                            basis: "\(info.container) \(width)×\(height) decoded whole by FFmpeg: \(frames) frames × \(DecodeMemory.format(native)) B/px")
    }

    // MARK: Video

    /// Frames an FFmpeg video decoder may hold as references: H.264 and HEVC up to 16 (both
    /// standards cap the decoded picture buffer at 16 frames), VP9 and AV1 8 (reference slots),
    /// VP8 3 (last, golden, altref), MPEG-1/2/4 and H.263 2 (forward, backward), intra-only
    /// codecs none. An unknown codec is taken at 16.
    static func references(of codec: Codec?) -> Int {
        switch codec ?? .unidentified {
        case .h264, .hevc: return 16
        case .vp9, .av1: return 8
        case .vp8: return 3
        case .mpeg1video, .mpeg2video, .mpeg4, .h263, "msmpeg4v2", "msmpeg4v3", "wmv1", "wmv2", "wmv3", "vc1", "theora", "flv1":
            return 2
        case .mjpeg, .png, "prores", "dnxhd", "rawvideo", .gif, .bmp, "jpeg2000", "ffv1", "qtrle", "huffyuv", "utvideo":
            return 0
        default: return 16
        }
    }

    /// Threads an FFmpeg codec runs with: `threads`, or for "auto" the core count (FFmpeg's
    /// decoders stop at 16 automatic threads).
    static func threads(_ threads: Int?) -> Int {
        threads ?? max(1, min(16, SystemProcess.processorCount))
    }

    /// Pixels the decoded picture buffer may hold at the highest level: H.264 level 6.2's
    /// MaxDpbMbs (696,320 macroblocks of 256 px), HEVC level 6.2's 6 pictures of MaxLumaPs
    /// (35,651,584 px; smaller pictures get more, up to 16, for about the same total). Large
    /// pictures therefore hold fewer references: 8K H.264 at most 6.
    static func referencePixelLimit(of codec: Codec?) -> Double? {
        switch codec ?? .unidentified {
        case .h264: return 696_320 * 256
        case .hevc: return 6 * 35_651_584
        default: return nil
        }
    }

    /// The decoded picture buffer the stream's level allows at its picture size: H.264 Table A-1's
    /// MaxDpbMbs over the picture's macroblocks (at most 16), HEVC's maxDpbSize (H.265 A.4.2: 6
    /// pictures of MaxLumaPs, Table A.8, and up to 16 when the picture is a quarter of it or less).
    /// A 4K HEVC clip at level 5.1 (an iPhone's) holds 6 references, not 16. `nil` when the level
    /// is unknown, or the picture is larger than the level allows (the level is then not to be
    /// believed). A stream may still use more than its level allows; FFmpeg does not refuse it, so
    /// this is an estimate for honest files: hostile ones are bounded by the worker's memory limit.
    static func levelReferences(of codec: Codec?, level: Int, width: Int, height: Int) -> Int? {
        switch codec ?? .unidentified {
        case .h264:
            guard let maxDpbMbs = h264MaxDpbMbs[level] else { return nil }
            let macroblocks = ((width + 15) / 16) * ((height + 15) / 16)
            guard macroblocks > 0, maxDpbMbs / macroblocks >= 1 else { return nil }
            return min(16, maxDpbMbs / macroblocks)
        case .hevc:
            guard let maxLumaPs = hevcMaxLumaPs[level] else { return nil }
            let pixels = width * height
            guard pixels > 0, pixels <= maxLumaPs else { return nil }
            if pixels <= maxLumaPs >> 2 { return 16 }
            if pixels <= maxLumaPs >> 1 { return 12 }
            if pixels <= (3 * maxLumaPs) >> 2 { return 8 }
            return 6
        default:
            return nil
        }
    }

    /// H.264 Table A-1, MaxDpbMbs by `level_idc` (9 is level 1b).
    static let h264MaxDpbMbs: [Int: Int] = [
        9: 396, 10: 396, 11: 900, 12: 2_376, 13: 2_376, 20: 2_376, 21: 4_752, 22: 8_100, 30: 8_100, 31: 18_000,
        32: 20_480, 40: 32_768, 41: 32_768, 42: 34_816, 50: 110_400, 51: 184_320, 52: 184_320, 60: 696_320,
        61: 696_320, 62: 696_320,
    ]

    /// H.265 Table A.8, MaxLumaPs by `general_level_idc` (30 × the level number).
    static let hevcMaxLumaPs: [Int: Int] = [
        30: 36_864, 60: 122_880, 63: 245_760, 90: 552_960, 93: 983_040, 120: 2_228_224, 123: 2_228_224,
        150: 8_912_896, 153: 8_912_896, 156: 8_912_896, 180: 35_651_584, 183: 35_651_584, 186: 35_651_584,
    ]

    /// Bytes of one decoded picture of `info`'s video: width × height × ``pixelBytes(_:bitDepth:)``;
    /// 0 without a size.
    static func frameBytes(of info: MediaInfo) -> Double {
        guard let width = info.width, let height = info.height, width > 0, height > 0 else { return 0 }
        return Double(width) * Double(height) * pixelBytes(info.pixelFormat, bitDepth: info.bitDepth)
    }

    /// A video decoder: the frame size in its pixel format × (references + one frame per decoding
    /// frame thread + the frame being output and one in FFmpeg's buffer pool). Large pictures
    /// (4K 10-bit and up) are decoded with one frame thread (``DecoderBudget/frameThreads(_:frameBytes:)``).
    static func videoDecoder(_ info: MediaInfo, threads: Int) -> DecodeMemory? {
        guard let width = info.width, let height = info.height, width > 0, height > 0 else { return nil }
        let native = pixelBytes(info.pixelFormat, bitDepth: info.bitDepth)
        let threads = DecoderBudget.frameThreads(threads, frameBytes: frameBytes(of: info))
        var referenceFrames = references(of: info.codec)
        if let limit = referencePixelLimit(of: info.codec) {
            referenceFrames = min(referenceFrames, Int((limit / (Double(width) * Double(height))).rounded(.up)))
        }
        if let level = info.level, let byLevel = levelReferences(of: info.codec, level: level, width: width, height: height) {
            referenceFrames = min(referenceFrames, byLevel)
        }
        let frames = referenceFrames + max(1, threads) + 2
        let bytes = Double(width) * Double(height) * native * Double(frames)
        return DecodeMemory(fixedBytes: Int64(min(bytes, Double(Int64.max / 4))),
                            basis: "\(info.codec?.rawValue ?? "video") \(width)×\(height) decoder: \(frames) frames (references, \(max(1, threads)) threads, pool) × \(DecodeMemory.format(native)) B/px")
    }

    /// x264 per output pixel at `threads` threads: its lookahead, B-frames and references with
    /// their half-resolution planes and motion data, and per frame thread one more frame in
    /// flight with its own analysis buffers. Measured (`ffmpeg -threads 1 -i` a 4 s 1080p VP9 clip
    /// `-c:v libx264 -preset veryfast -threads N -f null -`, peak RSS less the 72 MB of the same
    /// decode alone): 76, 101, 112, 123, 143, 165, 209 and 254 B/px at 1, 2, 3, 4, 6, 8, 12 and
    /// 16 threads, so 11 B/px a thread from 2 on; 84 + 11 per thread is at or above each (106 at
    /// 2 threads, what `attachkit prepare` of a 1080p VP9 clip measured).
    static func encoderBytesPerPixel(threads: Int) -> Double {
        84 + 11 * Double(max(1, threads))
    }

    /// x264's threads beyond which a job does not go unless it sets its threads itself: x264's
    /// own choice is 1.5 × the cores, 24 on 16 cores, 750 MB at 1080p by the figures above, while
    /// its frame threads stop paying well before that at these sizes.
    static let maxEncoderThreads = 8

    /// The threads x264 runs with: `threads` when the job sets them (a batch's cores ÷ jobs),
    /// else 1.5 × the cores as x264 would choose (3 on 2 cores), at most ``maxEncoderThreads``.
    static func encoderThreads(_ threads: Int?) -> Int {
        threads.map { max(1, $0) } ?? max(1, min(maxEncoderThreads, SystemProcess.processorCount * 3 / 2))
    }

    /// Float RGB frames the HDR tone-mapping graph (``ToneMapper``) holds at the output size: two
    /// (zscale's and tonemap's, gbrpf32le, 12 B/px each).
    static let toneMappingBytesPerPixel = 24.0

    /// The transcode path: the decoder at `threads`, then x264 at the output size with
    /// `encoderThreads` (default `threads`), and the tone-mapping graph for HDR input.
    ///
    /// Measured on a 3 s 4K HDR10 clip (HEVC Main 10, level 5, 3840×2160 PQ, x265) prepared for
    /// `ios` with `--max-bytes 2MB` (a 1080p x264 veryfast transcode, tone-mapped), 2 cores:
    /// peak RSS 526 MiB (`/usr/bin/time -v`), 447 MiB once the process baseline with x264 and
    /// libavfilter loaded (80 MiB) is taken off; the estimate is 479 MiB (decoder 9 frames × 24.9
    /// MB at one frame thread, x264 110 B/px and the graph 24 B/px at 1080p), within the 512 MiB
    /// `maxDecodeBytes`. Before (2 decoder frame threads, a third float picture) it peaked at
    /// 624 MiB. `ffmpeg -i in.mp4 -vf <the same graph at 1080p> -c:v libx264 -preset veryfast`
    /// peaks at 616 MiB (536 MiB with `-threads 1` on the input).
    static func transcode(_ info: MediaInfo, threads: Int, encoderThreads: Int? = nil, output: (width: Int, height: Int)) -> DecodeMemory? {
        guard var memory = videoDecoder(info, threads: threads) else { return nil }
        let perPixel = encoderBytesPerPixel(threads: encoderThreads ?? threads)
        memory.fixedBytes += Int64(Double(output.width) * Double(output.height) * perPixel)
        memory.basis += "; x264 \(output.width)×\(output.height): \(DecodeMemory.format(perPixel)) B/px"
        if info.hdr != nil {
            // The tone-mapping graph (ToneMapper) holds float RGB frames (gbrpf32le, 12 B/px) at the
            // output size between its stages: two at a time.
            memory.fixedBytes += Int64(Double(output.width) * Double(output.height) * toneMappingBytesPerPixel)
            memory.basis += "; tone mapping: \(DecodeMemory.format(toneMappingBytesPerPixel)) B/px"
        }
        return memory
    }

    /// Bytes per pixel of an FFmpeg pixel format, from its name: the layout (`yuv420p` 1.5,
    /// `yuv422p` 2, `yuv444p`/`gbrp`/`rgb24` 3, `rgba` 4, `rgb48` 6, `rgba64` 8, `gray` 1...) and
    /// 2 bytes per sample for deeper formats (`yuv420p10le`); 4 when unknown.
    static func pixelBytes(_ format: String?, bitDepth: Int?) -> Double {
        guard let name = format?.lowercased(), !name.isEmpty else { return (bitDepth ?? 8) > 8 ? 8 : 4 }
        if let packed = packedPixelBytes[name] { return packed }
        guard let layout = planarLayouts.first(where: { name.hasPrefix($0.prefix) }) else { return 4 }
        // What follows the layout gives the sample depth: `yuv420p10le`, `gray16be`, `ya8`.
        let depth = Int(String(name.dropFirst(layout.prefix.count).prefix { $0.isNumber })) ?? 8
        return layout.samples * (layout.deep || depth > 8 ? 2 : 1)
    }

    private static let packedPixelBytes: [String: Double] = [
        "rgba64le": 8, "rgba64be": 8, "bgra64le": 8, "bgra64be": 8, "rgb48le": 6, "rgb48be": 6, "bgr48le": 6, "bgr48be": 6,
        "rgba": 4, "bgra": 4, "argb": 4, "abgr": 4, "rgb0": 4, "bgr0": 4, "0rgb": 4, "0bgr": 4, "rgb24": 3, "bgr24": 3,
        "pal8": 1, "monob": 1, "monow": 1, "rgb8": 1, "bgr8": 1, "yuyv422": 2, "uyvy422": 2, "nv12": 1.5, "nv21": 1.5,
        "nv16": 2, "nv24": 3,
    ]

    /// Planar layouts, most specific first: samples per pixel, and whether the format is always
    /// deeper than 8 bits (`p010`: 10-bit 4:2:0 in 16-bit words).
    private static let planarLayouts: [(prefix: String, samples: Double, deep: Bool)] = [
        ("yuva444p", 4, false), ("gbrap", 4, false), ("yuva422p", 3, false), ("yuva420p", 2.5, false),
        ("yuvj444p", 3, false), ("yuv444p", 3, false), ("gbrp", 3, false), ("yuvj440p", 2, false), ("yuv440p", 2, false),
        ("yuvj422p", 2, false), ("yuv422p", 2, false), ("yuvj420p", 1.5, false), ("yuv420p", 1.5, false),
        ("yuvj411p", 1.5, false), ("yuv411p", 1.5, false), ("yuv410p", 1.125, false),
        ("p010", 1.5, true), ("p016", 1.5, true), ("p210", 2, true), ("p216", 2, true), ("p410", 3, true), ("p416", 3, true),
        ("gray", 1, false), ("ya", 2, false),
    ]
}
