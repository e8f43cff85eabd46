/// Turns any input into an attachment that satisfies a profile, or says why it cannot.
///
/// For each input: probe, check structure and safety caps (from the header, before decoding),
/// validate; pass through (a byte-identical copy, renamed when only the extension was wrong) or
/// run the kind's pipeline into a temporary file; then re-probe and re-validate that output and
/// only then rename it into place. Safe to use from many threads at once.
public struct Preparer: Sendable {
    public var options: PrepareOptions
    public var safety: SafetyLimits
    public var prober: Prober
    /// Starts each preparation's deadline from ``PrepareOptions/deadline``; a test replaces it to
    /// run the clock out at a chosen point whatever the machine's speed.
    var startDeadline: @Sendable (Double?) -> Deadline = { Deadline(seconds: $0) }

    public init(options: PrepareOptions, safety: SafetyLimits = SafetyLimits(), prober: Prober = Prober()) {
        self.options = options
        self.safety = safety
        self.prober = prober
    }

    /// Prepares the file behind `input` into ``PrepareOptions/outputFolder``.
    /// - Parameters:
    ///   - ledger: grants the output folder (write) and is used for every output handle.
    ///   - outputStem: the output's name without extension; default the input's stem. Callers that
    ///     prepare many files plan their stems over all of them (``WritePlan``) so two inputs never
    ///     write the same output. Either way the stem is checked against this input here: one
    ///     that would replace it, or whose thumbnail would, becomes `STEM-2`... (the report's
    ///     `outputName` says why).
    ///   A file already in the output folder at a name the output would take is never replaced
    ///   (the stem moves on, and the report's `outputName` says why).
    /// - Returns: the report; ``PrepareReport/error`` says why when nothing was written.
    public func prepare(_ input: borrowing AccessHandle, ledger: AccessLedger, outputStem: String? = nil) -> PrepareReport {
        prepare(input, ledger: ledger, outputStem: outputStem, replacing: [])
    }

    /// ``prepare(_:ledger:outputStem:)``, allowed to replace the files `replacing` lists
    /// (``FileVersion``s taken when the run was planned): a batch's earlier outputs of this input
    /// (``OutputLayout``). Any other file at the output's names stays where it is, even one put
    /// there while the output was made: the output takes the next stem.
    func prepare(_ input: borrowing AccessHandle, ledger: AccessLedger, outputStem: String?, replacing: Set<FileVersion>) -> PrepareReport {
        var attempt = 1
        while true {
            var plan = WritePlan(input: input)
            let folder = options.outputFolder
            plan.replaceable = replacing
            if !replacing.isEmpty { plan.foreignFilePhrase = "that no run of this batch wrote" }
            let planned = outputStem.map { plan.claimOutput(stem: $0, in: folder, for: input.requestedPath) }
                ?? plan.claimOutput(fileName: PathResolver.fileName(input.requestedPath), in: folder, for: input.requestedPath)
            let report = prepare(input, ledger: ledger, planned: planned, guarding: OutputGuard(protected: plan.protected, replaceable: replacing))
            // A file the run may not replace took the name between the plan and the rename
            // (another request's output, a user's file): plan again (the name is now seen as
            // taken), a few times at most.
            guard case .output(.taken)? = report.error, attempt < Self.plansPerRequest else { return report }
            attempt += 1
        }
    }

    /// How many times a request planned alone is planned at most when its name is taken
    /// meanwhile. Each round of a race has a winner (the first rename), so N requests racing for
    /// one name need N rounds; 32 covers every job slot a service runs at once.
    static let plansPerRequest = 32

    private func prepare(_ input: borrowing AccessHandle, ledger: AccessLedger, planned: PlannedOutput,
                         guarding rule: OutputGuard) -> PrepareReport {
        let deadline = startDeadline(options.deadline)
        var report = PrepareReport(input: input.resolvedPath)
        report.deadline = options.deadline
        report.outputName = planned.reason == nil ? nil : planned
        do {
            try run(input: input, ledger: ledger, stem: planned.stem, guarding: rule, deadline: deadline, report: &report)
        } catch {
            report.error = error
            report.output = nil
        }
        report.elapsedMilliseconds = deadline.elapsed * 1000
        if options.deadline != nil { report.deadlineMet = report.ok && !deadline.isExpired }
        return report
    }

