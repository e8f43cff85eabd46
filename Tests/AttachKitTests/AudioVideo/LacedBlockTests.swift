import Foundation
import Testing
@testable import AttachKit

/// Matroska blocks that lace several frames (Xiph, EBML or fixed-size lacing) time only their first:
/// FFmpeg hands the frames after it on with no time. A stream copy kept only the timed ones.
@Suite("Matroska: laced blocks are copied whole")
struct LacedBlockTests {
    @Test("ALAC in Matroska whose blocks lace 4 frames each (EBML lacing; no parser times them, as AAC's does): prepare remuxes every frame into M4A, timed evenly, the sound as long as the input's")
    func lacedAACIsCopiedWhole() throws {
        let folder = TestEnvironment.temporaryFolder("laced")
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("plain.mka").path
        try AVFiles.ffmpeg(["-f", "lavfi", "-i", "sine=d=3", "-c:a", "alac", plain])
        let laced = try MatroskaLacing.lacing(try Data(contentsOf: URL(fileURLWithPath: plain)), framesPerBlock: 4)
        let input = folder.appendingPathComponent("laced.mka").path
        try laced.write(to: URL(fileURLWithPath: input))
        // The laced input: most packets carry no time, and it decodes to all of its samples
        let untimed = try TestEnvironment.run("ffprobe", ["-v", "error", "-show_entries", "packet=pts", "-of", "csv=p=0", input]).stdout
            .split(separator: "\n").filter { $0 == "N/A" }.count
        #expect(untimed > 15, "\(untimed) packets without a time")
        let samples = { (path: String) throws -> Int in
            try TestEnvironment.run("ffmpeg", ["-v", "error", "-i", path, "-f", "framecrc", "-"]).stdout.split(separator: "\n")
                .filter { !$0.hasPrefix("#") }.compactMap { Int($0.split(separator: ",")[3].trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
        }
        let inputSamples = try samples(input)

        let outcome = try AVPrepare.run(input, scope: folder, profile: .ios)

        #expect(outcome.report.action == .remuxed, "\(outcome.report.action) \(outcome.report.notes) \(outcome.report.error?.message ?? "")")
        let output = try #require(outcome.report.output)
        #expect(try samples(output) == inputSamples)
        let probed = try FFprobeReport.of(output)
        #expect(abs((probed.duration ?? 0) - 3.0) < 0.1, "\(probed.duration ?? -1) s")
        let decode = try TestEnvironment.run("ffmpeg", ["-v", "error", "-i", output, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderr.isEmpty, "\(decode.stderr)")
    }
}

/// Rewrites the SimpleBlocks of a Matroska file ffmpeg wrote (one frame each) into blocks that
/// lace `framesPerBlock` frames with EBML lacing, each cluster kept at its size by a Void element
/// at its end, so the cues still point at the clusters.
enum MatroskaLacing {
    struct Element { let start: Int; let id: UInt32; let dataStart: Int; let size: Int }

    static func element(_ b: [UInt8], at i: Int) -> Element? {
        guard i < b.count else { return nil }
        let first = b[i]
        let idLength = first >= 0x80 ? 1 : first >= 0x40 ? 2 : first >= 0x20 ? 3 : 4
        var id: UInt32 = 0
        for k in 0..<idLength { id = id << 8 | UInt32(b[i + k]) }
        let s = i + idLength
        let lead = b[s]
        var length = 1
        while length <= 8, lead & (0x80 >> (length - 1)) == 0 { length += 1 }
        var size = Int(lead & (0xFF >> length))
        for k in 1..<length { size = size << 8 | Int(b[s + k]) }
        return Element(start: i, id: id, dataStart: s + length, size: size)
    }

    static func unsigned(_ value: Int, length: Int) -> [UInt8] {
        var bytes = (0..<length).map { UInt8(truncatingIfNeeded: value >> (8 * (length - 1 - $0))) }
        bytes[0] |= 0x80 >> (length - 1)
        return bytes
    }

    static func signed(_ value: Int) -> [UInt8] {
        if abs(value) <= 63 { return unsigned(value + 63, length: 1) }
        if abs(value) <= 8191 { return unsigned(value + 8191, length: 2) }
        return unsigned(value + 1_048_575, length: 3)
    }

    static func lacing(_ data: Data, framesPerBlock: Int) throws -> Data {
        var b = [UInt8](data)
        var i = 0
        while i + 4 < b.count {
            guard b[i] == 0x1F, b[i + 1] == 0x43, b[i + 2] == 0xB6, b[i + 3] == 0x75, let cluster = element(b, at: i) else { i += 1; continue }
            var children: [Element] = []
            var j = cluster.dataStart
            while j < cluster.dataStart + cluster.size, let child = element(b, at: j) {
                children.append(child)
                j = child.dataStart + child.size
            }
            var payload: [UInt8] = []
            var group: [Element] = []
            func flush() {
                guard let first = group.first else { return }
                guard group.count > 1 else {  // a block of one frame stays as it is
                    payload += b[first.start..<(first.dataStart + first.size)]
                    group = []
                    return
                }
                let head = Array(b[first.dataStart..<(first.dataStart + 4)])  // track, timecode, flags
                let frames = group.map { Array(b[($0.dataStart + 4)..<($0.dataStart + $0.size)]) }
                var body = [head[0], head[1], head[2], head[3] | 0x06, UInt8(frames.count - 1)]
                if frames.count > 1 {
                    body += unsigned(frames[0].count, length: 4)
                    for k in 1..<(frames.count - 1) { body += signed(frames[k].count - frames[k - 1].count) }
                }
                body += frames.joined()
                payload += [0xA3] + unsigned(body.count, length: 8) + body
                group = []
            }
            for child in children {
                if child.id == 0xA3 {
                    group.append(child)
                    if group.count == framesPerBlock { flush() }
                } else {
                    flush()
                    payload += b[child.start..<(child.dataStart + child.size)]
                }
            }
            flush()
            let leftover = cluster.size - payload.count
            try #require(leftover >= 9, "lacing saved too little in the cluster at byte \(i)")
            payload += [0xEC] + unsigned(leftover - 9, length: 8) + [UInt8](repeating: 0, count: leftover - 9)
            b.replaceSubrange(cluster.dataStart..<(cluster.dataStart + cluster.size), with: payload)
            i = cluster.dataStart + cluster.size
        }
        return Data(b)
    }
}
