import Foundation

/// How close downscaled pictures stay to a full-decode lanczos3 reference (`vips reduce` of the
/// whole decoded picture to the outputs' size, one resample): ffmpeg's `ssim` filter, its `All`
/// figure (Y, U and V weighted by size). Shrink-on-load trades a little of this for speed.
enum DownscaleSSIM {
    /// One figure per existing output in `outputs` (name, path), all of the first one's size;
    /// none when the tools fail. The reference is written into `scratch`.
    static func figures(photo: String, outputs: [(String, String)], scratch: String) -> [(String, String)] {
        let existing = outputs.filter { FileManager.default.fileExists(atPath: $0.1) }
        func field(_ path: String, _ name: String) -> Double? {
            Double(Measure.output(["vipsheader", "-f", name, path]).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard let sized = existing.first?.1, let width = field(photo, "width"), let height = field(photo, "height"),
              let outWidth = field(sized, "width"), let outHeight = field(sized, "height") else { return [] }
        let reference = scratch + "/full-decode-lanczos3.png"
        _ = Measure.output(["vips", "reduce", photo, reference, "\(width / outWidth)", "\(height / outHeight)", "--kernel", "lanczos3"])
        return existing.compactMap { name, path in
            let log = Measure.outputWithStderr(["ffmpeg", "-nostdin", "-i", path, "-i", reference, "-lavfi", "[0:v:0][1:v:0]ssim", "-f", "null", "-"])
            guard let range = log.range(of: "All:", options: .backwards) else { return nil }
            return ("\(name) SSIM vs full-decode lanczos3", String(log[range.upperBound...].prefix { $0 == "." || $0.isNumber }))
        }
    }
}