    private func run(input: borrowing AccessHandle, ledger: AccessLedger, stem: String, guarding rule: OutputGuard,
                     deadline: Deadline, report: inout PrepareReport) throws(PrepareError) {
        let profile = options.effectiveProfile
        let validator = Validator(profile: profile, prober: prober, safety: safety)
        let examined: Examination
        do {
            // The work reads at most the profile's duration cap (a trim), or all of it.
            examined = try validator.examine(path: input.path, displayPath: input.requestedPath,
                                             fileExtension: PathResolver.fileExtension(input.requestedPath), screened: true,
                                             span: .window(audio: profile.audio.maxDuration, video: profile.video.maxDuration))
        } catch {
            throw .probe(error)
        }
        var info = examined.info
        info.path = input.resolvedPath
        report.before = info
        if let refusal = PrepareError(examined.structure) { throw refusal }
        let findings = examined.diagnostics
        report.diagnostics = findings
        let errors = findings.filter { $0.severity == .error }

        let output = try makeOutput(ledger: ledger, stem: stem, guarding: rule)
        let produced: (container: Container, kind: MediaKind)
        let copied: Bool
        let job = PrepareJob(inputPath: input.path, info: info, findings: findings, profile: profile,
                             options: options, safety: safety, deadline: deadline)
        guard let pipeline = Pipelines.pipeline(for: info.kind) else {
            throw .unsupported(reason: "\(info.container) content cannot be turned into an attachment")
        }
        if errors.allSatisfy({ $0.code == .extensionMismatch || $0.code == .missingExtension }),
           try pipeline.passthroughBlocker(job) == nil {
            do { try output.copy(from: input.path) } catch { throw .output(error) }
            report.actions = [errors.isEmpty ? .passthrough : .renamed]
            report.notes = ToneMapper.note(info.hdr, toneMapped: false).map { [$0] } ?? []
            produced = (info.container, info.kind)
            copied = true
        } else {
            let result: PipelineResult
            do {
                result = try pipeline.run(job, into: output)
            } catch {
                throw Self.blamingDamage(error, job: job)
            }
            report.actions = result.actions
            report.quality = result.quality
            report.bitRate = result.bitRate
            report.attempts = result.attempts
            report.trimStart = result.trimStart
            report.trimDuration = result.trimDuration
            report.notes = (job.repairNote.map { [$0] } ?? []) + result.notes
            produced = (result.container, result.kind)
            copied = result.copiedWithoutDecoding
        }
        try deadline.check("writing the output")

        report.notes += options.cappedBudgetNotes(for: info.kind)
        let after = try verify(output: output, produced: produced, validator: validator, decode: copied, report: &report)
        guard let type = UniformType.of(container: after.container, kind: after.kind) else {
            throw .outputInvalid(reason: "the output has no attachment type")
        }
        let folder = output.folder
        let name = stem + "." + type.preferredExtension
        // The thumbnail is rendered from the output's own file, before its name exists, and takes
        // its name first: a request that loses STEM.thumbnail.jpg to another (the same stem, an
        // output of another type) is planned again whole before its output takes a name.
        let thumbnail = options.thumbnail ? renderThumbnail(of: after, path: output.temporaryPath, deadline: deadline) : nil
        var written: ThumbnailWrite?
        if let thumbnail { written = try writeThumbnail(thumbnail, beside: folder + "/" + stem, ledger: ledger, guarding: rule) }
        let finalPath: String
        do {
            finalPath = try output.commit(named: name)
        } catch {
            if case .written(let path, let version)? = written { FileSystem.removeOwnFile(path, version: version) }
            throw .output(error)
        }
        report.output = finalPath
        var afterInfo = after
        afterInfo.path = finalPath
        report.after = afterInfo
        report.options = AttachmentOptions(typeHint: type.identifier, clippingRect: options.thumbnailRequest.clip)
        if report.attempts == 0 { report.attempts = report.actions.contains(where: \.changesBytes) ? 1 : 0 }
        switch written {
        case .written(let path, _)?:
            guard case .success(let rendered)? = thumbnail else { break }
            report.thumbnail = path
            if let note = ToneMapper.note(afterInfo.hdr, toneMapped: true) { report.notes.append("thumbnail: " + note) }
            report.options = Thumbnailer.options(for: afterInfo, typeHint: afterInfo.uniformType?.identifier ?? "public.data",
                                                 request: options.thumbnailRequest, rendered: rendered)
        case .failed(let error)?:
            report.diagnostics.append(Diagnostic(.thumbnailFailed, "no thumbnail: \(error.message)", fix: nil, severity: .warning))
            // Said among the notes too, which every front end shows: a thumbnail asked for is never missing unexplained.
            report.notes.append("no thumbnail: \(error.message)")
        case nil:
            break
        }
    }

