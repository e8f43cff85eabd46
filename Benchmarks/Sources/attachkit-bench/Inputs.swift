import Foundation

/// Benchmark inputs, generated on first use with the ffmpeg/vips CLIs into a cache folder
/// (`Benchmarks/.inputs`, not committed) and reused afterwards.
struct Inputs {
    let folder: URL
    let repoRoot: URL
    let log: (String) -> Void

    private func cached(_ name: String, _ make: (String) -> [String]) -> String {
        let path = folder.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: path) { return path }
        let temporary = path + ".part." + (name.split(separator: ".").last.map(String.init) ?? "bin")
        log("  generating \(name)...")
        let sample = Measure.run(make(temporary))
        guard sample.status == 0, FileManager.default.fileExists(atPath: temporary) else {
            fatalError("could not generate \(name): \(make(temporary).joined(separator: " "))")
        }
        try? FileManager.default.moveItem(atPath: temporary, toPath: path)
        return path
    }

    /// A photo-like JPEG of about `megapixels` at 3:2 (noise over a test pattern compresses like a photo).
    func photo(megapixels: Int) -> String {
        let height = Int((Double(megapixels) * 1_000_000 / 1.5).squareRoot().rounded() / 2) * 2
        let width = height * 3 / 2
        return cached("photo_\(width)x\(height).jpg") { out in
            ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-f", "lavfi", "-i",
             "testsrc2=s=\(width)x\(height):d=1,noise=alls=14:allf=u,gblur=sigma=0.6", "-frames:v", "1", "-q:v", "3", out]
        }
    }

    /// An animated GIF, 320x240 at 10 fps.
    func gif(frames: Int) -> String {
        cached("anim_\(frames)f.gif") { out in
            ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-f", "lavfi", "-i",
             "testsrc2=s=320x240:r=10:d=\(Double(frames) / 10),split[a][b];[a]palettegen=max_colors=128[p];[b][p]paletteuse",
             "-frames:v", "\(frames)", "-loop", "0", out]
        }
    }

    /// A 16-bit stereo 44.1 kHz WAV of `seconds` (about 10 MB a minute).
    func wav(seconds: Int) -> String {
        cached("tone_\(seconds)s.wav") { out in
            ["ffmpeg", "-nostdin", "-y", "-loglevel", "error", "-f", "lavfi", "-i",
             "aevalsrc=0.3*sin(440*2*PI*t)*sin(3*t)|0.3*sin(660*2*PI*t):s=44100:d=\(seconds)", "-c:a", "pcm_s16le", out]
        }
    }

    /// A `seconds`-long H.264 + AAC MP4 at `height` (16:9), 30 fps, keyframe every 2 s, about
    /// 8 Mb/s at 1080p (a 60 s 1080p clip is about 60 MB).
    func video(height: Int, seconds: Int, codec: String = "h264") -> String {
        let width = height * 16 / 9 / 2 * 2
        let bitrate = max(1, 8 * width * height / (1920 * 1080))
        let ext = codec == "vp9" ? "webm" : "mp4"
        return cached("clip_\(height)p_\(seconds)s_\(codec).\(ext)") { out in
            var command = ["ffmpeg", "-nostdin", "-y", "-loglevel", "error",
                           "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height):r=30:d=\(seconds),noise=alls=8:allf=t",
                           "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000:d=\(seconds)"]
            if codec == "vp9" {
                command += ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "\(bitrate)M", "-c:a", "libopus"]
            } else {
                command += ["-c:v", "libx264", "-preset", "veryfast", "-b:v", "\(bitrate)M", "-maxrate", "\(bitrate * 3 / 2)M",
                            "-bufsize", "\(bitrate * 2)M", "-g", "60", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k",
                            "-movflags", "+faststart"]
            }
            return command + [out]
        }
    }

    /// Real photos for the byte-fitting comparison: TestMedia's photo and the corpus' camera JPEGs.
    func benchmarkPhotos() -> [String] {
        var out = [repoRoot.appendingPathComponent("TestMedia/images/jpeg_photo_1600x1200_q90.jpg").path]
        let corpusRoot = ProcessInfo.processInfo.environment["ATTACHKIT_CORPUS"].map { URL(fileURLWithPath: $0) }
            ?? repoRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        for name in ["images/jpeg_photo_2725x2225.jpg", "images/jpeg_exif_orientation6.jpg", "images/jpeg_display_p3.jpg"] {
            let path = corpusRoot.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path) { out.append(path) }
        }
        return out
    }

    /// `count` files (hard links) cycling through TestMedia's valid media and the shared corpus.
    func mixedSet(count: Int) -> [String] {
        let target = folder.appendingPathComponent("mixed\(count)")
        let sources = mediaSources()
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: target.path), existing.count == count {
            return existing.sorted().map { target.appendingPathComponent($0).path }
        }
        try? FileManager.default.removeItem(at: target)
        try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        var paths: [String] = []
        for index in 0..<count {
            let source = sources[index % sources.count]
            let path = target.appendingPathComponent(String(format: "%04d_", index) + URL(fileURLWithPath: source).lastPathComponent).path
            if (try? FileManager.default.linkItem(atPath: source, toPath: path)) == nil {
                try? FileManager.default.copyItem(atPath: source, toPath: path)
            }
            paths.append(path)
        }
        return paths
    }

    /// A folder with `copies` copies of each of TestMedia's valid media files (the batch
    /// scenarios' input; copies go in subfolders `1/`, `2/`...).
    func batchFolder(copies: Int = 1) -> String {
        let target = folder.appendingPathComponent(copies == 1 ? "batch-input" : "batch-input-x\(copies)")
        if FileManager.default.fileExists(atPath: target.path) { return target.path }
        try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        for copy in 0..<copies {
            let into = copy == 0 ? target : target.appendingPathComponent(String(copy))
            try? FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
            for source in mediaSources(corpus: false) {
                link(source, into: into)
            }
        }
        return target.path
    }

    private func link(_ source: String, into target: URL) {
        do {
            let path = target.appendingPathComponent(URL(fileURLWithPath: source).lastPathComponent).path
            if (try? FileManager.default.linkItem(atPath: source, toPath: path)) == nil {
                try? FileManager.default.copyItem(atPath: source, toPath: path)
            }
        }
    }

    /// Valid media from TestMedia (and the corpus when present), by path.
    func mediaSources(corpus: Bool = true) -> [String] {
        var out: [String] = []
        for folder in ["images", "audio", "video"] {
            let dir = repoRoot.appendingPathComponent("TestMedia").appendingPathComponent(folder)
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted() where !name.hasPrefix(".") {
                out.append(dir.appendingPathComponent(name).path)
            }
        }
        let corpusRoot = ProcessInfo.processInfo.environment["ATTACHKIT_CORPUS"].map { URL(fileURLWithPath: $0) }
            ?? repoRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        if corpus, let manifest = try? String(contentsOf: corpusRoot.appendingPathComponent("manifest.tsv"), encoding: .utf8) {
            for line in manifest.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                if fields.count > 8, fields[8] == "valid", !fields[0].hasPrefix("malformed/") {
                    out.append(corpusRoot.appendingPathComponent(String(fields[0])).path)
                }
            }
        }
        return out
    }
}
