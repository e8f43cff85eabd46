import AttachKit
import Foundation

/// The side-by-side comparisons: the same work by AttachKit and by the tools a user would
/// otherwise pick. `quick` shrinks inputs so the whole run is a smoke test.
struct Scenarios {
    let attachkit: String
    let inputs: Inputs
    let scratch: URL
    let quick: Bool

    func folder(_ name: String) -> String {
        let url = scratch.appendingPathComponent(name)
        return url.path
    }

    /// Removes one output file (so contenders never delete each other's outputs).
    func remove(_ path: String) -> () -> Void {
        { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true) }
    }

    /// A Python client for an HTTP scenario: `text` written to the scratch folder as `NAME-client.py`,
    /// an empty output folder `NAME`, and the command line for a MODE and a request count:
    /// `python3 SCRIPT MODE ATTACHKIT PHOTO OUT COUNT 2` (two at a time).
    func pythonClient(_ name: String, script text: String, photo: String) -> (out: String, command: (String, Int) -> [String]) {
        let out = folder(name)
        let script = folder(name + "-client.py")
        try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try? text.write(toFile: script, atomically: true, encoding: .utf8)
        return (out, { mode, count in ["python3", script, mode, attachkit, photo, out, String(count), "2"] })
    }

    /// An HTTP scenario of one Python client (``pythonClient(_:script:photo:)``): two contenders, each
    /// `client(MODE, requests)` with the output folder emptied first (`modes`: contender name and
    /// client mode, AttachKit's first, the reference second), then one more client run
    /// (`figures`: its mode and request count) whose JSON line (`nil` when it failed) `rows` reads.
    func pythonScenario(_ name: String, summary: String, client: (out: String, command: (String, Int) -> [String]), requests: Int,
                        modes: [(name: String, mode: String)], figures: (mode: String, requests: Int),
                        rows: @escaping (JSONValue?) -> [(String, String)]) -> Scenario {
        let (out, command) = client
        return Scenario(name: name, summary: summary,
                        contenders: modes.map { Contender(name: $0.name, command: command($0.mode, requests), reset: clean(out)) },
                        reference: modes.last?.name) {
            clean(out)()
            return rows(try? JSONValue.parse(Measure.output(command(figures.mode, figures.requests)).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
    }

    /// A latency row from an HTTP client's figures (`rps`; `p50`, `p99` in seconds):
    /// `N requests: R requests/s, p50 X ms, p99 Y ms`, or that the client failed.
    func latencyRow(_ label: String, _ figures: JSONValue?, requests: Int, digits: Int) -> (String, String) {
        guard let figures, let rate = figures["rps"]?.doubleValue, let p50 = figures["p50"]?.doubleValue,
              let p99 = figures["p99"]?.doubleValue else { return (label, "the client failed") }
        return (label, "\(requests) requests: \(fmt(rate)) requests/s, p50 \(fmt(p50 * 1000, digits)) ms, p99 \(fmt(p99 * 1000, digits)) ms")
    }

    /// Empties (and re-creates) a scratch folder.
    func clean(_ path: String) -> () -> Void {
        { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    }

    /// Every scenario by name, built (and its inputs generated) only when run.
    func all() -> [(name: String, make: () -> Scenario)] {
        var list: [(String, () -> Scenario)] = [
            ("image-downscale", imageDownscale), ("fit-bytes", fitBytes), ("probe", probeMany),
            ("trim-fast", trimFast), ("poster-frame", posterFrame), ("batch-jobs", batchJobs),
            ("batch-isolation", batchIsolation), ("http", httpPrepare), ("url-mode", urlMode),
        ]
        if !quick { list += [("trim-exact", trimExact), ("fit-video-5MB", fitVideo)] }
        list += issue14()
        list += issue33()
        return list
    }

    func imageDownscale() -> Scenario {
        let photo = inputs.photo(megapixels: quick ? 6 : 24)
        let out = folder("downscale")
        var contenders = [
            Contender(name: "attachkit", command: [attachkit, "prepare", "--profile", "apple", "--max-edge", "2048",
                                                   "--out", out + "/ak", photo], reset: clean(out + "/ak")),
            // The reference: the same resize and the same JPEG encoder settings as AttachKit's
            // (quality 80, metadata stripped, optimized Huffman tables: 5–16 % fewer bytes, for a
            // coefficient buffer of ~3 bytes per output pixel, 8 MB here).
            Contender(name: "vipsthumbnail", command: ["vipsthumbnail", photo, "--size", "2048", "-o", out + "/vt.jpg[Q=80,strip,optimize_coding]"],
                      reset: remove(out + "/vt.jpg")),
            // vipsthumbnail's defaults (no Huffman optimization): less memory, bigger file.
            Contender(name: "vipsthumbnail-default", command: ["vipsthumbnail", photo, "--size", "2048", "-o", out + "/vtd.jpg[Q=80,strip]"],
                      reset: remove(out + "/vtd.jpg")),
        ]
        if Measure.hasTool("convert") {
            contenders.append(Contender(name: "imagemagick", command: ["convert", photo, "-resize", "2048x2048", "-quality", "80",
                                                                      "-strip", out + "/im.jpg"]))
        }
        if !Measure.output(["python3", "-c", "import PIL; print(1)"]).isEmpty {
            let script = "from PIL import Image; im=Image.open('\(photo)'); im.draft('RGB',(2048,2048)); im.thumbnail((2048,2048)); im.save('\(out)/pil.jpg', quality=80)"
            contenders.append(Contender(name: "pillow", command: ["python3", "-c", script]))
        }
        // AttachKit's JPEG ceiling is q80: with no byte pressure it encodes at 80, as vipsthumbnail does here.
        let outputs = [("attachkit", out + "/ak/" + URL(fileURLWithPath: photo).lastPathComponent), ("vipsthumbnail", out + "/vt.jpg"),
                       ("vipsthumbnail-default", out + "/vtd.jpg"), ("imagemagick", out + "/im.jpg"), ("pillow", out + "/pil.jpg")]
        return Scenario(name: "image-downscale", summary: "\(quick ? 6 : 24) MP JPEG → 2048 px, q80",
                        contenders: contenders, reference: "vipsthumbnail", wallTarget: 0.9, rssTarget: 1.15) {
            outputs.compactMap { name, path in
                guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else { return nil }
                return ("\(name) output bytes", "\(size)")
            } + DownscaleSSIM.figures(photo: photo, outputs: Array(outputs.prefix(2)), scratch: out)
        }
    }

    func fitBytes() -> Scenario {
        let photo = inputs.photo(megapixels: quick ? 6 : 12)
        let out = folder("fit")
        let budget = 500_000
        var contenders = [
            Contender(name: "attachkit", command: [attachkit, "prepare", "--profile", "apple", "--max-bytes", "\(budget)",
                                                   "--out", out + "/ak", photo], reset: clean(out + "/ak")),
        ]
        if Measure.hasTool("convert") {
            contenders.append(Contender(name: "imagemagick", command: ["convert", photo, "-strip", "-define", "jpeg:extent=\(budget)",
                                                                      out + "/im.jpg"], reset: remove(out + "/im.jpg")))
        }
        let photos = [photo] + inputs.benchmarkPhotos()
        return Scenario(name: "fit-bytes", summary: "\(quick ? 6 : 12) MP photo → ≤ \(budget / 1000) KB", contenders: contenders,
                        reference: contenders.count > 1 ? "imagemagick" : nil) {
            guard Measure.hasTool("convert") else { return [] }
            return photos.flatMap { FitComparison(attachkit: attachkit, photo: $0, scratch: out + "/cmp").figures() }
        }
    }

    func probeMany() -> Scenario {
        let files = inputs.mixedSet(count: quick ? 100 : 500)
        let list = folder("probe-list.txt")
        try? files.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        var contenders = [
            Contender(name: "attachkit", command: [attachkit, "probe", "--json"] + files),
            Contender(name: "ffprobe", command: ["sh", "-c", "while IFS= read -r f; do ffprobe -v error -show_format -show_streams \"$f\"; done < \(list)"]),
        ]
        if Measure.hasTool("mediainfo") {
            contenders.append(Contender(name: "mediainfo", command: ["sh", "-c", "while IFS= read -r f; do mediainfo \"$f\"; done < \(list)"]))
        }
        if Measure.hasTool("exiftool") {
            contenders.append(Contender(name: "exiftool", command: ["exiftool", "-fast"] + files))
        }
        return Scenario(name: "probe", summary: "\(files.count) mixed files: one attachkit process vs ffprobe per file",
                        contenders: contenders, reference: "ffprobe", speedupTarget: 20)
    }

    var clip: String { inputs.video(height: quick ? 720 : 1080, seconds: quick ? 20 : 60) }

    func trimFast() -> Scenario {
        let out = folder("trim-fast")
        let (start, length) = quick ? (5, 10) : (10, 20)
        return Scenario(name: "trim-fast", summary: "\(quick ? "20 s 720p" : "60 s 1080p") H.264: keyframe cut of \(length) s at \(start) s (stream copy)", contenders: [
            Contender(name: "attachkit", command: [attachkit, "prepare", "--profile", "apple", "--start", "\(start)", "--max-duration", "\(length)",
                                                   "--trim", "fast", "--out", out + "/ak", clip], reset: clean(out + "/ak")),
            Contender(name: "ffmpeg", command: ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-ss", "\(start)", "-t", "\(length)", "-i", clip,
                                                "-c", "copy", "-movflags", "+faststart", out + "/ff.mp4"], reset: remove(out + "/ff.mp4")),
        ], reference: "ffmpeg", wallTarget: 2.0)
    }

    func posterFrame() -> Scenario {
        let out = folder("poster")
        let at = quick ? 5 : 10
        return Scenario(name: "poster-frame", summary: "poster frame at \(at) s of the \(quick ? "720p" : "1080p") clip, JPEG", contenders: [
            Contender(name: "attachkit", command: [attachkit, "thumbnail", clip, "--at", "\(at)", "--size", quick ? "1280" : "1920", "--out", out + "/ak.jpg"],
                      reset: { clean(out)(); }),
            Contender(name: "ffmpeg", command: ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-ss", "\(at)", "-i", clip, "-frames:v", "1",
                                                out + "/ff.jpg"]),
        ], reference: "ffmpeg", wallTarget: 1.2)
    }

    func trimExact() -> Scenario {
        let out = folder("trim-exact")
        return Scenario(name: "trim-exact", summary: "60 s 1080p: frame-exact 20 s cut at 10 s, re-encoded at 720p (x264 veryfast)", contenders: [
            Contender(name: "attachkit", command: [attachkit, "prepare", "--profile", "apple", "--start", "10", "--max-duration", "20",
                                                   "--trim", "exact", "--max-edge", "1280", "--out", out + "/ak", clip], reset: clean(out + "/ak")),
            Contender(name: "ffmpeg", command: ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-ss", "10", "-t", "20", "-i", clip,
                                                "-vf", "scale=-2:720", "-c:v", "libx264", "-preset", "veryfast", "-b:v", "2M", "-c:a", "aac",
                                                "-movflags", "+faststart", out + "/ff.mp4"], reset: remove(out + "/ff.mp4")),
        ], reference: "ffmpeg")
    }

    func fitVideo() -> Scenario {
        let out = folder("fit-video")
        let seconds = 30
        let total = 5_000_000 * 8 / seconds
        let video = total - 128_000
        return Scenario(name: "fit-video-5MB", summary: "first 30 s of the 1080p clip into 5 MB (x264, same preset)", contenders: [
            Contender(name: "attachkit", command: [attachkit, "prepare", "--profile", "apple", "--max-duration", "\(seconds)", "--max-bytes", "5MB",
                                                   "--trim", "exact", "--out", out + "/ak", clip], reset: clean(out + "/ak")),
            Contender(name: "ffmpeg", command: ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-t", "\(seconds)", "-i", clip,
                                                "-c:v", "libx264", "-preset", "veryfast", "-b:v", "\(video)", "-maxrate", "\(video)", "-bufsize", "\(video)",
                                                "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", out + "/ff.mp4"], reset: remove(out + "/ff.mp4")),
        ], reference: "ffmpeg") {
            var figures: [(String, String)] = []
            let report = Measure.output([attachkit, "prepare", "--json", "--profile", "apple", "--max-duration", "\(seconds)", "--max-bytes", "5MB",
                                         "--trim", "exact", "--out", out + "/ak", clip])
            if let json = try? JSONValue.parse(report.trimmingCharacters(in: .whitespacesAndNewlines)) {
                let bytes = json["after"]?["bytes"]?.intValue ?? 0
                figures.append(("attachkit bytes (budget 5000000)", "\(bytes) (\(fmt(Double(bytes) / 50_000, 1)) %)"))
                figures.append(("attachkit attempts", "\(json["attempts"]?.intValue ?? 0)"))
                figures.append(("attachkit bitrate", "\(json["bitRate"]?.intValue ?? 0) b/s"))
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: out + "/ff.mp4")[.size] as? Int) ?? 0
            figures.append(("ffmpeg bytes (budget 5000000)", "\(size) (\(fmt(Double(size) / 50_000, 1)) %\(size > 5_000_000 ? ", OVER" : ""))"))
            if let output = (try? JSONValue.parse(report.trimmingCharacters(in: .whitespacesAndNewlines)))?["output"]?.stringValue {
                figures += VideoFidelity(clip: clip, seconds: seconds, scratch: out + "/fidelity").figures(output: output)
            }
            return figures
        }
    }

    func batchJobs() -> Scenario {
        jobsScenario("batch-jobs", summary: "batch over TestMedia's valid media: --jobs 2 vs --jobs 1", input: inputs.batchFolder(), out: folder("batch"))
    }

    /// `attachkit batch` over `input` with `--jobs 2` against `--jobs 1`; target 1.85× faster.
    func jobsScenario(_ name: String, summary: String, input: String, out: String) -> Scenario {
        Scenario(name: name, summary: summary, contenders: [
            Contender(name: "jobs 2", command: [attachkit, "batch", input, "--out", out + "/j2", "--jobs", "2"], reset: clean(out + "/j2")),
            Contender(name: "jobs 1", command: [attachkit, "batch", input, "--out", out + "/j1", "--jobs", "1"], reset: clean(out + "/j1")),
        ], reference: "jobs 1", speedupTarget: 1.85)
    }

    /// The cost of isolation: the same batch with worker processes (the default) and in-process,
    /// over four copies of TestMedia's valid media (180 files), so that the fixed start-up of the
    /// workers (~0.1 s each, loading their libraries) weighs as it does in a real batch.
    /// Target: throughput with workers at least 0.95× in-process (wall ≤ 1.053×).
    func batchIsolation() -> Scenario {
        let input = inputs.batchFolder(copies: quick ? 1 : 4)
        let out = folder("batch-isolation")
        return Scenario(name: "batch-isolation", summary: "batch over \(quick ? "" : "4 copies of ")TestMedia's valid media, --jobs 2: worker processes vs in-process",
                        contenders: [
                            Contender(name: "workers", command: [attachkit, "batch", input, "--out", out + "/w", "--jobs", "2"],
                                      reset: clean(out + "/w")),
                            Contender(name: "in-process", command: [attachkit, "batch", input, "--out", out + "/p", "--jobs", "2", "--in-process"],
                                      reset: clean(out + "/p")),
                        ], reference: "in-process", wallTarget: 1 / 0.95)
    }
}

