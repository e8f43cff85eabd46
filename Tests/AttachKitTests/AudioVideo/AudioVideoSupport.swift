import Foundation
import Testing
@testable import AttachKit

/// What `ffprobe` says about a file: the reference every audio/video test checks outputs against.
struct FFprobeReport {
    struct Stream {
        let index: Int
        let type: String
        let codec: String
        let tag: String
        let width: Int
        let height: Int
        let sampleAspect: Double
        let start: Double?
        let duration: Double?
        let rotation: Int
        let attachedPicture: Bool
        let frames: Int?
    }

    let formatName: String
    let majorBrand: String?
    let duration: Double?
    let streams: [Stream]

    var video: Stream? { streams.first { $0.type == "video" && !$0.attachedPicture } }
    var audio: Stream? { streams.first { $0.type == "audio" } }

    /// Upright size in square pixels (SAR and rotation applied).
    var displaySize: (width: Double, height: Double)? {
        guard let v = video, v.width > 0, v.height > 0 else { return nil }
        let w = Double(v.width) * v.sampleAspect, h = Double(v.height)
        return v.rotation % 180 == 0 ? (w, h) : (h, w)
    }

    /// Runs `ffprobe -show_format -show_streams` (and frame counts when `countFrames`).
    static func of(_ path: String, countFrames: Bool = false) throws -> FFprobeReport {
        var arguments = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"]
        if countFrames { arguments += ["-count_frames"] }
        let run = try TestEnvironment.run("ffprobe", arguments + [path])
        guard run.status == 0, let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] else {
            throw ProbeFailure(path: path, message: run.stderr)
        }
        let format = object["format"] as? [String: Any] ?? [:]
        let tags = format["tags"] as? [String: Any] ?? [:]
        let streams = (object["streams"] as? [[String: Any]] ?? []).map { s -> Stream in
            func number(_ key: String) -> Double? { (s[key] as? String).flatMap(Double.init) ?? (s[key] as? Double) }
            let sar = (s["sample_aspect_ratio"] as? String).flatMap { text -> Double? in
                let parts = text.split(separator: ":").compactMap { Double($0) }
                return parts.count == 2 && parts[0] > 0 && parts[1] > 0 ? parts[0] / parts[1] : nil
            } ?? 1
            var rotation = 0
            for side in s["side_data_list"] as? [[String: Any]] ?? [] {
                if let r = side["rotation"] as? Int { rotation = ((-r % 360) + 360) % 360 }
                if let r = side["rotation"] as? Double { rotation = ((-Int(r) % 360) + 360) % 360 }
            }
            let disposition = s["disposition"] as? [String: Any] ?? [:]
            return Stream(index: s["index"] as? Int ?? 0, type: s["codec_type"] as? String ?? "", codec: s["codec_name"] as? String ?? "",
                          tag: s["codec_tag_string"] as? String ?? "", width: s["width"] as? Int ?? 0, height: s["height"] as? Int ?? 0,
                          sampleAspect: sar, start: number("start_time"), duration: number("duration"), rotation: rotation,
                          attachedPicture: (disposition["attached_pic"] as? Int ?? 0) == 1,
                          frames: (s["nb_read_frames"] as? String).flatMap(Int.init))
        }
        return FFprobeReport(formatName: format["format_name"] as? String ?? "", majorBrand: tags["major_brand"] as? String,
                             duration: (format["duration"] as? String).flatMap(Double.init), streams: streams)
    }

    struct ProbeFailure: Error, CustomStringConvertible {
        let path: String
        let message: String
        var description: String { "ffprobe failed on \(path): \(message)" }
    }
}

/// Running the Preparer the way the CLI does, in a fresh output folder, checking the access ledger.
enum AVPrepare {
    struct Outcome {
        let report: PrepareReport
        let folder: URL
        /// Every file left in the output folder (the output, the thumbnail; never a temporary file).
        let files: [String]
    }

    static func run(_ path: String, scope: URL, options: (String) -> PrepareOptions) throws -> Outcome {
        let folder = TestEnvironment.temporaryFolder("av-prepare")
        let ledger = try AccessLedger.forTests([scope, folder])
        let handle = try ledger.acquire(path)
        let report = Preparer(options: options(folder.path)).prepare(handle, ledger: ledger)
        handle.release()
        #expect(ledger.report.isClean, "access ledger: \(ledger.report.problems)")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.sorted() ?? []
        return Outcome(report: report, folder: folder, files: files)
    }

