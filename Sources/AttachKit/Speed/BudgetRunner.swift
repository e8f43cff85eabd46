/// What fits a deadline on this machine: the rows of the budget table, from the calibration alone
/// (``syntheticRows()``) or by preparing the user's files (``measure(files:scratch:progress:)``:
/// the operation the profile needs for each; a video that is transcoded once per x264 preset).
public struct BudgetRunner: Sendable {
    public var profile: Profile
    /// The estimator that gives each transcode row its estimate.
    public var estimator: TranscodeEstimator
    /// Heights and source codecs of the synthetic rows. Default 480p, 720p, 1080p; H.264, HEVC, VP9.
    public var heights = [480, 720, 1080]
    public var codecs = ["h264", "hevc", "vp9"]

    public init(profile: Profile, estimator: TranscodeEstimator) {
        self.profile = profile
        self.estimator = estimator
    }

    /// One second of 30 fps media at each height, from each source codec, per preset, as the model
    /// estimates it (a calibrated model: the calibration's own synthetic picture).
    public func syntheticRows() -> [BudgetRow] {
        var rows: [BudgetRow] = []
        for codec in codecs {
            for height in heights {
                let width = height * 16 / 9 / 2 * 2
                let work = TranscodeWork(frames: 30, sourceCodec: codec, inputWidth: width, inputHeight: height,
                                         outputWidth: width, outputHeight: height)
                for preset in EncoderSpeed.allCases {
                    rows.append(BudgetRow(operation: "\(codec) → H.264 (\(profile.name))", input: "\(height)p synthetic", preset: preset,
                                          amount: 1, unit: "s", estimated: estimator.seconds(preset, work)))
                }
            }
        }
        return rows
    }

    /// Prepares each file under the profile into `scratch` (outputs deleted after each run) and
    /// times it; a file whose picture is transcoded is prepared once per preset.
    /// - Parameter progress: called before each run with the runs done, the runs known so far and
    ///   what runs next.
    /// - Parameter scopes: what the files may be read through (a folder named on the command line
    ///   keeps its files' symbolic links inside it, as `batch` does); `nil` grants each file itself.
    public func measure(files: [String], scratch: String, scopes: [AccessScope]? = nil,
                        progress: (Int, Int, String) -> Void = { _, _, _ in }) -> [BudgetRow] {
        var rows: [BudgetRow] = []
        var done = 0
        var total = files.count
        for path in files {
            progress(done, total, path)
            let first = Self.prepare(path, profile: profile, scratch: scratch, preset: nil, scopes: scopes)
            done += 1
            guard let before = first.before else {
                rows.append(BudgetRow(operation: "prepare (\(profile.name))", input: path, amount: 0, unit: "s",
                                      error: first.error.map { "\($0.code): \($0.message)" } ?? "not probed"))
                continue
            }
            guard first.ok, before.kind == .video, first.notes.contains(where: { $0.contains("(x264 ") }) else {
                rows.append(row(first, before: before, name: path))
                continue
            }
            total += EncoderSpeed.allCases.count
            for preset in EncoderSpeed.allCases {
                progress(done, total, "\(path) x264 \(preset.rawValue)")
                let report = Self.prepare(path, profile: profile, scratch: scratch, preset: preset, scopes: scopes)
                done += 1
                var row = row(report, before: before, name: path)
                row.preset = preset
                row.estimated = TranscodeWork(before: before, after: report.after).map { estimator.seconds(preset, $0) }
                rows.append(row)
            }
        }
        progress(done, total, "done")
        return rows
    }

    private func row(_ report: PrepareReport, before: MediaInfo, name: String) -> BudgetRow {
        let isImage = before.kind == .image
        let amount = isImage ? Double((before.width ?? 0) * (before.height ?? 0)) / 1e6 : (before.duration ?? 0)
        let what = before.kind == .video && report.after?.codec == .h264 && before.codec != .h264
            ? "\(before.codec?.rawValue ?? "video") → H.264" : "\(before.kind.rawValue) \(report.action?.rawValue ?? "prepared")"
        return BudgetRow(operation: "\(what) (\(profile.name))", input: name, amount: amount, unit: isImage ? "MP" : "s",
                         seconds: report.elapsedMilliseconds / 1000, error: report.error.map { "\($0.code): \($0.message)" })
    }

    /// Prepares `path` under `profile` into `scratch` (x264 at `preset`; `nil` = the profile's
    /// own choice) and deletes the output; the report says how long it took.
    static func prepare(_ path: String, profile: Profile, scratch: String, preset: EncoderSpeed?, scopes given: [AccessScope]? = nil) -> PrepareReport {
        var options = PrepareOptions(profile: profile, outputFolder: scratch)
        options.encoderPreset = preset
        let scopes = (given ?? [try? AccessScope.file(path)].compactMap { $0 }) + [try? AccessScope.folder(scratch)].compactMap { $0 }
        let ledger = AccessLedger(scopes: scopes)
        let report = ledger.withAccess(path, refused: { PrepareReport(input: path, error: .probe(.access($0))) }) {
            Preparer(options: options).prepare($0, ledger: ledger, outputStem: "budget")
        }
        if let output = report.output { try? FileNames.remove(output) }
        return report
    }
}
