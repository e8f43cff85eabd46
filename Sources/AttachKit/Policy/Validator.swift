/// Checks files against a ``Profile``: probes each one, checks its structure (and with ``deep``,
/// decodes it fully), and runs the rules. Safe to use from many threads at once.
public struct Validator: Sendable {
    public var profile: Profile
    public var prober: Prober
    /// Decode every frame/sample too (slower; finds damage a structural check cannot see).
    /// Default `false`.
    public var deep: Bool
    /// Caps that keep ``deep`` from decoding a decompression bomb whatever the profile allows.
    public var safety: SafetyLimits

    /// The rules, in the order their findings are reported.
    static let rules: [any ValidationRule] = [
        IntegrityRule(), TypeRule(), CodecRule(), WAVEFormatRule(), DisabledTrackRule(), ExtensionRule(), SizeRule(), PixelRule(), FrameRule(), DurationRule(),
    ]

    public init(profile: Profile = .standard, prober: Prober = Prober(), deep: Bool = false, safety: SafetyLimits = SafetyLimits()) {
        self.profile = profile
        self.prober = prober
        self.deep = deep
        self.safety = safety
    }

    /// Validates the file behind `handle`. Never throws: a file that cannot be probed gets an
    /// `unrecognized-type`, `corrupt` or `unreadable` diagnostic.
    public func validate(_ handle: borrowing AccessHandle) -> ValidationReport {
        validate(path: handle.path, displayPath: handle.requestedPath)
    }

    func validate(path: String, displayPath: String) -> ValidationReport {
        let examined: Examination
        do {
            examined = try examine(path: path, displayPath: displayPath, fileExtension: PathResolver.fileExtension(displayPath))
        } catch {
            return ValidationReport(path: displayPath, profile: profile.name, info: nil, diagnostics: Self.diagnostics(for: error))
        }
        var findings = examined.diagnostics
        // Everything the header allows is checked before any decoding; a deep decode only runs on
        // files that passed the structural check and the safety caps (decompression bombs), and a
        // file over a cap is refused as `prepare` refuses it.
        if deep, examined.structure.isIntactOrUnchecked {
            // A video's frames are checked here too (the deep check decodes them on one thread).
            let info = examined.info
            if let violation = safety.violation(for: info) ?? (info.kind == .video ? safety.videoDecodeViolation(of: info, threads: 1) : nil) {
                findings.append(Diagnostic(.overCap, "not decoded: \(violation)", fix: nil))
            } else {
                let verdict = DeepCheck.check(path: path, info: examined.info, maxDecodeBytes: safety.maxDecodeBytes)
                switch (verdict, examined.structure) {
                case (.corrupt, _):
                    findings = diagnostics(for: examined.info, fileExtension: PathResolver.fileExtension(displayPath), structure: verdict)
                case (.recoverable(let found), .recoverable(let known)):  // both damages are named
                    findings = diagnostics(for: examined.info, fileExtension: PathResolver.fileExtension(displayPath),
                                           structure: .recoverable(reason: known + "; " + found))
                case (.recoverable, _):  // damage only a decode finds (a cover that does not decode)
                    findings = diagnostics(for: examined.info, fileExtension: PathResolver.fileExtension(displayPath), structure: verdict)
                default: break
                }
            }
        }
        return ValidationReport(path: displayPath, profile: profile.name, info: examined.info, diagnostics: findings)
    }

    /// The findings for an already probed file (pure: no file access).
    public func diagnostics(for info: MediaInfo, fileExtension: String) -> [Diagnostic] {
        diagnostics(for: info, fileExtension: fileExtension, structure: .notChecked)
    }

    func diagnostics(for info: MediaInfo, fileExtension: String, structure: StructureVerdict) -> [Diagnostic] {
        let subject = ValidationSubject(info: info, fileExtension: fileExtension.lowercased(), structure: structure)
        return Self.rules.flatMap { $0.check(subject, against: profile) }
    }

    /// Findings about the whole notification request: more attachments than the profile allows.
    public func requestDiagnostics(attachmentCount: Int) -> [Diagnostic] {
        guard let cap = profile.maxAttachments, attachmentCount > cap else { return [] }
        return [Diagnostic(.tooManyAttachments, "\(attachmentCount) attachments in one request, over \(cap)",
                           fix: "send at most \(cap) attachments")]
    }

    /// How a probe failure reads as validation findings.
    static func diagnostics(for error: ProbeError) -> [Diagnostic] {
        switch error {
        case .empty:
            return [Diagnostic(.emptyFile, "the file is empty (0 bytes)", fix: "re-upload the original"),
                    Diagnostic(.unrecognizedType, "no content to recognise", fix: nil)]
        case .unrecognized:
            return [Diagnostic(.unrecognizedType, error.message, fix: "replace with a JPEG, PNG, GIF, M4A/MP3 or MP4 file")]
        case .corruptHeader:
            return [Diagnostic(.corrupt, error.message, fix: "re-export or re-download the original; a broken file cannot be fitted")]
        case .encrypted:
            return [Diagnostic(.encrypted, error.message, fix: "attach a clear (unencrypted) export of the media")]
        case .unsupported:
            return [Diagnostic(.unsupportedCodec, error.message, fix: nil)]
        case .overCap:
            return [Diagnostic(.overCap, error.message, fix: nil)]
        case .access, .unreadable:
            return [Diagnostic(.unreadable, error.message, fix: nil)]
        }
    }
}
