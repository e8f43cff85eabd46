/// A structurally broken file: iOS says 105, "attachment corrupt", or shows nothing.
struct IntegrityRule: ValidationRule {
    func check(_ subject: ValidationSubject, against profile: Profile) -> [Diagnostic] {
        guard case .corrupt(let reason) = subject.structure else { return [] }
        return [Diagnostic(.corrupt, reason, fix: "re-export or re-download the original; a broken file cannot be fitted")]
    }
}