/// Byte fitting against ImageMagick's `jpeg:extent` on one photo: both get the same budget, and
/// ImageMagick is run again at AttachKit's byte count to compare quality at equal bytes (SSIM
/// against the upright, colour-managed source, see ``Quality``).
struct FitComparison {
    let attachkit: String
    let photo: String
    let scratch: String

    /// One budget for both tools (500 KB, or 40 % of the photo when that is less): AttachKit's
    /// bytes, landing, encodes and SSIM; ImageMagick's `jpeg:extent` (a full binary search over
    /// quality) at the same budget; and, for quality at equal bytes, ImageMagick again at
    /// AttachKit's byte count. "met" when AttachKit is within budget, lands in [0.90, 1.00] of it
    /// when the budget binds, and its SSIM is no worse than ImageMagick's at the same bytes.
    func figures() -> [(String, String)] {
        try? FileManager.default.removeItem(atPath: scratch)
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let name = URL(fileURLWithPath: photo).lastPathComponent
        let original = Self.size(photo)
        let budget = min(500_000, original * 2 / 5)
        let report = Measure.output([attachkit, "prepare", "--json", "--profile", "apple", "--max-bytes", "\(budget)", "--out", scratch + "/ak", photo])
        guard let json = try? JSONValue.parse(report.trimmingCharacters(in: .whitespacesAndNewlines)),
              let output = json["output"]?.stringValue else {
            return [("\(name) → \(budget) B", "attachkit could not fit it: \(report.prefix(200))")]
        }
        let ours = Self.size(output)
        let quality = json["quality"]?.intValue ?? 0
        let magickAtBudget = magick(extent: budget, into: "im-budget.jpg")
        let magickSameBytes = magick(extent: ours, into: "im-same.jpg")
        let ssimOurs = Quality.ssim(output: output, source: photo, scratch: scratch)
        let ssimMagick = Quality.ssim(output: magickAtBudget, source: photo, scratch: scratch)
        let ssimSame = Quality.ssim(output: magickSameBytes, source: photo, scratch: scratch)
        let binding = quality < 80
        let landing = Double(ours) / Double(budget)
        let verdict: String
        if ours > budget { verdict = "**MISSED** (over budget)" }
        else if binding, landing < 0.90 { verdict = "**MISSED** (landed low)" }
        else if ssimOurs < ssimSame - 0.0005 { verdict = "**MISSED** (lower SSIM at equal bytes)" }
        else { verdict = binding ? "**met**" : "**met** (budget not binding: fits at the q80 ceiling)" }
        return [("\(name) → \(budget) B",
                 "attachkit \(ours) B (\(fmt(landing * 100, 1)) %, q\(quality), \(json["attempts"]?.intValue ?? 0) encodes) SSIM \(fmt(ssimOurs, 4)); "
                 + "ImageMagick \(Self.size(magickAtBudget)) B SSIM \(fmt(ssimMagick, 4)), at attachkit's bytes \(Self.size(magickSameBytes)) B SSIM \(fmt(ssimSame, 4)): \(verdict)")]
    }