    static func run(_ path: String, scope: URL, profile: Profile = .ios, maxBytes: Int64? = nil, maxDuration: Double? = nil,
                    start: Double = 0, trim: TrimMode = .fast, deadline: Double? = nil) throws -> Outcome {
        try run(path, scope: scope) { folder in
            PrepareOptions(profile: profile, outputFolder: folder, maxBytes: maxBytes, maxDuration: maxDuration,
                           start: start, deadline: deadline, trim: trim)
        }
    }
}

enum AVFiles {
    /// Whether the top-level `moov` box comes before the first `mdat` (faststart).
    static func moovBeforeMdat(_ path: String) throws -> Bool {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1, offset + 16 <= data.count { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
            if size == 0 { size = data.count - offset }
            if type == "moov" { return true }
            if type == "mdat" { return false }
            guard size >= 8 else { return false }
            offset += size
        }
        return false
    }

    /// The mean RGB of a region of an image (normalized rect), decoded by the `ffmpeg` CLI.
    static func meanColour(_ path: String, x: Double = 0, y: Double = 0, width: Double = 1, height: Double = 1) throws -> (r: Int, g: Int, b: Int) {
        let raw = TestEnvironment.temporaryFolder("colour").appendingPathComponent("pixel.rgb")
        let filter = "crop=iw*\(width):ih*\(height):iw*\(x):ih*\(y),scale=1:1:flags=area"
        let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-i", path, "-vf", filter, "-f", "rawvideo", "-pix_fmt", "rgb24", raw.path])
        let bytes = try Data(contentsOf: raw)
        guard run.status == 0, bytes.count >= 3 else { throw FFprobeReport.ProbeFailure(path: path, message: run.stderr) }
        return (Int(bytes[0]), Int(bytes[1]), Int(bytes[2]))
    }

    /// Runs the `ffmpeg` CLI (allowed in tests only) to make an input; fails the test when it fails.
    static func ffmpeg(_ arguments: [String]) throws {
        let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y"] + arguments)
        guard run.status == 0 else { throw FFprobeReport.ProbeFailure(path: arguments.last ?? "", message: run.stderr) }
    }

    /// An 8-bit 4:2:0 H.264 clip (x264 ultrafast, with any `options` of its own) of the lavfi
    /// `source`, written to `path`.
    static func h264(_ source: String, to path: String, options: [String] = []) throws {
        try ffmpeg(["-f", "lavfi", "-i", source, "-c:v", "libx264", "-preset", "ultrafast"] + options + ["-pix_fmt", "yuv420p", path])
    }

    /// A clip whose picture is red for 1 s, then green, then blue (and so on for `colours`), with a
    /// keyframe only at the start, 25 fps, and a 440 Hz tone: the colour on screen says the time.
    static func colourClip(_ path: String, colours: [String] = ["red", "green", "blue"], size: String = "320x240",
                           keyframeInterval: Int = 250) throws {
        var arguments: [String] = []
        for colour in colours { arguments += ["-f", "lavfi", "-i", "color=c=\(colour):s=\(size):r=25:d=1"] }
        arguments += ["-f", "lavfi", "-i", "sine=f=440:d=\(colours.count):sample_rate=48000"]
        let inputs = (0..<colours.count).map { "[\($0):v]" }.joined()
        arguments += ["-filter_complex", "\(inputs)concat=n=\(colours.count):v=1:a=0[v]", "-map", "[v]", "-map", "\(colours.count):a",
                      "-c:v", "libx264", "-preset", "veryfast", "-g", String(keyframeInterval), "-pix_fmt", "yuv420p",
                      "-c:a", "aac", "-b:a", "96k", "-movflags", "+faststart", path]
        try ffmpeg(arguments)
    }

