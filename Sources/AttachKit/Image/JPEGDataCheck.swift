import Dispatch

/// Whether a JPEG's entropy-coded data decode without a warning, asked of libjpeg-turbo itself
/// (``JPEGEntropyScan``: every scan decoded at 1/8 scale, about 3 ms of CPU per megapixel, one
/// thread), because libvips 8.14 misses two kinds of damage with `fail_on=warning`:
///
/// - its JPEG loader makes a libjpeg warning an error only when it starts a read, so a warning
///   raised during its last read passes (a picture whose data run out in its last rows with an
///   EOI put back, a frame header declaring one row of blocks over too little data), and the
///   rows libjpeg had no data for come out grey;
/// - it never calls `jpeg_finish_decompress`, where libjpeg finds bytes left between the last
///   block and the EOI ("N extraneous bytes before marker 0xd9"): one flipped bit that throws the
///   Huffman decode off leaves the picture's rest garbage and ends just so.
///
/// A warning from the scan makes the JPEG `corrupt`, from `prepare` (passthrough and re-encode),
/// `thumbnail`, cover art and `validate --deep` alike. JPEGs with warnings libvips does catch are
/// refused by libvips first, with its own words.
enum JPEGDataCheck {
    /// The reason `bytes` (a whole JPEG) is corrupt, or `nil` when libjpeg-turbo decodes its data
    /// without a warning.
    static func reason(_ bytes: [UInt8]) -> String? {
        let scan: JPEGEntropyScan
        do {
            scan = try JPEGEntropyScan.scan(bytes)
        } catch {
            return "the image does not decode: libjpeg-turbo: \(error.message)"
        }
        guard scan.warnings > 0 else { return nil }
        return "the image does not decode: libjpeg-turbo: \(scan.firstWarning ?? "a warning")"
    }

    /// ``reason(_:)`` for the JPEG file at `path`; `nil` when it cannot be read now (what reads
    /// it next reports that).
    static func reason(path: String) -> String? {
        fileBytes(path: path).flatMap(reason)
    }

    /// The whole file at `path`, or `nil` when it cannot be read now.
    static func fileBytes(path: String) -> [UInt8]? {
        guard let reader = try? FileReader(path: path) else { return nil }
        return reader.read(at: 0, count: Int(reader.size))
    }

    /// A scan run on another thread while libvips decodes the same file (a re-encode), so the
    /// check costs CPU but little wall time. ``reason()`` waits for it.
    final class Background: @unchecked Sendable {
        private let done = DispatchGroup()
        // Written once on the scan's thread before `done.leave()`, read after `done.wait()`.
        private var result: String?

        init(_ bytes: @escaping @Sendable () -> [UInt8]?) {
            done.enter()
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                result = bytes().flatMap(JPEGDataCheck.reason)
                done.leave()
            }
        }

        /// The scan's reason, once it has finished.
        func reason() -> String? {
            done.wait()
            return result
        }
    }
}
