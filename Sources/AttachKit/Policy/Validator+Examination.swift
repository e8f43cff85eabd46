/// One look at a file, the sequence every check of a file goes through (validating an input,
/// preparing it, re-checking the output): probe the header, check the structure, run the rules.
struct Examination: Sendable {
    /// The probe result (`path` is the display path).
    var info: MediaInfo
    /// The structural check's verdict; `.overCap` without checking when ``Validator/examine(path:displayPath:fileExtension:screened:)``
    /// was asked to screen and a safety cap refused the header.
    var structure: StructureVerdict
    /// The rules' findings for `info`, `structure` and the extension, in rule order.
    var diagnostics: [Diagnostic]
}

extension Validator {
    /// Probes the file at `path`, checks its structure and runs the rules. Reads the header and the
    /// layout only, never decodes (``deep`` is not applied here).
    /// - Parameters:
    ///   - displayPath: the path named in errors and in ``MediaInfo/path``.
    ///   - fileExtension: the extension the file travels with; `nil`: the preferred extension of the
    ///     type its bytes are (a file about to be named after its type).
    ///   - screened: check ``safety`` against the header first, and when a cap is over, skip the
    ///     structural check (its verdict is then `.overCap`). Default `false`: every file is checked.
    /// - Throws: the ``ProbeError`` of a file that cannot be probed.
    func examine(path: String, displayPath: String, fileExtension: String?, screened: Bool = false) throws(ProbeError) -> Examination {
        let probed = try prober.probeWithSniff(path: path, displayPath: displayPath)
        let structure: StructureVerdict
        if screened, let violation = safety.violation(for: probed.info) {
            structure = .overCap(violation)
        } else {
            structure = StructureChecker.check(path: path, sniff: probed.sniff, limits: safety)
        }
        let named = fileExtension
            ?? UniformType.of(container: probed.info.container, kind: probed.info.kind)?.preferredExtension ?? ""
        return Examination(info: probed.info, structure: structure,
                           diagnostics: diagnostics(for: probed.info, fileExtension: named, structure: structure))
    }
}
