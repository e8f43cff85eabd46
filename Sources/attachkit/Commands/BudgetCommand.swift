import AttachKit

/// `attachkit budget [FILE...] [--profile P] [--deadline S] [--json]`: calibrates the deadline
/// model on this machine, caches the calibration, and prints what fits the deadline.
struct BudgetCommand: Command {
    static let name = "budget"
    static let summary = "measure this machine: what fits a deadline, per x264 preset (writes the calibration)"
    static let usage = """
        \(UsageText.synopsis(name, ["[FILE|DIR...]"] + UsageText.items(.budget) + ["[--json]", "[--quick]"]))

        Measures how fast this machine encodes each x264 preset and decodes H.264, HEVC and VP9
        (a few seconds of synthetic 1080p), caches that calibration for --deadline
        ($XDG_CACHE_HOME/attachkit/speed-calibration.json, ~/.cache/attachkit without it), then
        prints a table: without files, the estimated time per second of media at 480p, 720p and
        1080p per source codec and preset; with files, each prepared under the profile as prepare
        would (a transcoded video once per preset), timed. Each row gives the time per unit
        (second of media, megapixel) and the longest input that fits the deadline. A file the
        run would refuse (missing, unreadable, not a regular file, a link out of the folder named)
        and a folder that cannot be listed are reported before the calibration starts (exit 1).
        A calibration whose figures contradict each other (measured while something else took
        the cores) is reported and not cached.

        \(UsageText.lines(UsageText.entries(.budget) + [
            ("--json", ["one JSON object: calibration, cache path (null when not cached),",
                        "warnings (figures of the calibration that disagree), deadline, rows"]),
            ("--quick", ["a smoke run: calibrates on 320×180 frames and caches nothing"]),
        ]))
        """
    static let options = Arguments.options(.budget)
    static let flags = Arguments.flags(.budget).union(["json", "quick"])

    let profile: Profile
    let deadline: Double
    let inputs: InputSet?
    let json: Bool
    let quick: Bool

    init(_ arguments: Arguments) throws(UsageError) {
        profile = try arguments.profile()
        deadline = try arguments.decode { options throws(OptionsError) in try options.seconds(OptionLimits.deadline) } ?? 30
        inputs = arguments.positional.isEmpty ? nil : try InputSet(arguments.positional)
        json = arguments.flag("json")
        quick = arguments.flag("quick")
    }

    /// The calibration in one line: x264 rates per height, overheads, the whole-job factor and
    /// fixed seconds, decode rates.
    static func describe(_ calibration: SpeedCalibration) -> String {
        let rates = calibration.encode.keys.sorted().map { height -> String in
            let presets = EncoderSpeed.allCases.compactMap { p in calibration.encode[height]?[p].map { "\(p.rawValue) \(Int($0))" } }
            return "\(height)p x264 " + presets.joined(separator: ", ") + " Mpx/s"
        }
        let overheads = EncoderSpeed.allCases.compactMap { p in calibration.overheadFrames[p].map { "\(p.rawValue) \(Int($0.rounded())) frames" } }
        let decoding = calibration.decode.sorted { $0.key < $1.key }.map { "\($0.key) \(Int($0.value)) Mpx/s" }
        let factors = calibration.pipeline.keys.sorted().map { height in
            "\(height)p " + EncoderSpeed.allCases.compactMap { p in calibration.pipeline[height]?[p].map { "\(p.rawValue) × \(($0 * 100).rounded() / 100)" } }
                .joined(separator: ", ")
        }
        let fixed = (calibration.jobSeconds * 100).rounded() / 100
        let parts: [String] = [rates.joined(separator: "; "), "start and flush " + overheads.joined(separator: ", "),
                               "whole jobs " + factors.joined(separator: "; ") + "; + \(fixed) s each", "decoding " + decoding.joined(separator: ", ")]
        return parts.joined(separator: "; ")
    }

