/// Turns HDR pictures (PQ, HLG) into SDR BT.709 in limited range, 8-bit 4:2:0, resized on the way,
/// with one libavfilter graph (``AVVideoFilter``), like `ffmpeg`'s well-known recipe:
///
///     zscale=w=W:h=H:tin=…:min=…:pin=…:rin=…:t=linear:npl=100:m=…:p=…:r=…,format=gbrpf32le,
///     zscale=p=bt709,tonemap=mobius:param=0.5:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p
///
/// The picture is linearised with 100 cd/m² as SDR's 1.0 (`npl=100`), converted to BT.709
/// primaries in linear light, tone-mapped, and encoded with the BT.709 transfer. The peak the curve
/// maps to 1.0 is the frames' content light level (MaxCLL), else their mastering display's peak,
/// else 1000 cd/m² (`tonemap`'s own choice). Resizing happens in the first step, so the float
/// picture (12 bytes a pixel) is never larger than the output. It costs CPU: about 60 ms of one
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
    private var filter: AVVideoFilter?
    /// What ``filter`` was built for.
    private var built: AVVideoFilter.Input?

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

    /// Tone-maps `source` into `target` (resized to ``width`` × ``height``, tagged ``output``).
    /// A frame of a stream ``format`` calls SDR is still tone-mapped when its own transfer tag is
    /// PQ or HLG (a container that leaves the tags to the bitstream).
    /// - Returns: `false` when the frame is SDR: `target` is left untouched and `source` is the
    ///   picture to use.
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/loadLibrary``, ``FFmpegOperation/openFilter``
    ///   or ``FFmpegOperation/filter``.
    mutating func map(_ source: borrowing AVFrameBuffer, into target: borrowing AVFrameBuffer) throws(FFmpegError) -> Bool {
        guard let format = format ?? HDRInfo.format(transfer: source.colour.transfer, dolbyVision: nil) else { return false }
        let shape = AVVideoFilter.Input(source)
        if shape != built {
            filter = nil
            built = nil
            filter = try AVVideoFilter(Self.graph(for: source.colour, format: format, width: width, height: height), input: shape)
            built = shape
        }
        try filter?.push(source)
        guard try filter?.pull(into: target) == .frame else {
            throw FFmpegError(operation: .filter, message: "the tone-mapping graph gave no picture for a frame")
        }
        return true
    }

    /// The graph for frames described by `colour` in `format`: tags the decoder left unspecified
    /// are taken as BT.2020 (every HDR format's container) and the format's own transfer.
    static func graph(for colour: VideoColour, format: HDRInfo.Format, width: Int, height: Int) -> String {
        let bt2020 = 9
        let transfer = format == .hlg ? HDRInfo.Transfer.hlg : HDRInfo.Transfer.pq
        let matrix = [1, 4, 5, 6, 7, 9, 10].contains(colour.matrix) ? colour.matrix : bt2020
        let primaries = [1, 4, 5, 6, 7, 9, 11, 12].contains(colour.primaries) ? colour.primaries : bt2020
        let range = colour.fullRange ? "pc" : "tv"
        // Output matrix, primaries and range are stated too: zscale takes unstated ones from the
        // frame, and finds no conversion from a frame that carries no tags.
        return "zscale=w=\(width):h=\(height):f=bicubic:tin=\(transfer):min=\(matrix):pin=\(primaries):rin=\(range)"
            + ":t=linear:npl=100:m=\(matrix):p=\(primaries):r=\(range),format=gbrpf32le,zscale=p=bt709,"
            + "tonemap=\(curve):param=0.5:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
    }
}
