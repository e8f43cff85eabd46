/// How many pixels a GIF image's LZW data give, counted without making them: the code stream is
/// read as a GIF decoder reads it (variable-width codes, least significant bit first, clear and
/// end-of-information codes, the table capped at 4096 entries with a deferred clear) while only
/// the length of each table entry is kept, so the count costs one pass and 8 KiB whatever the
/// image's size.
///
/// A decoder that runs out of data, or meets a code it cannot know, stops there and shows the rest
/// of the image as background (libnsgif, libvips) or refuses it (FFmpeg, ImageMagick): data that
/// give fewer pixels than the image's width × height are a truncated image, whatever the blocks
/// around them say.
struct GIFLZWCount {
    private let codeSize: Int
    private var lengths = [UInt16](repeating: 0, count: 4096)
    private var next = 0
    private var width = 0
    private var previous: Int?
    private var bits: UInt32 = 0
    private var bitCount = 0
    /// Pixels the codes read so far give.
    private(set) var pixels = 0
    /// Whether the end-of-information code, or a code no decoder knows, ended the stream.
    private(set) var ended = false

    /// - Parameter codeSize: the image's LZW minimum code size (2...12).
    init(codeSize: Int) {
        self.codeSize = codeSize
        for code in 0..<(1 << codeSize) { lengths[code] = 1 }
        reset()
    }

    private var clear: Int { 1 << codeSize }

    private mutating func reset() {
        next = clear + 2
        width = codeSize + 1
        previous = nil
    }

    /// Reads the codes in `bytes` (one data sub-block, its length byte left out), stopping once
    /// `enough` pixels are counted.
    mutating func read(_ bytes: some Sequence<UInt8>, enough: Int) {
        for byte in bytes {
            guard !ended, pixels < enough else { return }
            bits |= UInt32(byte) << UInt32(bitCount)
            bitCount += 8
            while bitCount >= width, !ended, pixels < enough {
                let code = Int(bits & ((1 << UInt32(width)) - 1))
                bits >>= UInt32(width)
                bitCount -= width
                take(code)
            }
        }
    }

    private mutating func take(_ code: Int) {
        if code == clear { reset(); return }
        if code == clear + 1 { ended = true; return }
        guard let prior = previous else {
            // The first code after a clear must be a root (a single colour index).
            guard code < clear else { ended = true; return }
            pixels += 1
            previous = code
            return
        }
        let length: Int
        if code < next {
            length = Int(lengths[code])
        } else if code == next {
            length = Int(lengths[prior]) + 1
        } else {
            ended = true  // A code past the table: every decoder stops here.
            return
        }
        pixels += length
        if next < 4096 {
            lengths[next] = UInt16(min(Int(UInt16.max), Int(lengths[prior]) + 1))
            next += 1
            if next == 1 << width, width < 12 { width += 1 }
        }
        previous = code
    }
}
