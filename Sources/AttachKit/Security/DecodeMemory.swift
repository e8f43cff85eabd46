/// What decoding one picture costs in memory, estimated from its header before any pixel is
/// decoded (``DecodeMemoryEstimator`` computes it, ``SafetyLimits/maxDecodeBytes`` caps it).
///
/// The cost has two parts, because shrink-on-load shrinks only one of them:
/// - ``fixedBytes``: what the decoder holds whatever size the picture is loaded at: the whole
///   canvas of a decoder that cannot stream (libheif, an interlaced PNG, a progressive JPEG's
///   coefficients, a GIF frame), or the row window of one that streams (a baseline JPEG, a
///   non-interlaced PNG, TIFF strips).
/// - ``bytesPerLoadedPixel``: buffers at the size the picture is loaded at (libwebp's output,
///   FFmpeg's scaled frames): loading it smaller makes them smaller.
///
/// Process overhead (the libraries themselves, ~55 MB resident) is not part of the estimate.
public struct DecodeMemory: Sendable, Equatable, CustomStringConvertible {
    /// Bytes held whatever the load size.
    public var fixedBytes: Int64
    /// Bytes per pixel of the picture as loaded (after shrink-on-load).
    public var bytesPerLoadedPixel: Double
    /// Where the estimate comes from, for messages ("HEIF grid 10×10 ... × 6.0 B/px").
    public var basis: String

    public init(fixedBytes: Int64, bytesPerLoadedPixel: Double = 0, basis: String) {
        self.fixedBytes = max(0, fixedBytes)
        self.bytesPerLoadedPixel = max(0, bytesPerLoadedPixel)
        self.basis = basis
    }

    /// The estimate when the picture is loaded at `loadedPixels` (width × height, all frames kept).
    public func bytes(loadedPixels: Int64) -> Int64 {
        let scaled = Double(max(0, loadedPixels)) * bytesPerLoadedPixel
        return fixedBytes &+ Int64(min(scaled, Double(Int64.max / 2)))
    }

    /// The most pixels the picture may be loaded at for the estimate to stay within `budget`;
    /// `nil` when no load size scales (``bytesPerLoadedPixel`` is 0: only ``fixedBytes`` counts).
    /// 0 when even ``fixedBytes`` is over.
    public func largestLoad(within budget: Int64) -> Int64? {
        guard bytesPerLoadedPixel > 0 else { return nil }
        guard budget > fixedBytes else { return 0 }
        return Int64(Double(budget - fixedBytes) / bytesPerLoadedPixel)
    }

    public var description: String {
        bytesPerLoadedPixel > 0
            ? "\(DecodeMemory.megabytes(fixedBytes)) + \(DecodeMemory.format(bytesPerLoadedPixel)) B per loaded pixel (\(basis))"
            : "\(DecodeMemory.megabytes(fixedBytes)) (\(basis))"
    }

    /// `536,870,912` → `"512 MiB"`; one decimal below 10 MiB.
    static func megabytes(_ bytes: Int64) -> String {
        let value = Double(bytes) / 1_048_576
        return value < 10 ? "\(format(value)) MiB" : "\(Int(value.rounded())) MiB"
    }

    /// A factor with at most one decimal (`6.0`, `0.5`, `128`).
    static func format(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths >= 100 ? String(Int(tenths)) : String(tenths)
    }
}