    private func magick(extent: Int, into file: String) -> String {
        let path = scratch + "/" + file
        _ = Measure.run(["convert", photo, "-auto-orient", "-strip", "-define", "jpeg:extent=\(extent)", path])
        return path
    }

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}

/// Image quality of an output against its source scaled to the same size (SSIM from ffmpeg).
/// The reference is what the photo should look like on the device: turned upright by its EXIF
/// orientation and converted from its ICC profile to sRGB (libvips `autorot`, `icc_transform`),
/// then scaled by ffmpeg's lanczos (neither contender's resampler).
enum Quality {
    static func ssim(output: String, source: String, scratch: String) -> Double {
        let upright = scratch + "/upright.v", managed = scratch + "/reference-full.png"
        if !FileManager.default.fileExists(atPath: managed) {
            _ = Measure.run(["vips", "autorot", source, upright])
            _ = Measure.run(["vips", "icc_transform", upright, managed, "srgb", "--embedded"])
            try? FileManager.default.removeItem(atPath: upright)
        }
        let dimensions = Measure.output(["vipsheader", "-f", "width", output]).trimmingCharacters(in: .whitespacesAndNewlines)
            + "x" + Measure.output(["vipsheader", "-f", "height", output]).trimmingCharacters(in: .whitespacesAndNewlines)
        let reference = scratch + "/reference-\(dimensions).png"
        let parts = dimensions.split(separator: "x")
        guard parts.count == 2 else { return 0 }
        _ = Measure.run(["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-i", managed, "-vf", "scale=\(parts[0]):\(parts[1]):flags=lanczos", reference])
        let log = Measure.outputWithStderr(["ffmpeg", "-nostdin", "-i", output, "-i", reference, "-lavfi", "ssim", "-f", "null", "-"])
        guard let range = log.range(of: "All:") else { return 0 }
        return Double(log[range.upperBound...].prefix { $0 == "." || $0.isNumber }) ?? 0
    }
}