    /// Rewrites the first video track's `tkhd` matrix to rotate 90° clockwise on display (as an
    /// iPhone does for portrait video; FFmpeg 5.1's CLI cannot write one).
    static func rotateNinety(_ source: String, to target: String) throws {
        var b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        func children(_ start: Int, _ end: Int) -> [(String, Int, Int)] {
            var out: [(String, Int, Int)] = []
            var i = start
            while i + 8 <= end {
                let size = be32(i)
                guard size >= 8 else { break }
                out.append((String(decoding: b[i + 4..<i + 8], as: UTF8.self), i, i + size))
                i += size
            }
            return out
        }
        func put(_ value: Int32, at i: Int) {
            let u = UInt32(bitPattern: value)
            b[i] = UInt8(u >> 24); b[i + 1] = UInt8(u >> 16 & 0xFF); b[i + 2] = UInt8(u >> 8 & 0xFF); b[i + 3] = UInt8(u & 0xFF)
        }
        guard let moov = children(0, b.count).first(where: { $0.0 == "moov" }) else { throw FFprobeReport.ProbeFailure(path: source, message: "no moov") }
        for trak in children(moov.1 + 8, moov.2) where trak.0 == "trak" {
            let kids = children(trak.1 + 8, trak.2)
            guard let mdia = kids.first(where: { $0.0 == "mdia" }), let tkhd = kids.first(where: { $0.0 == "tkhd" }),
                  let hdlr = children(mdia.1 + 8, mdia.2).first(where: { $0.0 == "hdlr" }),
                  String(decoding: b[hdlr.1 + 16..<hdlr.1 + 20], as: UTF8.self) == "vide" else { continue }
            let version = b[tkhd.1 + 8]
            let m = tkhd.1 + 12 + (version == 1 ? 32 : 20) + 16
            let height = Int32(be32(m + 40))
            for (k, v) in [Int32(0), 0x10000, 0, -0x10000, 0, 0, height, 0, 0x4000_0000].enumerated() { put(v, at: m + 4 * k) }
            try Data(b).write(to: URL(fileURLWithPath: target))
            return
        }
        throw FFprobeReport.ProbeFailure(path: source, message: "no video track")
    }
}

extension AVFiles {
    /// The mean colour of the frame a player shows at `time` in a movie, decoded by the `ffmpeg` CLI
    /// (accurate seek: keyframe, then decode to the time).
    static func frameColour(_ path: String, at time: Double) throws -> (r: Int, g: Int, b: Int) {
        let raw = TestEnvironment.temporaryFolder("frame").appendingPathComponent("frame.rgb")
        try ffmpeg(["-ss", String(time), "-i", path, "-frames:v", "1", "-vf", "scale=1:1:flags=area", "-f", "rawvideo",
                    "-pix_fmt", "rgb24", raw.path])
        let bytes = try Data(contentsOf: raw)
        guard bytes.count >= 3 else { throw FFprobeReport.ProbeFailure(path: path, message: "no frame at \(time) s") }
        return (Int(bytes[0]), Int(bytes[1]), Int(bytes[2]))
    }

    /// The name of the dominant primary in a colour (`red`, `green`, `blue`) or `mixed`.
    static func primary(_ c: (r: Int, g: Int, b: Int)) -> String {
        // lavfi "green" is #008000: compare each channel against the others.
        if c.r > 150 && c.g < 80 && c.b < 80 { return "red" }
        if c.g > 90 && c.r < 60 && c.b < 60 { return "green" }
        if c.b > 150 && c.r < 80 && c.g < 80 { return "blue" }
        return "mixed(\(c.r),\(c.g),\(c.b))"
    }

    /// A clip whose left half is red and right half blue (`size` is the whole picture).
    static func splitClip(_ path: String, size: (Int, Int) = (320, 240), seconds: Int = 2) throws {
        let half = "\(size.0 / 2)x\(size.1)"
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=\(half):r=25:d=\(seconds)", "-f", "lavfi", "-i", "color=c=blue:s=\(half):r=25:d=\(seconds)",
                    "-filter_complex", "[0:v][1:v]hstack[v]", "-map", "[v]", "-c:v", "libx264", "-preset", "veryfast",
                    "-pix_fmt", "yuv420p", "-movflags", "+faststart", path])
    }

    /// A few seconds of detailed, moving 854×480 picture and a tone: hard enough to compress that a
    /// tight byte budget binds.
    static func busyClip(_ path: String, seconds: Int = 4) throws {
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=854x480:r=25:d=\(seconds),noise=alls=10:allf=t",
                    "-f", "lavfi", "-i", "sine=f=330:d=\(seconds):sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast",
                    "-crf", "16", "-c:a", "aac", "-b:a", "128k", "-ac", "2", path])
    }
}