    /// What became of a thumbnail asked for.
    private enum ThumbnailWrite {
        /// Written at `path`, as `version` (removed again if the output then cannot take its name).
        case written(path: String, version: FileVersion?)
        /// Not made, or not written: a warning, the attachment is still prepared.
        case failed(PrepareError)
    }

    /// Renders the thumbnail of the prepared file (what the device will show).
    private func renderThumbnail(of info: MediaInfo, path: String, deadline: Deadline) -> Result<RenderedThumbnail, PrepareError> {
        let thumbnailer = Thumbnailer(safety: safety, prober: prober)
        do throws(PrepareError) {
            return .success(try thumbnailer.render(path: path, info: info, request: options.thumbnailRequest, deadline: deadline))
        } catch {
            return .failure(error)
        }
    }

    /// Writes the rendered thumbnail to `STEM.thumbnail.jpg`. A thumbnail that cannot be made or
    /// written does not fail the attachment (``ThumbnailWrite/failed(_:)``, a warning)...
    /// - Throws: ``PrepareError/output(_:)`` with ``OutputError/taken(path:)`` when its name was
    ///   taken since the plan: the request is planned again.
    private func writeThumbnail(_ rendered: Result<RenderedThumbnail, PrepareError>, beside stemPath: String,
                                ledger: AccessLedger, guarding rule: OutputGuard) throws(PrepareError) -> ThumbnailWrite {
        let path = stemPath + ".thumbnail.jpg"
        let jpeg: [UInt8]
        switch rendered {
        case .success(let made): jpeg = made.jpeg
        case .failure(let error): return .failed(error)
        }
        do throws(OutputError) {
            let output = try AtomicOutput(folder: PathResolver.directory(path), stem: PathResolver.fileName(path), ledger: ledger, guarding: rule)
            try output.write(jpeg)
            let final = try output.commit(named: PathResolver.fileName(path))
            return .written(path: final, version: FileVersion(path: final))
        } catch {
            if case .taken = error { throw .output(error) }
            return .failed(.output(error))
        }
    }

    private func makeOutput(ledger: AccessLedger, stem: String, guarding rule: OutputGuard) throws(PrepareError) -> AtomicOutput {
        do {
            return try AtomicOutput(folder: options.outputFolder, stem: stem, ledger: ledger, guarding: rule)
        } catch {
            throw .output(error)
        }
    }

