import Foundation
import Testing
@testable import AttachKit

/// Issue 13 item 4: a copied output (passthrough, rename, stream copy) is decoded before it is
/// handed back; a long video GOP by GOP up to `verifySeconds`, and the report says how much.
@Suite("Prepare: copied outputs are decoded, long videos GOP by GOP up to a bound", .serialized)
struct CopyVerificationTests {
    @Test("GOPs are chosen evenly: the first always, then whenever the decoded share falls behind the budget's share")
    func sampling() {
        // Given: 40 one-second GOPs and a 5-second budget
        var sampler = GOPSampler(budget: 5, duration: 40)
        var steps: [GOPSampler.Step] = []
        var decoded: [Int] = []
        for second in 0..<40 {
            steps.append(sampler.keyframe(at: Double(second)))
            if sampler.decoding { decoded.append(second) }
        }
        sampler.finish(at: 40)

        // Then: GOPs 0, 8, 16, 24, 32 (5 s), each entered by a resume and left by a pause
        #expect(decoded == [0, 8, 16, 24, 32])
        #expect(steps.filter { $0 == .resume }.count == 4 && steps.filter { $0 == .pause }.count == 5)
        #expect(sampler.decodedSeconds == 5)
        #expect(sampler.coverage?.hasPrefix("5 of 40 GOPs of the video (about 5.0 s of 40.0 s)") == true, "\(sampler.coverage ?? "nil")")
    }

    @Test("without a budget, with a budget at least the duration, or an unknown duration, every GOP is decoded",
          arguments: [(nil, 40.0), (40, 40), (100, 40), (5, nil)] as [(Double?, Double?)])
    func everything(budget: Double?, duration: Double?) {
        var sampler = GOPSampler(budget: budget, duration: duration)
        for second in 0..<40 { #expect(sampler.keyframe(at: Double(second)) == .keep) }
        sampler.finish(at: 40)
        #expect(sampler.coverage == nil)
    }

    /// A 40 s, 160×90, 25 fps H.264 MP4 with a keyframe every second (faststart: `apple` copies it
    /// as it is), and the middle of the packet shown at `damagedSecond` (past the first packet's
    /// x264 settings text, inside its picture data).
    static func longClip(in folder: URL, damagedSecond: Double) throws -> (path: String, damageAt: Int) {
        let path = folder.appendingPathComponent("long.mp4").path
        let make = try TestEnvironment.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=40",
                                                      "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p",
                                                      "-movflags", "+faststart", path])
        #expect(make.status == 0, "\(make.stderr)")
        let packets = try TestEnvironment.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,pos,size",
                                                          "-of", "csv=p=0", path])
        let position = packets.stdout.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: ",")
            guard fields.count == 3, let time = Double(fields[0]), abs(time - damagedSecond) < 0.001,
                  let start = Int(fields[1]), let size = Int(fields[2]) else { return nil }
            return start + size / 2
        }.first
        return (path, try #require(position, "a packet at \(damagedSecond) s"))
    }

    /// `path` with 40 bytes from `offset` set to 0xFF, written beside it as `name`.
    static func damaged(_ path: String, at offset: Int, as name: String) throws -> String {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for i in offset..<(offset + 40) { bytes[i] = 0xFF }
        let out = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: out))
        return out
    }

    @Test("a long clip copied through is verified GOP by GOP: damage in a decoded GOP is refused, the note says how much was decoded")
    func boundedVerification() throws {
        // Given: a 40 s clip, intact, damaged in its first GOP, and damaged in GOP 4 (skipped at 5 s of 40)
        let folder = TestEnvironment.temporaryFolder("copy-verification")
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try Self.longClip(in: folder, damagedSecond: 0)
        let clip = first.path
        let damagedFirst = try Self.damaged(clip, at: first.damageAt, as: "damaged-first.mp4")
        let fourth = try Self.longClip(in: folder, damagedSecond: 4).damageAt
        let damagedSkipped = try Self.damaged(clip, at: fourth, as: "damaged-skipped.mp4")
        for damaged in [damagedFirst, damagedSkipped] {
            let deep = try Through.validate(damaged, scope: folder, profile: .apple, deep: true)
            #expect(deep.diagnostics.contains { $0.code == .corrupt }, "validate --deep finds \(damaged) corrupt")
        }
        func prepare(_ path: String, verifySeconds: Double) throws -> PrepareReport {
            try AVPrepare.run(path, scope: folder) {
                PrepareOptions(profile: .apple, outputFolder: $0, verifySeconds: verifySeconds)
            }.report
        }

        // When / Then: the intact clip is copied, 5 of its 40 GOPs decoded, and the note says so
        let intact = try prepare(clip, verifySeconds: 5)
        #expect(intact.action == .passthrough, "\(intact.error?.message ?? "")")
        #expect(intact.notes.contains { $0.hasPrefix("5 of 40 GOPs of the video") && $0.contains("verifySeconds 5 s") }, "\(intact.notes)")
        let output = try #require(intact.output)
        #expect(try FFprobeReport.of(output, countFrames: true).video?.frames == 1_000)
        // Within the default bound (60 s) the whole clip is decoded: no note.
        #expect(try prepare(clip, verifySeconds: PrepareOptions.defaultVerifySeconds).notes.allSatisfy { !$0.contains("GOPs") })

        // Damage in a decoded GOP is refused; damage in a skipped one is found once the bound covers it.
        #expect(try prepare(damagedFirst, verifySeconds: 5).error?.code == "corrupt")
        let skipped = try prepare(damagedSkipped, verifySeconds: 5)
        #expect(skipped.output != nil && skipped.notes.contains { $0.contains("GOPs") }, "the bound is stated: \(skipped.notes)")
        #expect(try prepare(damagedSkipped, verifySeconds: 40).error?.code == "corrupt")
    }

    @Test("the CLI and serve read verifySeconds the same way, and a batch's worker gets it")
    func optionTravels() throws {
        var options = PrepareOptions(outputFolder: "/tmp/out", verifySeconds: 12)
        #expect(options.requestOptions.contains { $0.0 == "verifySeconds" && $0.1 == .number(12) })
        let fingerprint = options.fingerprint
        options.verifySeconds = PrepareOptions.defaultVerifySeconds
        #expect(!options.requestOptions.contains { $0.0 == "verifySeconds" })
        #expect(options.fingerprint != fingerprint)
        let decoded = try OptionsDecoder(TextOptions(values: [("verifySeconds", "12"), ("out", "/tmp/out")], flags: []))
            .prepareOptions(defaultProfile: .ios)
        #expect(decoded.verifySeconds == 12)
    }
}
