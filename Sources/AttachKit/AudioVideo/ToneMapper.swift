/// Turns HDR pictures (PQ, HLG) into SDR BT.709 in limited range, 8-bit 4:2:0, resized on the way,
/// with one libavfilter graph (``AVVideoFilter``), like `ffmpeg`'s well-known recipe:
///
///     zscale=w=W:h=H:tin=…:min=…:pin=…:rin=…:t=linear:npl=100:m=…:p=bt709:r=…,format=gbrpf32le,
///     tonemap=mobius:param=0.5:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p
///
/// (`ffmpeg`'s recipe converts the primaries in a zscale step of their own; here the first step
/// does it, in linear light as zimg always does, which saves one float picture.)
/// Any size converts, down to 1 × 1: zimg (zscale) refuses a subsampled picture whose sides are
/// not whole chroma samples ("image dimensions must be divisible by subsampling factor"), so an
/// odd-sized 4:2:0 frame is first upsampled to 4:4:4 (`format=yuv444p16le`, libswscale: no
/// matrix change), and an odd-sized output is 8-bit 4:4:4 (`yuv444p`) instead of 4:2:0. Video
/// encodes always ask for even sizes (``VideoGeometry``); poster frames may be odd.
///
/// Each frame is converted by its own tags: a clip whose transfer changes mid-stream (an SDR
/// segment joined to a PQ one) gets a new graph when a frame's tags change, and a frame tagged
/// SDR is left untouched even in a stream the container calls HDR (``frameFormat(_:stream:)``).
///
/// The picture is linearised with 100 cd/m² as SDR's 1.0 (`npl=100`), converted to BT.709
/// primaries in linear light, tone-mapped, and encoded with the BT.709 transfer. The peak the curve
/// maps to 1.0 is the frames' content light level (MaxCLL), else their mastering display's peak,
/// else 1000 cd/m² (`tonemap`'s own choice). Resizing happens in the first step, so the float
/// pictures (12 bytes a pixel; two at a time: zscale's and tonemap's) are never larger than the
/// output. It costs CPU: about 60 ms of one
/// core per 1080p frame here (`ffmpeg` with the same graph, 50 frames), on top of decoding and
/// encoding; the graph runs on the calling thread like the rest of a clip's work.
///
/// The curve is Möbius with its linear part up to 0.5 (`param=0.5`), not Hable: measured on
/// TestMedia's HDR fixtures (an SDR picture put into PQ with MaxCLL 1000 and into HLG, white at
/// 100 cd/m²), Hable leaves the mean level 31 % under the SDR original's (83.7 against 121.9),
/// Möbius 6 % (114.8 and 114.6); with white at the BT.2408 reference, 203 cd/m², Möbius lands
/// within 2 % and Hable 18 % under. Möbius keeps everything up to half of SDR white unchanged
/// and rolls off the highlights above it.
struct ToneMapper: ~Copyable {
    /// The HDR format the frames are in; `nil` = SDR, frames are not touched.
    let format: HDRInfo.Format?
    /// The size frames come out at.
    let width: Int
    let height: Int
    /// The HDR format of the first frame tone-mapped so far; `nil` while none was (a stream whose
    /// first frames are SDR may turn HDR later: the note then comes from here).
    private(set) var mapped: HDRInfo.Format?
    private var filter: AVVideoFilter?
    /// What ``filter`` was built for: the frames' shape and the graph's description (which
    /// carries their colour tags).
    private var built: (input: AVVideoFilter.Input, graph: String)?

    /// What frames come out tagged as: BT.709 matrix, primaries and transfer, limited range.
    static let output = VideoColour(matrix: VideoColour.Code.bt709, primaries: VideoColour.Code.bt709,
                                    transfer: VideoColour.Code.bt709)
    /// The tone curve, as notes name it.
    static let curve = "mobius"

    /// - Parameters:
    ///   - hdr: the stream's dynamic range (``AVInput/hdr(of:)``); `nil` for SDR.
    ///   - width, height: the size frames come out at.
    /// - Throws: ``PrepareError/unsupported(reason:)`` for Dolby Vision without a compatible base
    ///   layer (profile 5), whose colours FFmpeg 5.1 cannot reconstruct.
    init(hdr: HDRInfo?, width: Int, height: Int) throws(PrepareError) {
        if let hdr, hdr.format == .dolbyVision {
            throw .unsupported(reason: "\(hdr.summary) has no HDR10, HLG or SDR base layer: its colours need Dolby's "
                + "reshaping, which FFmpeg 5.1 cannot apply, so it can be neither shown nor converted here")
        }
        format = hdr?.format
        self.width = width
        self.height = height
    }

