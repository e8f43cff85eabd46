import AttachKit
import Foundation

/// The rows issue 14 asks for: probing big files from their headers, a photographic PNG made a
/// JPEG at `vips copy`'s cost, and the peak memory of a 4K HEVC 10-bit → 1080p transcode.
extension Scenarios {
    func issue14() -> [(name: String, make: () -> Scenario)] {
        [("probe-big", probeBig), ("png-photo-jpeg", pngPhotoToJPEG), ("transcode-4k-hevc10", transcode4KHEVC10)]
    }

    /// `count` hard links (copies where linking fails) of `source` in `folder` of the inputs.
    func copies(of source: String, count: Int, in name: String) -> [String] {
        let target = inputs.folder.appendingPathComponent(name)
        try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        return (0..<count).map { index in
            let path = target.appendingPathComponent(String(format: "%04d_", index) + URL(fileURLWithPath: source).lastPathComponent).path
            if !FileManager.default.fileExists(atPath: path), (try? FileManager.default.linkItem(atPath: source, toPath: path)) == nil {
                try? FileManager.default.copyItem(atPath: source, toPath: path)
            }
            return path
        }
    }

    /// Generates `name` in the inputs folder with `command` (the output path last) unless it is there.
    private func generated(_ name: String, _ command: (String) -> [String]) -> String {
        let path = inputs.folder.appendingPathComponent(name).path
        if !FileManager.default.fileExists(atPath: path) {
            inputs.log("  generating \(name)...")
            let sample = Measure.run(command(path))
            if sample.status != 0 { inputs.log("  could not generate \(name): \(sample.failure ?? "")") }
        }
        return path
    }

    func probeBig() -> Scenario {
        let count = quick ? 10 : 100
        let files = copies(of: inputs.photo(megapixels: quick ? 6 : 24), count: count, in: "bigmix-jpeg")
            + copies(of: inputs.video(height: quick ? 720 : 1080, seconds: quick ? 20 : 60), count: count, in: "bigmix-mp4")
        let list = folder("probe-big-list.txt")
        try? files.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        return Scenario(name: "probe-big", summary: "\(count) × \(quick ? 6 : 24) MP JPEG + \(count) × \(quick ? "20 s 720p" : "60 s 1080p") MP4: one attachkit process vs ffprobe per file",
                        contenders: [
                            Contender(name: "attachkit", command: [attachkit, "probe", "--json"] + files),
                            Contender(name: "ffprobe", command: ["sh", "-c", "while IFS= read -r f; do ffprobe -v error -show_format -show_streams \"$f\"; done < \(list)"]),
                        ], reference: "ffprobe", speedupTarget: 50)
    }

    /// A real photograph as PNG: TestMedia's 12 MP camera photo enlarged 1.2× (4838×3629, 13.6 MB),
    /// over `apple`'s 10 MB so it must be re-encoded. (The harness' synthetic photos are a test
    /// pattern under noise: 12 % distinct colours, a graphic to ``PhotoEstimate``, kept as a
    /// palette PNG at 43.5 dB.)
    func pngPhotoToJPEG() -> Scenario {
        let camera = inputs.repoRoot.appendingPathComponent("TestMedia/images/jpeg_large_4032x3024.jpg").path
        let png = generated("camera_4838x3629.png") { ["vips", "resize", camera, $0, "1.2"] }
        let out = folder("png-photo")
        return Scenario(name: "png-photo-jpeg", summary: "17.5 MP photographic PNG (13.6 MB) → JPEG q80 under apple", contenders: [
            Contender(name: "attachkit", command: [attachkit, "prepare", "--profile", "apple", "--out", out + "/ak", png], reset: clean(out + "/ak")),
            Contender(name: "vips-copy", command: ["vips", "copy", png, out + "/vc.jpg[Q=80,optimize_coding,strip]"], reset: remove(out + "/vc.jpg")),
        ], reference: "vips-copy", wallTarget: 1.2, extra: {
            let ak = (try? FileManager.default.contentsOfDirectory(atPath: out + "/ak"))?.first.map { out + "/ak/" + $0 }
            let same = ak.flatMap { FileManager.default.contentsEqual(atPath: $0, andPath: out + "/vc.jpg") ? "identical" : "different" }
            return [("input PNG bytes", "\((try? FileManager.default.attributesOfItem(atPath: png)[.size] as? Int) ?? 0)"),
                    ("attachkit output vs vips copy", same ?? "no attachkit output")]
        })
    }

    /// Peak RSS of a 3 s 4K HEVC Main 10 clip made 1080p H.264 under `ios`, against the `ffmpeg` CLI
    /// doing the same job: the same size, x264 preset, video and audio bitrates (read from one
    /// AttachKit run first) and GOP (2 s, as ``VideoEncodeStage``), threads left to each.
    func transcode4KHEVC10() -> Scenario {
        let (width, height) = quick ? (1920, 1080) : (3840, 2160)
        let clip = generated("clip_\(height)p_3s_hevc10.mp4") { out in
            ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height):r=30:d=3,noise=alls=8:allf=t",
             "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=3", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
             "-pix_fmt", "yuv420p10le", "-tag:v", "hvc1", "-b:v", "20M", "-c:a", "aac", out]
        }
        let out = folder("hevc10")
        let job = { (folder: String) in [attachkit, "prepare", "--json", "--profile", "ios", "--out", folder, clip] }
        let rates = Self.bitRates(of: Measure.output(job(out + "/rates")))
        return Scenario(name: "transcode-4k-hevc10", summary: quick ? "3 s 1080p HEVC 10-bit: attachkit stream-copies it (Main 10 plays), ffmpeg re-encodes (smoke test only)"
                            : "3 s 2160p HEVC 10-bit → 1080p H.264 (x264 veryfast), same bitrates and GOP: peak RSS against ffmpeg", contenders: [
            Contender(name: "attachkit", command: job(out + "/ak"), reset: clean(out + "/ak")),
            Contender(name: "ffmpeg", command: ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-i", clip, "-vf", "scale=-2:1080,format=yuv420p",
                                                "-c:v", "libx264", "-preset", "veryfast", "-b:v", "\(rates.video)", "-g", "60", "-c:a", "aac",
                                                "-b:a", "\(rates.audio)", out + "/ff.mp4"], reset: remove(out + "/ff.mp4")),
        ], reference: "ffmpeg", rssTarget: 1.0, extra: {
            [("bitrates (both)", "video \(rates.video) b/s, audio \(rates.audio) b/s\(rates.measured ? "" : " (attachkit's report unreadable: defaults)")")]
        })
    }

    /// The video and audio bitrates of an AttachKit `prepare --json` report: `bitRate` is the total,
    /// the audio's is in the attempt note (`+ AAC 64 kb/s`). Defaults (8 Mb/s, 128 kb/s) when unreadable;
    /// 128 kb/s of audio when the note is missing.
    static func bitRates(of report: String) -> (video: Int, audio: Int, measured: Bool) {
        guard let json = try? JSONValue.parse(report.trimmingCharacters(in: .whitespacesAndNewlines)),
              let total = json["bitRate"]?.intValue else { return (8_000_000, 128_000, false) }
        let notes = json["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let audio = notes.lazy.compactMap { note -> Int? in
            guard let range = note.range(of: "+ AAC ") else { return nil }
            return Int(note[range.upperBound...].prefix { $0.isNumber }).map { $0 * 1000 }
        }.first
        return (total - (audio ?? 128_000), audio ?? 128_000, audio != nil)
    }
}
