/// What the structural check found that no conversion can cure: a broken file (iOS says 105,
/// "attachment corrupt", or shows nothing; a file without samples is one), encrypted media (no
/// player can show it in a notification), or a codec the decoders here lack (not verified, not
/// convertible: `unsupported-codec`, as `prepare` says `unsupported`). Damage outside the media
/// (``StructureVerdict/recoverable(reason:)``) is a warning that `prepare` cures. A stream nothing
/// here decodes beside others that decode (``MediaInfo/undecodableStreams``: a transport stream's
/// MPEG-H sound next to its AAC one) is a warning too: `prepare` leaves it out, with a note.
struct IntegrityRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        if case .undecodable = subject.structure { return verdict(subject) }
        let leftOut = (subject.info.undecodableStreams ?? []).map {
            Diagnostic(.unsupportedCodec, "\($0.reason); prepare leaves this \($0.kind.rawValue) stream out",
                       fix: "prepare keeps the other streams; to keep this one, attach a version in a codec FFmpeg decodes", severity: .warning)
        }
        return verdict(subject) + leftOut
    }

    private func verdict(_ subject: ValidationSubject) -> [Diagnostic] {
        switch subject.structure {
        case .corrupt(let reason):
            return [Diagnostic(.corrupt, reason, fix: "re-export or re-download the original; a broken file cannot be fitted")]
        case .encrypted(let reason):
            return [Diagnostic(.encrypted, "DRM-protected media cannot play in a notification: \(reason)",
                               fix: "attach a clear (unencrypted) export of the media")]
        case .undecodable(let reason):
            return [Diagnostic(.unsupportedCodec, reason, fix: "attach a version in a codec FFmpeg decodes (AAC-LC, H.264...)")]
        case .recoverable(let reason):
            return [Diagnostic(.recoverableDamage, "damage players step over: \(reason)",
                               fix: "prepare writes a clean copy (a remux where the codecs allow it: no re-encode)", severity: .warning)]
        case .intact, .overCap, .notChecked:
            return []
        }
    }
}
