/// The first look every verb takes at a file, before any rule or decoding: probe the header, then
/// (when screening) the safety caps, then the structure and whether the decoders here can decode
/// it. ``Validator/examine(path:displayPath:fileExtension:screened:span:)`` adds the rules on top;
/// ``Thumbnailer`` uses it as it is, so the same file fails with the same code from
/// `validate --deep`, `prepare` and `thumbnail`.
struct InputScreening: Sendable {
    var prober: Prober
    var safety: SafetyLimits

    /// What the look found: the probe result, the format the bytes are, and the structural verdict.
    struct Look: Sendable {
        var info: MediaInfo
        var sniff: FormatSniffer.Result
        /// `.overCap` without a structural check when screening and a cap refused the header;
        /// `.undecodable` when the layout is fine but no decoder here can decode the file's kind
        /// (``DeepCheck/decodersOpen(path:info:)``).
        var structure: StructureVerdict
    }

    /// - Parameters:
    ///   - screened: check ``safety`` against the header first, and when a cap is over, skip the
    ///     structural check (its verdict is then `.overCap`). `false`: every file is checked.
    ///   - span: how much of an audio/video file the work will read and decode, which the
    ///     duration cap is held against (only when screening). Default ``WorkSpan/whole``.
    /// - Throws: the ``ProbeError`` of a file that cannot be probed.
    func look(path: String, displayPath: String, screened: Bool, span: WorkSpan = .whole) throws(ProbeError) -> Look {
        var prober = prober
        prober.safety = safety
        let probed = try prober.probeWithSniff(path: path, displayPath: displayPath)
        if screened, let violation = safety.violation(for: probed.info, span: span) {
            return Look(info: probed.info, sniff: probed.sniff, structure: .overCap(violation))
        }
        var structure = StructureChecker.check(path: path, sniff: probed.sniff, limits: safety)
        if structure.isIntactOrUnchecked {
            let decoders = DeepCheck.decodersOpen(path: path, info: probed.info)
            if case .undecodable = decoders { structure = decoders }
        }
        return Look(info: probed.info, sniff: probed.sniff, structure: structure)
    }
}
