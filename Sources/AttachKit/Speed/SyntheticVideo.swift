/// The picture the speed calibration encodes, made in memory: smooth structure (a diagonal
/// gradient under vertical bars) seen through a window that pans along a slow figure of eight,
/// so every frame moves. Filling a frame is one row copy per row (cheap even in a debug build).
///
/// No grain: measured on this machine (CPU seconds, 2026-11-30), x264 spends per pixel on this
/// picture what it spends on the harness's 1080p VP9 clips (`testsrc2` + `noise=alls=8`, which
/// VP9 at 8 Mb/s smooths): `veryfast` 45 vs 48 Mpx per CPU-second, `superfast` 92 vs 83,
/// `ultrafast` 165 vs 165. With ±1 level of grain changing every frame `veryfast` fell to 29.
///
/// With ``grain`` (the sources whose decoding is timed): luma grain of ±``grainLevel`` that
/// changes every frame, so the encoders spend their bits as on filmed media. Decoding cost follows
/// the bits: without grain the VP9 sample decoded at 600–780 Mpx/s, a filmed-like clip at 8 Mb/s
/// (the harness's, `noise=alls=8`) at 220–260.
struct SyntheticVideo {
    let width: Int
    let height: Int
    /// Pixels of slack around the picture the window pans over (luma; half for chroma).
    static let pan = 32
    /// Grained luma planes cycled through (each frame takes the next).
    static let grainPlanes = 5
    /// Largest grain added to or taken from a luma value.
    static let grainLevel = 8
    private let luma: [[UInt8]]
    private let chroma: [UInt8]

    /// - Parameters:
    ///   - width, height: even sizes (4:2:0).
    ///   - grain: luma grain changing every frame (``grainLevel``). Default `false`.
    init(width: Int, height: Int, grain: Bool = false) {
        self.width = width
        self.height = height
        let base = Self.plane(width: width + 2 * Self.pan, height: height + 2 * Self.pan, scale: 1)
        luma = grain ? (0..<Self.grainPlanes).map { Self.grained(base, seed: UInt32($0) &* 2_654_435_761 &+ 1) } : [base]
        chroma = Self.plane(width: width / 2 + Self.pan, height: height / 2 + Self.pan, scale: 2)
    }

    /// Fills `frame` (buffers allocated here) with picture `index`.
    /// - Throws: ``FFmpegError`` when the buffers cannot be allocated.
    func draw(_ index: Int, into frame: borrowing AVFrameBuffer) throws(FFmpegError) {
        try frame.allocatePicture(width: width, height: height)
        let x = Self.pan + Int((Double(Self.pan - 1) * sin(Double(index) * 0.07)).rounded())
        let y = Self.pan + Int((Double(Self.pan - 1) * sin(Double(index) * 0.13)).rounded())
        let lumaStride = width + 2 * Self.pan
        luma[index % luma.count].withUnsafeBufferPointer { plane in
            frame.fill(plane: 0, rows: height, rowBytes: width, from: plane.baseAddress! + y * lumaStride + x, sourceStride: lumaStride)
        }
        let chromaStride = width / 2 + Self.pan
        chroma.withUnsafeBufferPointer { plane in
            let start = plane.baseAddress! + (y / 2) * chromaStride + x / 2
            frame.fill(plane: 1, rows: height / 2, rowBytes: width / 2, from: start, sourceStride: chromaStride)
            frame.fill(plane: 2, rows: height / 2, rowBytes: width / 2, from: start + 7, sourceStride: chromaStride)
        }
    }

    /// `plane` with uniform grain in -``grainLevel``...``grainLevel`` added (a xorshift from `seed`).
    private static func grained(_ plane: [UInt8], seed: UInt32) -> [UInt8] {
        var state = max(1, seed)
        let span = UInt32(2 * grainLevel + 1)
        return plane.map { value in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(clamping: Int(value) + Int(state % span) - grainLevel)
        }
    }

    /// One plane: a diagonal gradient (48...168) with bars of +40 every 240 picture pixels.
    private static func plane(width: Int, height: Int, scale: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                for column in 0..<width {
                    let bar = ((column * scale) / 240) % 2 == 0 ? 40 : 0
                    out[row * width + column] = UInt8(clamping: 48 + ((column + row) * 120) / (width + height) + bar)
                }
            }
        }
        return pixels
    }
}
