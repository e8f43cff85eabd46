/// A video stream's colour description as ITU-T H.273 code points (the numbering FFmpeg's
/// `AVColorSpace`, `AVColorPrimaries` and `AVColorTransferCharacteristic` use; 2 = unspecified),
/// plus the range of its YUV samples.
///
/// AttachKit re-encodes video without changing its colours: the output carries the source's
/// matrix, primaries and transfer, tagged explicitly (``resolved(height:)`` fills in what an
/// untagged source leaves to the player), in limited range (``encodedOutput(height:)``). So
/// libswscale never converts between matrices on the way to the encoder; it only resamples, and
/// turns full-range input into limited range.
struct VideoColour: Sendable, Equatable {
    /// Matrix coefficients (1 BT.709, 5 BT.470BG, 6 SMPTE 170M (BT.601), 9 BT.2020...).
    var matrix: Int
    /// Colour primaries (1 BT.709, 5 BT.470BG, 6 SMPTE 170M, 9 BT.2020...).
    var primaries: Int
    /// Transfer characteristics (1 BT.709, 6 SMPTE 170M, 16 PQ, 18 HLG...).
    var transfer: Int
    /// Full-range (0...255, JPEG-style) samples rather than limited (16...235 luma). Default `false`.
    var fullRange = false

    static let unspecified = VideoColour(matrix: Code.unspecified, primaries: Code.unspecified, transfer: Code.unspecified)

    /// The H.273 code points AttachKit names.
    enum Code {
        static let bt709 = 1
        static let unspecified = 2
        static let bt470bg = 5
        static let smpte170m = 6
    }

    /// Matrices libswscale converts with (`sws_getCoefficients`): BT.709, FCC, BT.470BG,
    /// SMPTE 170M, SMPTE 240M, BT.2020 (non-constant and constant luminance).
    private static let matricesTheScalerKnows: Set<Int> = [1, 4, 5, 6, 7, 9, 10]

    /// This description with every unspecified (or, for the matrix, unusable) field set to what
    /// players assume for untagged video of this height: BT.709 from 720 lines up, BT.601
    /// (SMPTE 170M) below, as Apple's players and most others do. A source tagged RGB (matrix 0,
    /// `gbrp`) gets the same YUV matrix, since the output is YUV.
    func resolved(height: Int) -> VideoColour {
        let hd = height >= 720
        var resolved = self
        if !Self.matricesTheScalerKnows.contains(matrix) { resolved.matrix = hd ? Code.bt709 : Code.smpte170m }
        if primaries == Code.unspecified || primaries == 0 || primaries == 3 { resolved.primaries = hd ? Code.bt709 : Code.smpte170m }
        if transfer == Code.unspecified || transfer == 0 || transfer == 3 { resolved.transfer = hd ? Code.bt709 : Code.smpte170m }
        return resolved
    }

    /// What an H.264/HEVC output of a source with this description carries: the same matrix,
    /// primaries and transfer (resolved for `height`, the source's), in limited range (full-range
    /// input is converted; every iOS decoder takes limited range).
    func encodedOutput(height: Int) -> VideoColour {
        var output = resolved(height: height)
        output.fullRange = false
        return output
    }
}
