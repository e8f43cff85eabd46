#if canImport(Glibc)
import Glibc
#endif

/// The picture the speed calibration encodes, made in memory: smooth structure (gradients and
/// bars, like FFmpeg's `testsrc2`) panning a few pixels per frame, under grain that changes every
/// frame (like its `noise=alls=8:allf=t`), so x264 spends its time on motion and residual as on
/// the harness's clips rather than on a still or repeating picture.
///
/// ``variants`` planes are drawn once with independent grain; frame `n` is variant `n % variants`
/// seen through a window that moves along a fixed path, so filling a frame is one row copy per
/// row (cheap even in a debug build) and no frame repeats its predecessor.
struct SyntheticVideo {
    let width: Int
    let height: Int
    /// Distinct grain patterns (more than the reference frames of every preset used).
    static let variants = 6
    /// Pixels of slack around the picture the window pans over (luma; half for chroma).
    static let pan = 32
    private let luma: [[UInt8]]
    private let chroma: [[UInt8]]

    /// - Parameter width, height: even sizes (4:2:0).
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        var seed: UInt32 = 0x9E37_79B9
        luma = (0..<Self.variants).map { _ in Self.plane(width: width + 2 * Self.pan, height: height + 2 * Self.pan, scale: 1, seed: &seed) }
        chroma = (0..<Self.variants).map { _ in Self.plane(width: width / 2 + Self.pan, height: height / 2 + Self.pan, scale: 2, seed: &seed) }
    }

    /// Fills `frame` (buffers allocated here) with picture `index`.
    /// - Throws: ``FFmpegError`` when the buffers cannot be allocated.
    func draw(_ index: Int, into frame: borrowing AVFrameBuffer) throws(FFmpegError) {
        try frame.allocatePicture(width: width, height: height)
        let variant = index % Self.variants
        // A slow figure of eight, inside the slack.
        let x = Self.pan + Int((Double(Self.pan - 1) * sin(Double(index) * 0.07)).rounded())
        let y = Self.pan + Int((Double(Self.pan - 1) * sin(Double(index) * 0.13)).rounded())
        let lumaStride = width + 2 * Self.pan
        luma[variant].withUnsafeBufferPointer { plane in
            frame.fill(plane: 0, rows: height, rowBytes: width, from: plane.baseAddress! + y * lumaStride + x, sourceStride: lumaStride)
        }
        let chromaStride = width / 2 + Self.pan
        chroma[variant].withUnsafeBufferPointer { plane in
            let start = plane.baseAddress! + (y / 2) * chromaStride + x / 2
            frame.fill(plane: 1, rows: height / 2, rowBytes: width / 2, from: start, sourceStride: chromaStride)
            frame.fill(plane: 2, rows: height / 2, rowBytes: width / 2, from: start + 7, sourceStride: chromaStride)
        }
    }

    /// One plane: diagonal gradient and vertical bars, plus uniform grain of ±8 levels.
    private static func plane(width: Int, height: Int, scale: Int, seed: inout UInt32) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                for column in 0..<width {
                    seed ^= seed &<< 13
                    seed ^= seed &>> 17
                    seed ^= seed &<< 5
                    let bar = ((column * scale) / 240) % 2 == 0 ? 40 : 0
                    let base = 48 + ((column + row) * scale * 120) / (width * scale + height * scale) + bar
                    let grain = Int(seed & 15) - 8
                    out[row * width + column] = UInt8(clamping: base + grain)
                }
            }
        }
        return pixels
    }
}