    /// What happened to the dynamic range of an HDR picture (`nil` for SDR): "HDR (PQ) kept" (a
    /// passthrough or stream copy), or "HDR (HLG) tone-mapped to SDR BT.709 (mobius)".
    static func note(_ hdr: HDRInfo?, toneMapped: Bool) -> String? {
        guard let hdr else { return nil }
        return toneMapped ? "HDR (\(hdr.summary)) tone-mapped to SDR BT.709 (\(curve))" : "HDR (\(hdr.summary)) kept"
    }

    /// Tone-maps `source` into `target` (resized to ``width`` × ``height``, tagged ``output``;
    /// 4:2:0 when both sides are even, else 4:4:4), by the frame's own tags
    /// (``frameFormat(_:stream:)``).
    /// - Returns: `false` when the frame is SDR: `target` is left untouched and `source` is the
    ///   picture to use.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/loadLibrary``, ``FFmpegOperation/openFilter``
    ///   or ``FFmpegOperation/filter``.
    mutating func map(_ source: borrowing AVFrameBuffer, into target: borrowing AVFrameBuffer) throws(FFmpegError) -> Bool {
        let colour = source.colour
        guard let format = Self.frameFormat(colour, stream: format) else { return false }
        let shape = AVVideoFilter.Input(source)
        let graph = Self.graph(for: colour, format: format, width: width, height: height, wholeChroma: shape.wholeChroma)
        if built?.input != shape || built?.graph != graph {
            filter = nil
            built = nil
            filter = try AVVideoFilter(graph, input: shape)
            built = (shape, graph)
        }
        try filter?.push(source)
        guard try filter?.pull(into: target) == .frame else {
            throw FFmpegError(operation: .filter, message: "the tone-mapping graph gave no picture for a frame")
        }
        if mapped == nil { mapped = format }
        return true
    }

    /// Transfers that say a frame is SDR whatever its stream says: BT.709, BT.470M, BT.470BG,
    /// SMPTE 170M, SMPTE 240M, sRGB. BT.2020's own (14, 15) are not among them: HLG streams may
    /// signal them for compatibility.
    private static let sdrTransfers: Set<Int> = [1, 4, 5, 6, 7, 13]

    /// The HDR format of one frame: its own transfer tag when that is PQ or HLG (a stream called
    /// SDR by its first frames or its container may turn HDR later); `nil` (SDR, left untouched)
    /// when it is tagged with an SDR transfer; else, untagged, the stream's `stream` format.
    static func frameFormat(_ colour: VideoColour, stream: HDRInfo.Format?) -> HDRInfo.Format? {
        if let own = HDRInfo.format(transfer: colour.transfer, dolbyVision: nil) { return own }
        return sdrTransfers.contains(colour.transfer) ? nil : stream
    }

    /// The graph for frames described by `colour` in `format`: tags the decoder left unspecified
    /// are taken as BT.2020 (every HDR format's container) and the format's own transfer.
    /// `wholeChroma` `false` (odd sides of a subsampled frame, ``AVVideoFilter/Input/wholeChroma``)
    /// upsamples the chroma to 4:4:4 first; an odd `width` or `height` comes out 4:4:4.
    static func graph(for colour: VideoColour, format: HDRInfo.Format, width: Int, height: Int, wholeChroma: Bool = true) -> String {
        let bt2020 = 9
        let transfer = format == .hlg ? HDRInfo.Transfer.hlg : HDRInfo.Transfer.pq
        let matrix = [1, 4, 5, 6, 7, 9, 10].contains(colour.matrix) ? colour.matrix : bt2020
        let primaries = [1, 4, 5, 6, 7, 9, 11, 12].contains(colour.primaries) ? colour.primaries : bt2020
        let range = colour.fullRange ? "pc" : "tv"
        // Output matrix, primaries and range are stated too: zscale takes unstated ones from the
        // frame, and finds no conversion from a frame that carries no tags.
        let upsample = wholeChroma ? "" : "format=yuv444p16le,"
        let output = width.isMultiple(of: 2) && height.isMultiple(of: 2) ? "yuv420p" : "yuv444p"
        return upsample + "zscale=w=\(width):h=\(height):f=bicubic:tin=\(transfer):min=\(matrix):pin=\(primaries):rin=\(range)"
            + ":t=linear:npl=100:m=\(matrix):p=bt709:r=\(range),format=gbrpf32le,"
            + "tonemap=\(curve):param=0.5:desat=0,zscale=t=bt709:m=bt709:r=tv,format=\(output)"
    }
}
