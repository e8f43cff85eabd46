/// The first look every verb takes at a file, before any rule or decoding: probe the header, then
/// (when screening) the safety caps, then the structure. ``Validator/examine(path:displayPath:fileExtension:screened:)``
/// adds the rules on top; ``Thumbnailer`` uses it as it is, so the same file fails with the same
/// code from `validate --deep`, `prepare` and `thumbnail`.
struct InputScreening: Sendable {
    var prober: Prober
    var safety: SafetyLimits

    /// What the look found: the probe result, the format the bytes are, and the structural verdict.
    struct Look: Sendable {
        var info: MediaInfo
        var sniff: FormatSniffer.Result
        /// `.overCap` without a structural check when screening and a cap refused the header.
        var structure: StructureVerdict
    }

    /// - Parameter screened: check ``safety`` against the header first, and when a cap is over,
    ///   skip the structural check (its verdict is then `.overCap`). `false`: every file is checked.
    /// - Throws: the ``ProbeError`` of a file that cannot be probed.
    func look(path: String, displayPath: String, screened: Bool) throws(ProbeError) -> Look {
        let probed = try prober.probeWithSniff(path: path, displayPath: displayPath)
        if screened, let violation = safety.violation(for: probed.info) {
            return Look(info: probed.info, sniff: probed.sniff, structure: .overCap(violation))
        }
        return Look(info: probed.info, sniff: probed.sniff, structure: StructureChecker.check(path: path, sniff: probed.sniff, limits: safety))
    }
}