    func run() -> ExitCode {
        // Checked before a minute of calibration: what the run would refuse, or nothing to measure.
        if let inputs {
            let refusals = Self.refusals(inputs)
            for refusal in refusals { Output.error("attachkit: cannot measure: \(refusal)") }
            if refusals.isEmpty && inputs.files.isEmpty { Output.error("attachkit: no files to measure in the folder(s) named") }
            if !refusals.isEmpty || inputs.files.isEmpty { return .failure }
        }
        let progress = ProgressRenderer(terminal: SystemProcess.standardErrorIsTerminal)
        // Everything this run writes goes here, removed at the end or on SIGINT/SIGTERM.
        let scratch: ScratchFolder
        do { scratch = try ScratchFolder(name: "budget") } catch {
            Output.error("attachkit: cannot create a temporary folder in /tmp: \(error)")
            return .failure
        }
        let calibration: SpeedCalibration
        do {
            var calibrator = Calibrator()
            if quick {
                calibrator.heights = [180]
                calibrator.frames = 8
                calibrator.decodeFrames = 8
                calibrator.pipelineFrames = 16
            }
            calibration = try calibrator.run(in: scratch.path) { step, fraction in progress.step(Int(fraction * 100), of: 100, "calibrating: \(step)") }
        } catch {
            progress.finish()
            Output.error("attachkit: the calibration failed: \(error.message)")
            return .failure
        }
        progress.finish()
        // Figures that contradict each other were measured under someone else's load: shown, used
        // for this table, never cached (the cache keeps what it had).
        let warnings = calibration.inconsistencies
        for warning in warnings { Output.error("attachkit: the calibration's figures disagree: \(warning)") }
        if !warnings.isEmpty && !quick {
            Output.error("attachkit: the calibration is not cached: the machine was probably busy while it was measured; run budget again when it is quieter")
        }
        let store = quick || !warnings.isEmpty ? nil : CalibrationStore.standard(environment: CalibrationStore.processEnvironment)
        var saved: String?
        if let store {
            do {
                try store.save(calibration)
                saved = store.path
            } catch {
                Output.error("attachkit: the calibration was measured but not cached: \(error.message)")
            }
        }
        SpeedModel.shared.use(calibration)
        let runner = BudgetRunner(profile: profile, estimator: SpeedModel.shared.estimator())
        let rows = inputs.map { measure($0, runner: runner, scratch: scratch.path, progress: progress) } ?? runner.syntheticRows()
        if json {
            var o = JSONObjectBuilder()
            o.set("calibration", calibration.json)
            o.set("cache", saved.map(JSONValue.string) ?? .null)  // null when not cached (--quick, figures that disagree, or the write failed)
            o.set("warnings", JSONValue.array(warnings.map(JSONValue.string)))
            o.set("deadline", deadline)
            o.set("rows", JSONValue.array(rows.map { $0.json(deadline: deadline) }))
            Output.json(o.value.serialized)
        } else {
            Output.line(render(rows))
            Output.line("\ncalibration: \(Self.describe(calibration))\(rendered: saved.map { "\ncached in \(HumanText.escape($0))" } ?? "")")
        }
        return rows.contains { $0.error != nil } ? .failure : .success
    }

    /// What the run would refuse, as `code: message`: what the folder walk could not list or look
    /// at, files the access ledger refuses (missing, outside the folder named, not a regular file),
    /// and files whose header probe fails (unreadable, empty, not media, damaged: a probe opens the
    /// file without blocking and reads headers only).
    private static func refusals(_ inputs: InputSet) -> [String] {
        let prober = Prober()
        return inputs.unlistable.map { "\(ErrorCode.unreadable.rawValue): \($0.path): cannot be walked: \($0.reason)" }
            + inputs.files.compactMap { path in
                inputs.ledger.withAccess(path, refused: { "\($0.code.rawValue): \($0.message)" }) { handle -> String? in
                    do throws(ProbeError) {
                        _ = try prober.probe(handle)
                        return nil
                    } catch {
                        return "\(error.code.rawValue): \(path): \(error.message)"
                    }
                }
            }
    }

    /// The files' rows, prepared into `scratch` (a folder named keeps its files' links inside it).
    private func measure(_ inputs: InputSet, runner: BudgetRunner, scratch: String, progress: ProgressRenderer) -> [BudgetRow] {
        let rows = runner.measure(files: inputs.files, scratch: scratch, scopes: inputs.scopes) { done, total, label in
            progress.step(done, of: total, label)
        }
        progress.finish()
        return rows
    }

    private func render(_ rows: [BudgetRow]) -> HumanText {
        let limit = Format.seconds(deadline)
        var table = Table(["OPERATION", "INPUT", "PRESET", "SECONDS", "ESTIMATED", "PER UNIT", "LONGEST WITHIN \(limit)"])
        for row in rows {
            let perUnit = row.perUnit.map { "\(Self.decimal($0, 3)) s/\(row.unit)" } ?? ""
            let longest = row.longest(within: deadline).map { "≈ \(Self.decimal($0, 1)) \(row.unit)" } ?? ""
            table.add([row.operation, row.input, row.preset?.rawValue ?? "", row.seconds.map { Self.decimal($0, 2) } ?? "",
                       row.estimated.map { Self.decimal($0, 2) } ?? "", perUnit, longest], notes: row.error.map { [$0] } ?? [])
        }
        return table.render()
    }

    private static func decimal(_ value: Double, _ places: Int) -> String {
        let scale = (0..<places).reduce(1.0) { r, _ in r * 10 }
        let rounded = (value * scale).rounded() / scale
        return "\(rounded)"
    }
}
