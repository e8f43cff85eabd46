import Foundation
import Testing
@testable import AttachKit

/// `--deadline`: the fastest strategy, a clean stop with no partial output, the elapsed time reported.
@Suite("Audio/video deadlines")
struct AudioVideoDeadlineTests {
    @Test("a tiny deadline stops a transcode with deadline-exceeded and leaves no file")
    func tinyDeadline() throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("video/webm_vp9_opus_320x240_2s.webm"), scope: TestEnvironment.testMedia,
                                        profile: .ios, deadline: 0.02)
        #expect(outcome.report.error?.code == "deadline-exceeded")
        #expect(outcome.report.deadlineMet == false)
        #expect(outcome.report.output == nil)
        #expect(outcome.files.isEmpty, "left \(outcome.files)")
    }

    @Test("a deadline that runs out once the encode has begun stops the clip's writer cleanly")
    func stopsInsideTheWriter() throws {
        // Given a busy 4 s clip, planned as an exact trim (a re-encode) under a 30 s deadline whose
        // clock runs out the moment the output's temporary file holds bytes (the writer has
        // written encoded packets), so the stop falls inside the writer on any machine
        let folder = TestEnvironment.temporaryFolder()
        let clip = folder.appendingPathComponent("busy.mp4").path
        try AVFiles.busyClip(clip)
        let out = TestEnvironment.temporaryFolder("deadline-writer")
        let outPath = out.path
        var preparer = Preparer(options: PrepareOptions(profile: .ios, outputFolder: outPath, maxDuration: 3.5, start: 0.5,
                                                        deadline: 30, trim: .exact))
        preparer.startDeadline = { budget in
            Deadline(seconds: budget ?? 30) {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: outPath)) ?? []
                let written = names.contains { name in
                    let size = (try? FileManager.default.attributesOfItem(atPath: outPath + "/" + name)[.size] as? Int) ?? 0
                    return (size ?? 0) > 0
                }
                return written ? 31 : 0
            }
        }
        // When it is prepared
        let ledger = try AccessLedger.forTests([folder, out])
        let handle = try ledger.acquire(clip)
        let report = preparer.prepare(handle, ledger: ledger)
        handle.release()
        // Then it stops in the encode loop (checked every 16 packets), never at planning, and the
        // partial file is gone: the output folder is empty
        let error = try #require(report.error)
        #expect(error.code == "deadline-exceeded")
        #expect(error.message.contains("during transcoding"), "\(error.message)")
        #expect(report.deadlineMet == false)
        #expect(report.output == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outPath).isEmpty)
        #expect(ledger.report.isClean, "access ledger: \(ledger.report.problems)")
    }

    @Test("a stream copy meets a generous deadline and reports it")
    func copyMeetsDeadline() throws {
        let outcome = try AVPrepare.run(TestEnvironment.fixture("video/mkv_h264_aac_320x240_2s.mkv"), scope: TestEnvironment.testMedia,
                                        profile: .ios, deadline: 30)
        #expect(outcome.report.ok)
        #expect(outcome.report.deadlineMet == true)
        #expect(outcome.report.deadline == 30)
        #expect(outcome.report.elapsedMilliseconds < 30_000)
        #expect(outcome.report.actions == [.remuxed])
    }

    @Test("uncalibrated, presets get faster as the work outgrows the time left (the fallback constants)")
    func presets() {
        let estimator = TranscodeEstimator(calibration: nil, cores: 2)
        let work = TranscodeWork(frames: 30.0 * 30, sourceCodec: "vp9", inputWidth: 1920, inputHeight: 1080, outputWidth: 1920, outputHeight: 1080)
        func chosen(_ remaining: Double?) -> EncoderSpeed? {
            if case .preset(let preset, _, _) = estimator.choose(work, remaining: remaining) { return preset }
            return nil
        }
        #expect(chosen(nil) == .veryfast)
        #expect(chosen(3600) == .veryfast)
        let veryfast = estimator.seconds(.veryfast, work)
        let superfast = estimator.seconds(.superfast, work)
        let ultrafast = estimator.seconds(.ultrafast, work)
        #expect(superfast < veryfast && ultrafast < superfast)
        #expect(chosen((veryfast + superfast) / 2 / 0.8) == .superfast)
        // Without a calibration the constants are pessimistic: ultrafast is still tried up to twice the time left.
        #expect(chosen(ultrafast * 0.6) == .ultrafast)
        #expect(estimator.choose(work, remaining: ultrafast * 0.4) == .refuse(fastest: ultrafast, at: .ultrafast))
    }

    @Test("an uncalibrated deadline under the estimate: tried, and the note or the refusal says which preset and estimate")
    func underTheEstimateNamesThePreset() throws {
        let folder = TestEnvironment.temporaryFolder("deadline-note")
        let clip = folder.appendingPathComponent("clip.webm").path
        let made = try TestEnvironment.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=4",
                                                      "-c:v", "libvpx-vp9", "-b:v", "2M", "-deadline", "realtime", "-cpu-used", "8", clip])
        try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        // Uncalibrated (an empty cache folder): 0.9 s is under the conservative estimate (about 1.5 s) but within 2× of it.
        let cache = folder.appendingPathComponent("cache").path
        let out = folder.appendingPathComponent("out").path
        let run = try TestEnvironment.run(TestEnvironment.attachkit, ["prepare", "--json", "--profile", "ios", "--max-bytes", "300KB",
                                                                      "--deadline", "0.9", "--out", out, clip],
                                          environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache]) { $1 })
        let report = try JSONValue.parse(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        if let message = report["error"]?["message"]?.stringValue {
            #expect(report["error"]?["code"]?.stringValue == "deadline-exceeded", "\(message)")
            // Stopped while encoding: the preset (and its estimate, or why a second encode ran);
            // before it (a slow debug build): said so.
            let encoding = message.contains("during transcoding") || message.contains("during finishing the output")
            #expect(!encoding || message.contains(" at x264 "), "\(message)")
        } else {
            let notes = (report["notes"]?.arrayValue ?? []).compactMap(\.stringValue).filter { $0.hasPrefix("deadline: x264") }
            #expect(!notes.isEmpty, "\(run.stdout)")
            for note in notes {
                #expect(!note.contains("without the safety margin") && !(note.contains("no room") && note.contains("margin)")), "\(note)")
            }
        }
    }
}
