import Foundation
import Testing
@testable import AttachKit

/// The rest of issue 13's HDR: a 4K HDR10 transcode fits the default decode cap, HDR of any size
/// converts (odd, tiny), and every frame is converted by its own tags (an SDR and a PQ segment
/// joined). The clips are generated here, short and simple, in a temporary folder.
@Suite("HDR: 4K within the cap, any size, tags per frame")
struct HDR2Tests {
    /// The zscale step `generate.sh` uses to put an SDR picture into PQ (white at 100 cd/m²).
    static let toPQ = "zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:m=2020_ncl:p=2020:r=tv:npl=100:t=smpte2084"
    static let pqTags = ["-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc"]

    /// Runs `ffmpeg` quietly with `arguments`, failing the test when it fails.
    static func ffmpeg(_ arguments: [String], stdin: Data? = nil) throws {
        let run = try TestEnvironment.run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + arguments, stdin: stdin)
        guard run.status == 0 else { throw FFprobeReport.ProbeFailure(path: arguments.last ?? "", message: run.stderr) }
    }

    @Test("a 4K HEVC Main 10 PQ clip re-encoded for ios fits the default 512 MiB decode cap: 8-bit H.264 BT.709, tone-mapped")
    func fourK() throws {
        let folder = TestEnvironment.temporaryFolder("hdr2-4k")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("pq_3840x2160.mp4").path
        // 1 s at 10 fps of a simple picture, scaled up without new detail: x265 ultrafast is quick on it.
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=480x270:rate=10:duration=1",
                         "-vf", "scale=3840:2160:flags=neighbor,\(Self.toPQ),format=yuv420p10le", "-c:v", "libx265",
                         "-preset", "ultrafast", "-tag:v", "hvc1",
                         "-x265-params", "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc"]
                        + Self.pqTags + [clip])
        let bytes = try #require(try FileManager.default.attributesOfItem(atPath: clip)[.size] as? Int)
        // Under the clip's own size: the copy does not fit, so it is re-encoded.
        let outcome = try AVPrepare.run(clip, scope: folder, maxBytes: Int64(bytes) * 9 / 10)
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        #expect(outcome.report.actions.contains(.transcoded), "\(outcome.report.actions)")
        let stream = try HDRTests.stream(output)
        #expect(stream["codec_name"] == "h264" && stream["pix_fmt"] == "yuv420p", "\(stream)")
        #expect(stream["color_primaries"] == "bt709" && stream["color_transfer"] == "bt709" && stream["color_space"] == "bt709",
                "\(stream)")
        let height = try #require(outcome.report.after?.height)
        #expect((360...1080).contains(height), "\(height)")
        #expect(outcome.report.notes.contains("HDR (PQ) tone-mapped to SDR BT.709 (mobius)"), "\(outcome.report.notes)")
    }

    @Test("the 4K HDR transcode's estimate: one decoder frame thread, two float pictures at the output size, under the cap")
    func fourKEstimate() throws {
        var info = MediaInfo(path: "/x.mov", bytes: 1, kind: .video, container: .mov)
        (info.codec, info.width, info.height, info.pixelFormat, info.bitDepth, info.level) = (.hevc, 3840, 2160, "yuv420p10le", 10, 150)
        info.hdr = HDRInfo(format: .pq)
        let frame = 3840 * 2160 * 3
        // 6 references (level 5 at 4K) + 1 frame thread + 2, whatever the core count.
        for threads in [1, 2, 8, 16] {
            let decoder = try #require(DecodeMemoryEstimator.videoDecoder(info, threads: threads))
            #expect(decoder.fixedBytes == Int64(frame * 9), "\(threads): \(decoder)")
        }
        let memory = try #require(DecodeMemoryEstimator.transcode(info, threads: 2, output: (1920, 1080)))
        #expect(memory.fixedBytes == Int64(frame * 9) + Int64(1920.0 * 1080 * (106 + 24)), "\(memory)")
        #expect(memory.fixedBytes < SafetyLimits().maxDecodeBytes)
        // 4K 8-bit keeps its frame threads.
        (info.pixelFormat, info.bitDepth) = ("yuv420p", 8)
        #expect(DecoderBudget.frameThreads(4, frameBytes: DecodeMemoryEstimator.frameBytes(of: info)) == 4)
        var budget = DecoderBudget(threads: nil, maxPixels: 1 << 30)
        budget.frameBytes = Double(frame)
        #expect(budget.videoDecoderOptions["thread_type"] == "slice")
        budget.frameBytes = DecodeMemoryEstimator.frameBytes(of: info)
        #expect(budget.videoDecoderOptions["thread_type"] == nil)
    }

    @Test("HDR of odd and tiny sizes: poster frame and transcode succeed, tone-mapped", arguments: [
        (321, 181), (3, 3), (1, 1), (2, 1),
    ])
    func oddSizes(width: Int, height: Int) throws {
        let folder = TestEnvironment.temporaryFolder("hdr2-odd")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clip = folder.appendingPathComponent("pq_\(width)x\(height).webm").path
        // VP9 Profile 2 takes any size; 10 mid-grey frames.
        let grey = Data(repeating: 0x80, count: width * height * 3 * 10)
        try Self.ffmpeg(["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(width)x\(height)", "-r", "10", "-i", "-",
                         "-vf", "scale=out_color_matrix=bt2020:out_range=tv,format=yuv420p10le", "-c:v", "libvpx-vp9",
                         "-profile:v", "2", "-pix_fmt", "yuv420p10le"] + Self.pqTags + ["-color_range", "tv", clip], stdin: grey)
        // Asked larger than the clip, the poster keeps its odd size (tone-mapped to 4:4:4).
        let (report, jpeg) = try AudioVideoThumbnailTests.render(clip, scope: folder, request: ThumbnailRequest(size: 400, time: 0.5))
        #expect(report.ok, "\(String(describing: report.error))")
        #expect(report.width == width && report.height == height)
        #expect(FileManager.default.fileExists(atPath: jpeg))
        let outcome = try AVPrepare.run(clip, scope: folder)
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        let stream = try HDRTests.stream(output)
        #expect(stream["codec_name"] == "h264" && stream["pix_fmt"] == "yuv420p" && stream["color_transfer"] == "bt709", "\(stream)")
        #expect(outcome.report.notes.contains("HDR (PQ) tone-mapped to SDR BT.709 (mobius)"), "\(outcome.report.notes)")
    }

    @Test("the graph: odd-sized 4:2:0 frames upsampled to 4:4:4 first, odd outputs in 4:4:4, primaries converted in the first step")
    func graphs() {
        let even = ToneMapper.graph(for: .unspecified, format: .pq, width: 320, height: 180)
        #expect(even.hasPrefix("zscale=w=320:h=180:") && even.hasSuffix(",format=yuv420p") && !even.contains("zscale=p="), "\(even)")
        let odd = ToneMapper.graph(for: .unspecified, format: .pq, width: 321, height: 181, wholeChroma: false)
        #expect(odd.hasPrefix("format=yuv444p16le,zscale=w=321:h=181:") && odd.hasSuffix(",format=yuv444p"), "\(odd)")
        #expect(even.contains(":t=linear:npl=100:m=9:p=bt709:r=tv,format=gbrpf32le,tonemap="), "\(even)")
    }

    @Test("each frame by its own tags: PQ and HLG tagged frames are HDR, SDR-tagged frames are not, untagged ones take the stream's")
    func frameFormats() {
        func colour(_ transfer: Int) -> VideoColour { VideoColour(matrix: 9, primaries: 9, transfer: transfer) }
        #expect(ToneMapper.frameFormat(colour(16), stream: nil) == .pq)
        #expect(ToneMapper.frameFormat(colour(18), stream: .pq) == .hlg)
        #expect(ToneMapper.frameFormat(colour(1), stream: .pq) == nil)
        #expect(ToneMapper.frameFormat(colour(6), stream: .hlg) == nil)
        #expect(ToneMapper.frameFormat(colour(2), stream: .hlg) == .hlg)
        #expect(ToneMapper.frameFormat(colour(14), stream: .hlg) == .hlg)
        #expect(ToneMapper.frameFormat(colour(2), stream: nil) == nil)
    }

    @Test("an SDR and a PQ segment joined, in both orders: each poster frame converted by its own tags", arguments: [true, false])
    func transferChange(pqFirst: Bool) throws {
        let folder = TestEnvironment.temporaryFolder("hdr2-concat")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=1"]
        let codec = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le", "-f", "mpegts"]
        let sdr = folder.appendingPathComponent("sdr.ts").path, pq = folder.appendingPathComponent("pq.ts").path
        try Self.ffmpeg(source + ["-vf", "format=yuv420p10le"] + codec
                        + ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", sdr])
        try Self.ffmpeg(source + ["-vf", "\(Self.toPQ),format=yuv420p10le"] + codec + Self.pqTags + [pq])
        let joined = folder.appendingPathComponent("joined.mp4").path, reference = folder.appendingPathComponent("sdr.mp4").path
        try Self.ffmpeg(["-i", "concat:" + (pqFirst ? "\(pq)|\(sdr)" : "\(sdr)|\(pq)"), "-c", "copy", joined])
        try Self.ffmpeg(["-i", sdr, "-c", "copy", reference])

        func level(_ path: String, at time: Double) throws -> Double {
            let (report, jpeg) = try AudioVideoThumbnailTests.render(path, scope: folder, request: ThumbnailRequest(time: time))
            #expect(report.ok, "\(String(describing: report.error))")
            return try Levels.video(jpeg).y
        }
        let original = try level(reference, at: 0.5)
        let (pqTime, sdrTime) = pqFirst ? (0.5, 1.5) : (1.5, 0.5)
        // The SDR segment's frame is shown as it is (the same picture as the original's); the PQ
        // one is tone-mapped (within issue 13's 10 %). Read as PQ, the SDR frame lands 10 % under.
        let sdrLevel = try level(joined, at: sdrTime), pqLevel = try level(joined, at: pqTime)
        #expect(abs(sdrLevel - original) <= original * 0.02, "SDR segment: mean Y \(sdrLevel) vs \(original)")
        #expect(abs(pqLevel - original) <= original * HDRTests.levelTolerance, "PQ segment: mean Y \(pqLevel) vs \(original)")

        // Re-encoded (High 10 does not play): SDR BT.709 out, and the tone mapping is noted even
        // when the stream's first frames (and so its tags) are SDR.
        let outcome = try AVPrepare.run(joined, scope: folder)
        let output = try #require(outcome.report.output, "\(String(describing: outcome.report.error))")
        let stream = try HDRTests.stream(output)
        #expect(stream["pix_fmt"] == "yuv420p" && stream["color_transfer"] == "bt709", "\(stream)")
        #expect(outcome.report.notes.contains("HDR (PQ) tone-mapped to SDR BT.709 (mobius)"), "\(outcome.report.notes)")
    }
}
