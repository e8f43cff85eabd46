import Foundation

/// Picture quality at equal bytes for the video fit: AttachKit's output against `ffmpeg` encoding
/// the same span with the same encoder settings (x264 preset, keyframe interval) at AttachKit's
/// video bitrate, one-pass ABR and two-pass. PSNR (luma) and SSIM (all planes) are measured by
/// ffmpeg's own filters against the source span, so every contender is judged by one yardstick.
struct VideoFidelity {
    let clip: String
    let seconds: Int
    let scratch: String

    /// The figures for `output` (AttachKit's fit of the first `seconds` of `clip`).
    func figures(output: String) -> [(String, String)] {
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        guard let encoded = Self.x264Settings(output) else { return [("quality at equal bytes", "no x264 settings in \(output)")] }
        let common = ["-an", "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "\(encoded.bitrate)k",
                      "-g", "\(encoded.keyint)", "-pix_fmt", "yuv420p"]
        let input = ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-t", "\(seconds)", "-i", clip]
        let onePass = scratch + "/ffmpeg-1pass.mp4", twoPass = scratch + "/ffmpeg-2pass.mp4", log = scratch + "/x264-pass"
        _ = Measure.run(input + common + [onePass])
        _ = Measure.run(input + common + ["-pass", "1", "-passlogfile", log, "-f", "mp4", "/dev/null"])
        _ = Measure.run(input + common + ["-pass", "2", "-passlogfile", log, twoPass])
        return [("attachkit", output), ("ffmpeg one-pass", onePass), ("ffmpeg two-pass", twoPass)].map { name, path in
            let (psnr, ssim) = quality(path)
            return ("\(name) at \(encoded.bitrate) kb/s", "video \(Self.videoBytes(path)) B, PSNR Y \(fmt(psnr, 2)) dB, SSIM \(fmt(ssim, 4))")
        }
    }

    /// PSNR (luma, dB) and SSIM (all) of `path`'s picture against the source span.
    private func quality(_ path: String) -> (psnr: Double, ssim: Double) {
        let log = Measure.outputWithStderr(["ffmpeg", "-nostdin", "-i", path, "-t", "\(seconds)", "-i", clip, "-lavfi",
                                            "[0:v:0]split[a][b];[1:v:0]split[c][d];[a][c]psnr;[b][d]ssim", "-f", "null", "-"])
        func number(after marker: String) -> Double {
            guard let range = log.range(of: marker) else { return 0 }
            return Double(log[range.upperBound...].prefix { $0 == "." || $0.isNumber }) ?? 0
        }
        return (number(after: "PSNR y:"), number(after: "All:"))
    }

    /// Bytes of the first video stream's packets.
    static func videoBytes(_ path: String) -> Int {
        Measure.output(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size", "-of", "csv=p=0", path])
            .split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
    }

    /// The bitrate (kb/s) and keyframe interval x264 wrote in its settings SEI.
    static func x264Settings(_ path: String) -> (bitrate: Int, keyint: Int)? {
        guard let data = FileManager.default.contents(atPath: path), let start = data.range(of: Data("x264 - core".utf8)) else { return nil }
        let text = String(decoding: data[start.lowerBound...].prefix(4096).prefix { $0 != 0 }, as: UTF8.self)
        let fields = Dictionary(text.split(separator: " ").compactMap { word -> (String, Int)? in
            let parts = word.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? -1) : nil
        }, uniquingKeysWith: { first, _ in first })
        guard let bitrate = fields["bitrate"], let keyint = fields["keyint"], bitrate > 0, keyint > 0 else { return nil }
        return (bitrate, keyint)
    }
}
