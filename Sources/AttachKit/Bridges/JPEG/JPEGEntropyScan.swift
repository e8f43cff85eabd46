import CJPEG

/// What libjpeg-turbo saw decoding a JPEG's entropy-coded data (every scan, at 1/8 scale): what
/// libvips cannot report, whether a scan's data reached a marker with rows left, and the warnings
/// raised on the way (``JPEGDataCheck``). In
/// arithmetic-coded data that is legal (the decoder reads zeros from there on), so libjpeg decodes
/// a cut file to the end without a warning; ``JPEGStructure`` judges what the numbers mean.
struct JPEGEntropyScan: Sendable, Equatable {
    /// The first scan whose data reached a marker with whole iMCU rows left.
    struct EarlyMarker: Sendable, Equatable {
        /// iMCU rows of the scan decoded before the marker was seen.
        var rowsBefore: Int
        /// iMCU rows decoded after it, from no data.
        var rowsAfter: Int
        /// Bytes of the scan's data read up to the marker.
        var scanBytes: Int
    }

    /// `nil` when every scan's data lasted to its last row.
    var earlyMarker: EarlyMarker?
    /// Warnings libjpeg raised decoding past corrupt data (a scan's data ending before its last
    /// row: "premature end of data segment"), and the first one's text; 0 and `nil` when clean.
    var warnings = 0
    var firstWarning: String?

    /// libjpeg's error, when it stopped.
    struct Failure: Error, Sendable, Equatable {
        let message: String
    }

    /// Decodes `bytes` (a whole JPEG file).
    /// - Throws: ``Failure`` with libjpeg's message when it stops with an error.
    static func scan(_ bytes: [UInt8]) throws(Failure) -> JPEGEntropyScan {
        var report = attachkit_jpeg_entropy_report()
        bytes.withUnsafeBufferPointer { buffer in
            attachkit_jpeg_scan_entropy(buffer.baseAddress, UInt(buffer.count), &report)
        }
        if report.failed != 0 {
            let message = withUnsafeBytes(of: report.message) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw Failure(message: message)
        }
        var scan = JPEGEntropyScan(earlyMarker: nil, warnings: Int(report.warnings))
        if report.warnings > 0 {
            scan.firstWarning = withUnsafeBytes(of: report.warning) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        }
        guard report.markerBeforeEnd != 0 else { return scan }
        scan.earlyMarker = EarlyMarker(rowsBefore: Int(report.rowsBefore), rowsAfter: Int(report.rowsAfter), scanBytes: Int(report.scanBytes))
        return scan
    }
}
