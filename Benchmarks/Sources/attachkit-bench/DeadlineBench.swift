import AttachKit
import Foundation

/// The deadline model against real runs (issue 16), written to `deadline.md`:
///
/// 1. `attachkit budget --json CLIP` for each clip: calibrates the machine (the cache the prepares
///    below read) and times the transcode at each x264 preset beside the model's estimate
///    (estimated ÷ real: the estimate's error per preset).
/// 2. For deadlines of 0.1 … 1.6 × the `veryfast` time of each clip, `attachkit prepare --json
///    --deadline`: the preset(s) used, whether the deadline was met (and by how much it was
///    missed when the note promised it), the time used (a refusal's time too), and the SSIM of the
///    output against the source.
///
/// Full mode: a 20 s 1080p and a 10 s 720p VP9 clip (`ATTACHKIT_BENCH_ONE_CLIP=1`: the 1080p one
/// only); `--quick`: a 5 s 480p clip.
struct DeadlineBench {
    let attachkit: String
    let inputs: Inputs
    let scratch: URL
    let quick: Bool

    static let factors = [0.1, 0.25, 0.5, 0.6, 0.75, 1.0, 1.5, 1.6]

    /// Runs the rows and writes `deadline.md` into `folder`.
    /// - Returns: the number of deadlines missed by more than a second after the note said they would be met.
    @discardableResult
    func write(to folder: URL, log: (String) -> Void) -> Int {
        log("▶ deadline model")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clips = quick ? [inputs.video(height: 480, seconds: 5, codec: "vp9")]
            : [inputs.video(height: 1080, seconds: 20, codec: "vp9")] + (ProcessInfo.processInfo.environment["ATTACHKIT_BENCH_ONE_CLIP"] == nil
                ? [inputs.video(height: 720, seconds: 10, codec: "vp9")] : [])
        var lines = ["# Deadline model (\(quick ? "quick" : "full"))", "",
                     "Estimated ÷ real seconds per preset (`attachkit budget`, after its calibration), then one prepare per deadline.", ""]
        var broken = 0
        for clip in clips {
            let name = URL(fileURLWithPath: clip).lastPathComponent
            let budget = (try? JSONValue.parse(Measure.output([attachkit, "budget", "--json", clip]).trimmingCharacters(in: .whitespacesAndNewlines)))
            let rows = budget?["rows"]?.arrayValue ?? []
            lines += ["## \(name)", "", "| preset | real (s) | estimated (s) | estimated ÷ real |", "|---|---|---|---|"]
            for row in rows {
                lines.append("| \(row["preset"]?.stringValue ?? "-") | \(fmt(row["seconds"]?.doubleValue ?? 0)) | "
                             + "\(fmt(row["estimated"]?.doubleValue ?? 0)) | \(fmt(row["estimateRatio"]?.doubleValue ?? 0)) |")
            }
            guard let veryfast = rows.first(where: { $0["preset"]?.stringValue == "veryfast" })?["seconds"]?.doubleValue else {
                log("  \(name): attachkit budget gave no veryfast time")
                lines.append("\nno veryfast time: the budget run failed\n")
                broken += 1
                continue
            }
            lines += ["", "veryfast time \(fmt(veryfast)) s.", "",
                      "| deadline | × veryfast | preset(s) | met | time used (s) | SSIM | note |", "|---|---|---|---|---|---|---|"]
            for factor in Self.factors {
                let row = deadlineRow(clip: clip, deadline: max(0.01, veryfast * factor))
                if row.broken { broken += 1 }
                log("  \(name) deadline \(fmt(veryfast * factor, 1)) s (\(factor)×): \(row.presets) met \(row.met) in \(fmt(row.seconds)) s; \(row.note)")
                lines.append("| \(fmt(veryfast * factor, 1)) s | \(factor) | \(row.presets) | \(row.met) | \(fmt(row.seconds)) | \(row.ssim) | \(row.note) |")
            }
            lines.append("")
        }
        lines.append("Deadlines missed by more than 1 s after the note said they would be met: \(broken).")
        try? lines.joined(separator: "\n").write(to: folder.appendingPathComponent("deadline.md"), atomically: true, encoding: .utf8)
        return broken
    }

    private struct Row {
        var presets = "-"
        var met = "no"
        var seconds = 0.0
        var ssim = "-"
        var note = ""
        var broken = false
    }

    private func deadlineRow(clip: String, deadline: Double) -> Row {
        let out = scratch.appendingPathComponent("deadline").path
        try? FileManager.default.removeItem(atPath: out)
        let text = Measure.output([attachkit, "prepare", "--json", "--profile", "ios", "--deadline", fmt(deadline, 3), "--out", out, clip])
        guard let report = try? JSONValue.parse(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return Row(note: "no report") }
        var row = Row()
        row.seconds = (report["elapsedMs"]?.doubleValue ?? 0) / 1000
        let notes = report["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        // "x264 P: R s (estimated E s)" for each encode that finished; restarts are in the notes too.
        let used = notes.filter { $0.hasPrefix("x264 ") }.map { String($0.dropFirst(5).prefix { $0.isLetter }) }
        let promised = notes.first { $0.hasPrefix("deadline: x264") }
        let chosen = promised.map { String($0.dropFirst("deadline: x264 ".count).prefix { $0.isLetter }) }
        let restarted = notes.contains { $0.contains("restarted at x264") }
        row.presets = used.isEmpty ? "-" : (restarted ? "\(chosen ?? "?") → " : "") + used.joined(separator: ", ")
        if let error = report["error"] {
            row.note = "\(error["code"]?.stringValue ?? ""): \(error["message"]?.stringValue ?? "")"
            row.broken = promised?.contains("without the safety margin") == false && row.seconds > deadline + 1
            return row
        }
        row.met = report["deadlineMet"]?.boolValue == true ? "yes" : "no"
        row.note = promised ?? ""
        row.broken = report["deadlineMet"]?.boolValue != true && row.seconds > deadline + 1 && promised?.contains("without") == false
        if let output = report["output"]?.stringValue {
            let log = Measure.outputWithStderr(["ffmpeg", "-nostdin", "-i", output, "-i", clip, "-lavfi", "[0:v:0][1:v:0]ssim", "-f", "null", "-"])
            if let range = log.range(of: "All:") { row.ssim = String(log[range.upperBound...].prefix { $0 == "." || $0.isNumber }) }
        }
        return row
    }
}
