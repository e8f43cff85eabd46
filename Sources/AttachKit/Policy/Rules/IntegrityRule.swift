/// What the structural check found that no conversion can cure: a broken file (iOS says 105,
/// "attachment corrupt", or shows nothing; a file without samples is one), encrypted media (no
/// player can show it in a notification), or a codec the decoders here lack (not verified, not
/// convertible: `unsupported-codec`, as `prepare` says `unsupported`). Damage outside the media
/// (``StructureVerdict/recoverable(reason:)``) is a warning that `prepare` cures.
struct IntegrityRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        switch subject.structure {
        case .corrupt(let reason):
            return [Diagnostic(.corrupt, reason, fix: "re-export or re-download the original; a broken file cannot be fitted")]
        case .encrypted(let reason):
            return [Diagnostic(.encrypted, "DRM-protected media cannot play in a notification: \(reason)",
                               fix: "attach a clear (unencrypted) export of the media")]
        case .undecodable(let reason):
            return [Diagnostic(.unsupportedCodec, reason, fix: "attach a version in a codec FFmpeg decodes (AAC-LC, H.264...)")]
        case .recoverable(let reason):
            return [Diagnostic(.recoverableDamage, "damage outside the media, which players skip: \(reason)",
                               fix: "prepare writes a clean copy without it (a remux: no re-encode)", severity: .warning)]
        case .intact, .overCap, .notChecked:
            return []
        }
    }
}
