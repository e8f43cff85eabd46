import AttachKit
import Foundation

/// The transcoding budget table: how long each operation takes per input and per second of
/// media on this machine, and the longest input that fits a deadline (default 30 s, the
/// Notification Service Extension's budget).
struct BudgetRow {
    let operation: String
    let inputClass: String
    /// The size of the input in the operation's unit (seconds of media, megapixels, frames).
    let amount: Double
    let unit: String
    let stats: Stats
    /// Set when the probing run produced no output: refused up front (no preset could meet the
    /// deadline) or stopped when the deadline ran out.
    var refusal: String? = nil
    /// Runs that stopped cleanly because the deadline ran out (their time is the deadline's).
    var deadlineMisses = 0

    var perUnit: Double { amount > 0 ? stats.wall / amount : 0 }
    var cpuPerUnit: Double { amount > 0 ? stats.cpu / amount : 0 }
}

struct Budget {
    let attachkit: String
    let inputs: Inputs
    let scratch: URL
    let quick: Bool
    let repetitions: Int

    /// Each operation measured on inputs of growing size.
    func measure(log: (String) -> Void) -> [BudgetRow] {
        var rows: [BudgetRow] = []
        func run(_ operation: String, _ inputClass: String, _ amount: Double, _ unit: String, _ command: [String], out: String) {
            let reset = { try? FileManager.default.removeItem(atPath: out); try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true) }
            reset()
            _ = Measure.run(command)
            var samples: [Sample] = []
            var deadlineMisses = 0
            for _ in 0..<repetitions {
                reset()
                var sample = Measure.run(command)
                // A deadline that ran out is a measured outcome (the pipeline stopped cleanly at
                // the deadline), not a broken run: it is counted and shown, not failed.
                if sample.status == 1, sample.failure?.contains("deadline-exceeded") == true {
                    deadlineMisses += 1
                    sample = Sample(wall: sample.wall, user: sample.user, system: sample.system, peakKB: sample.peakKB, status: 0)
                }
                samples.append(sample)
            }
            var row = BudgetRow(operation: operation, inputClass: inputClass, amount: amount, unit: unit, stats: Stats(samples: samples))
            row.deadlineMisses = deadlineMisses
            log("  \(operation) \(inputClass): \(fmt(row.stats.wall)) s wall, \(fmt(row.stats.cpu)) s CPU"
                + (deadlineMisses > 0 ? " (deadline ran out in \(deadlineMisses) of \(samples.count) runs)" : "")
                + (row.stats.failure.map { " (FAILED: \($0))" } ?? ""))
            rows.append(row)
        }
        let out = scratch.appendingPathComponent("budget").path
        for mp in quick ? [3, 12] : [3, 12, 24] {
            run("image → 2048 px (ios)", "\(mp) MP JPEG", Double(mp), "MP",
                [attachkit, "prepare", "--profile", "ios", "--out", out, inputs.photo(megapixels: mp)], out: out)
        }
        for frames in quick ? [24] : [24, 96] {
            run("GIF → ≤ 300 KB", "\(frames) frames 320x240", Double(frames), "frame",
                [attachkit, "prepare", "--profile", "ios", "--max-bytes", "300KB", "--out", out, inputs.gif(frames: frames)], out: out)
        }
        for seconds in quick ? [10, 30] : [30, 120] {
            run("WAV → AAC (M4A)", "\(seconds) s stereo WAV", Double(seconds), "s",
                [attachkit, "prepare", "--profile", "apple", "--max-bytes", "1MB", "--out", out, inputs.wav(seconds: seconds)], out: out)
        }
        let heights = quick ? [480, 720] : [480, 720, 1080]
        let durations = quick ? [5, 10] : [10, 30]
        for height in heights {
            for seconds in durations {
                let clip = inputs.video(height: height, seconds: seconds, codec: "vp9")
                run("VP9 → H.264 (ios) veryfast", "\(height)p \(seconds) s WebM", Double(seconds), "s",
                    [attachkit, "prepare", "--profile", "ios", "--out", out, clip], out: out)
            }
        }
        // The preset dimension: a deadline of 60 % of the veryfast time makes the pipeline pick a
        // faster x264 preset (reported in its notes), or refuse up front when none can make it.
        let veryfast = rows.filter { $0.operation.hasSuffix("veryfast") }
        for height in heights {
            for seconds in durations {
                let clip = inputs.video(height: height, seconds: seconds, codec: "vp9")
                let inputClass = "\(height)p \(seconds) s WebM"
                let measured = veryfast.first { $0.inputClass == inputClass }?.stats.wall ?? Double(seconds)
                let deadline = fmt(max(1, measured * 0.6), 1)
                let report = Measure.output([attachkit, "prepare", "--json", "--profile", "ios", "--deadline", deadline, "--out", out + "-probe", clip])
                let json = try? JSONValue.parse(report.trimmingCharacters(in: .whitespacesAndNewlines))
                if let error = json?["error"], let code = error["code"]?.stringValue {
                    log("  deadline \(deadline) s for \(inputClass): no output (\(code))")
                    rows.append(BudgetRow(operation: "VP9 → H.264 (ios) deadline \(deadline) s", inputClass: inputClass, amount: Double(seconds),
                                          unit: "s", stats: Stats(samples: []), refusal: "\(code): \(error["message"]?.stringValue ?? "")"))
                    continue
                }
                let preset = report.range(of: "x264 ").map { String(report[$0.upperBound...].prefix { $0.isLetter }) } ?? "?"
                run("VP9 → H.264 (ios) \(preset)", inputClass, Double(seconds), "s",
                    [attachkit, "prepare", "--profile", "ios", "--deadline", deadline, "--out", out, clip], out: out)
            }
        }
        for seconds in durations {
            run("MP4 fast trim to 5 s", "\(heights.last!)p \(seconds) s MP4", Double(seconds), "s",
                [attachkit, "prepare", "--profile", "apple", "--max-duration", "5", "--trim", "fast", "--out", out,
                 inputs.video(height: heights.last!, seconds: seconds)], out: out)
        }
        return rows
    }

    /// The longest input (in each operation's unit) that finishes within `deadline` seconds: the
    /// library's line through the measured points (``AttachKit/BudgetRow/longestWithin(_:rows:)``,
    /// what `attachkit budget` uses), over the rows that ran to the end.
    static func longestWithin(_ deadline: Double, rows all: [BudgetRow]) -> Double? {
        AttachKit.BudgetRow.longestWithin(deadline, rows: all.map { row in
            AttachKit.BudgetRow(operation: row.operation, input: row.inputClass, amount: row.amount, unit: row.unit, seconds: row.stats.wall,
                                error: row.refusal ?? (row.stats.failed || row.deadlineMisses > 0 ? "did not finish" : nil))
        })
    }
}