    /// Re-probes and re-validates the bytes written: an output that is not what the pipeline says,
    /// or that still breaks the profile, is never handed back.
    /// - Parameter decode: decode the output in full (``DeepCheck``): set when bytes were copied
    ///   without being decoded (passthrough, renamed, stream copy), so a broken bitstream inside
    ///   well-formed boxes is refused as `corrupt` instead of handed back.
    ///   A video is decoded up to ``PrepareOptions/verifySeconds``, as ``PrepareOptions/verify``
    ///   says; when GOPs were skipped, a note in `report` says how much was decoded.
    private func verify(output: borrowing AtomicOutput, produced: (container: Container, kind: MediaKind),
                        validator: Validator, decode: Bool, report: inout PrepareReport) throws(PrepareError) -> MediaInfo {
        var headerValidator = validator
        headerValidator.prober.limits.headerOnly = true
        let checked: Examination
        do {
            checked = try headerValidator.examine(path: output.temporaryPath, displayPath: output.folder + "/" + output.temporaryName,
                                                  fileExtension: nil)
        } catch {
            throw .outputInvalid(reason: "the output cannot be probed: \(error.message)")
        }
        guard checked.info.container == produced.container || UniformType.of(container: checked.info.container, kind: checked.info.kind)
                == UniformType.of(container: produced.container, kind: produced.kind) else {
            throw .outputInvalid(reason: "the pipeline said \(produced.container) but the bytes are \(checked.info.container)")
        }
        let problems = checked.diagnostics.filter { $0.severity == .error }
        guard problems.isEmpty else {
            throw .outputInvalid(reason: problems.map { "\($0.code.rawValue): \($0.message)" }.joined(separator: "; "))
        }
        if decode {
            // The copy's pictures must be what the input's probe said (and playability judged): a
            // header-only look at the copy may not name a pixel format, the input's probe did.
            var described = checked.info
            if described.kind == .video, described.pixelFormat == nil { described.pixelFormat = report.before?.pixelFormat }
            // A copy too large to decode is not handed back unchecked: `validate --deep` and
            // `thumbnail` refuse the same file as over a cap, so `prepare` does too.
            if described.kind == .video, let violation = safety.videoDecodeViolation(of: described, threads: 1) {
                throw .overCap(violation)
            }
            var decoding = options.verify == .full ? DeepCheck.decoding : DeepCheck.fastDecoding
            decoding.segmentThreads = segmentThreads(for: described)
            let decoded = DeepCheck.verify(path: output.temporaryPath, info: described, maxDecodeBytes: safety.maxDecodeBytes,
                                           videoBudget: options.verifySeconds, decoding: decoding)
            if case .corrupt(let reason) = decoded.verdict {
                // A remux or trim rewrote the container: its packet numbers and byte offsets are the copy's.
                let identical = report.actions.contains(.passthrough) || report.actions.contains(.renamed)
                throw .corrupt(reason: "its data does not decode (\(identical ? "" : "found in the stream copy written from it; positions are the copy's: ")\(reason))")
            }
            if let coverage = decoded.coverage { report.notes.append(coverage + " (verifySeconds \(Fix.seconds(options.verifySeconds)))") }
        }
        return checked.info
    }

    /// Single-threaded decoders the check of a copied video runs at once, one per independent
    /// segment (``DecoderBudget/segmentThreads``): the job's threads (default the core count), one
    /// for pictures of ``DecoderBudget/largeFrameBytes`` or more, and fewer when that many decoders
    /// would be over the decode-memory cap.
    private func segmentThreads(for info: MediaInfo) -> Int {
        guard info.kind == .video else { return 1 }
        var threads = DecoderBudget.frameThreads(options.threads ?? SystemProcess.processorCount,
                                                 frameBytes: DecodeMemoryEstimator.frameBytes(of: info))
        while threads > 1, safety.videoDecodeViolation(of: info, threads: threads) != nil { threads -= 1 }
        return threads
    }

    /// A processing failure (a muxer's "Invalid argument" over packets a damaged input hands it)
    /// is `corrupt` when the input's deep decode says so, with the deep check's reason: the verb
    /// agrees with `validate --deep` and blames the file, not AttachKit. Run on the failure path
    /// only, within the safety caps (over one, the failure stands). Other errors pass unchanged.
    static func blamingDamage(_ error: PrepareError, job: PrepareJob) -> PrepareError {
        guard case .processing = error, job.safety.violation(for: job.info) == nil,
              job.info.kind != .video || job.safety.videoDecodeViolation(of: job.info, threads: 1) == nil,
              case .corrupt(let reason) = DeepCheck.check(path: job.inputPath, info: job.info, maxDecodeBytes: job.safety.maxDecodeBytes)
        else { return error }
        return .corrupt(reason: reason)
    }

    /// Removes, in the output folder, the temporaries a killed run left for `stems` (their process
    /// is gone); a live run's are never touched. Returns how many were removed.
    @discardableResult
    package func removeStaleTemporaries(stems: Set<String>) -> Int {
        AtomicOutput.removeStaleTemporaries(in: options.outputFolder, stems: stems)
    }

    /// The file name without its last extension.
    static func stem(of path: String) -> String {
        WritePlan.split(PathResolver.fileName(path)).stem
    }
}
