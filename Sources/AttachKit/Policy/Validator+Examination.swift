/// One look at a file, the sequence every check of a file goes through (validating an input,
/// preparing it, re-checking the output): ``InputScreening`` (probe the header, the caps, the
/// structure), then the rules.
struct Examination: Sendable {
    /// The probe result (`path` is the display path).
    var info: MediaInfo
    /// The structural check's verdict; `.overCap` without checking when ``Validator/examine(path:displayPath:fileExtension:screened:span:)``
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
    ///   - span: how much of an audio/video file the work will read and decode, which the duration
    ///     cap is held against when screening. Default ``WorkSpan/whole``.
    /// - Throws: the ``ProbeError`` of a file that cannot be probed.
    func examine(path: String, displayPath: String, fileExtension: String?, screened: Bool = false,
                 span: WorkSpan = .whole) throws(ProbeError) -> Examination {
        let look = try InputScreening(prober: prober, safety: safety).look(path: path, displayPath: displayPath, screened: screened, span: span)
        let named = fileExtension
            ?? UniformType.of(container: look.info.container, kind: look.info.kind)?.preferredExtension ?? ""
        return Examination(info: look.info, structure: look.structure,
                           diagnostics: diagnostics(for: look.info, fileExtension: named, structure: look.structure))
    }
}
