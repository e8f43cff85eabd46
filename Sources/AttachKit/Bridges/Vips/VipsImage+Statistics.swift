import CZlib
import CVips
#if canImport(Glibc)
import Glibc
#endif

/// Whole-image statistics: each pulls every pixel once.
extension VipsImage {
    /// The smallest value of any band (`vips_min`).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/min``.
    func minimum() throws(VipsError) -> Double {
        var value = 0.0
        guard ak_vips_min(pointer, &value) == 0 else { throw VipsError.take(operation: .min) }
        return value
    }

    /// The largest value of any band (`vips_max`).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/max``.
    func maximum() throws(VipsError) -> Double {
        var value = 0.0
        guard ak_vips_max(pointer, &value) == 0 else { throw VipsError.take(operation: .max) }
        return value
    }

    /// The mean of every band of every pixel (`vips_avg`).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/avg``.
    func average() throws(VipsError) -> Double {
        var value = 0.0
        guard ak_vips_avg(pointer, &value) == 0 else { throw VipsError.take(operation: .avg) }
        return value
    }

    /// Whether the alpha band holds anything but full opacity: an all-opaque alpha (e.g. a PNG
    /// saved as RGBA by habit) carries no transparency worth keeping. `false` without alpha.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/extractBand`` or ``VipsOperation/min``.
    func hasMeaningfulAlpha() throws(VipsError) -> Bool {
        guard hasAlpha else { return false }
        let alpha = try bands(from: bands - 1)
        let opaque: Double = isEightBit ? 255 : 65535
        return try alpha.minimum() < opaque
    }

    /// Distinct pixel values among at most `samples` pixels read on an even grid (nearest
    /// neighbour: sampling invents no colour, unlike a resize), all bands of each pixel together
    /// (at most 4). 8-bit images only; a lazy image is computed into memory first
    /// (`vips_image_get_data`), so call it on pixels already in memory.
    /// - Parameter spacing: pixels between grid points. Default: the spacing that spreads
    ///   `samples` points over this image; a part of a larger picture passes the whole's spacing.
    /// - Throws: ``VipsError`` tagged ``VipsOperation/decode`` when the pixels cannot be had or are
    ///   not 8-bit.
    func distinctColours(samples: Int, spacing: Int? = nil) throws(VipsError) -> (distinct: Int, sampled: Int) {
        guard isEightBit, bands <= 4 else { throw VipsError(operation: .decode, message: "not 8-bit pixels of at most 4 bands") }
        guard let data = vips_image_get_data(pointer) else { throw VipsError.take(operation: .decode) }
        let (w, h, b) = (width, height, bands)
        let step = max(1, spacing ?? Self.gridSpacing(width: w, height: h, samples: samples))
        let bytes = data.assumingMemoryBound(to: UInt8.self)
        var seen = Set<UInt32>(minimumCapacity: min(samples, 1 << 16))
        var sampled = 0
        for y in stride(from: step / 2, to: h, by: step) {
            let row = bytes + y * w * b
            for x in stride(from: step / 2, to: w, by: step) {
                var key: UInt32 = 0
                for band in 0..<b { key = key << 8 | UInt32(row[x * b + band]) }
                seen.insert(key)
                sampled += 1
            }
        }
        return (seen.count, sampled)
    }

    /// Bytes per row of every `step`-th row of the pixels in memory, deflated at zlib level 1
    /// (a quick measure of how much a row holds); `nil` when the pixels cannot be had.
    func compressedRowBytes(every step: Int) -> Double? {
        guard let data = vips_image_get_data(pointer) else { return nil }
        let rowBytes = width * bands * (isEightBit ? 1 : 2)
        let bytes = data.assumingMemoryBound(to: UInt8.self)
        var sampled: [UInt8] = []
        var rows = 0
        for y in stride(from: 0, to: height, by: max(1, step)) {
            sampled.append(contentsOf: UnsafeBufferPointer(start: bytes + y * rowBytes, count: rowBytes))
            rows += 1
        }
        guard rows > 0 else { return nil }
        var size = compressBound(uLong(sampled.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let status = out.withUnsafeMutableBufferPointer { target in
            sampled.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &size, source.baseAddress, uLong(source.count), 1)
            }
        }
        guard status == Z_OK else { return nil }
        return Double(size) / Double(rows)
    }

    /// Pixels between the points of an even grid that spreads `samples` points over a
    /// `width`×`height` picture (at least 1).
    static func gridSpacing(width: Int, height: Int, samples: Int) -> Int {
        max(1, Int((Double(width) * Double(height) / Double(max(1, samples))).squareRoot().rounded(.up)))
    }

    /// Mean squared error against `other`, over every band of every pixel; both must have the same
    /// size and band count (8-bit values, so the result is on the 0...255² scale).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/compare``.
    func meanSquaredError(against other: borrowing VipsImage) throws(VipsError) -> Double {
        guard width == other.width, height == other.height, bands == other.bands else {
            throw VipsError(operation: .compare, message: "\(width)×\(height)×\(bands) vs \(other.width)×\(other.height)×\(other.bands)")
        }
        var difference: UnsafeMutablePointer<CVips.VipsImage>?
        guard ak_vips_subtract(pointer, other.pointer, &difference) == 0, let difference else {
            throw VipsError.take(operation: .compare)
        }
        let delta = VipsImage(owning: difference)
        let squared = try delta.apply(.compare) { ak_vips_multiply($0, $0, $1) }
        return try squared.average()
    }

    /// Peak signal-to-noise ratio against `other` in dB for 8-bit images (∞ when identical).
    /// - Throws: ``VipsError`` tagged ``VipsOperation/compare``.
    func psnr(against other: borrowing VipsImage) throws(VipsError) -> Double {
        let mse = try meanSquaredError(against: other)
        guard mse > 0 else { return .infinity }
        return 10 * log10((255.0 * 255.0) / mse)
    }
}
